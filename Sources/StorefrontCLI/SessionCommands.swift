import Foundation
import StoreEngine
import StorefrontUI

/// `accounts`: the sandbox testers, and their families (`accounts family …`).
enum AccountsCommand: StorefrontCommand {
    /// `accounts`: the store file's accounts.
    case list
    /// `accounts create NAME`, `accounts switch NAME`.
    case create(name: String)
    case switchTo(name: String)
    /// `accounts family …`.
    case family(FamilyAction)

    static let help = CommandHelp(
        name: "accounts", usage: "accounts [create NAME | switch NAME | family [create NAME | add NAME ACCOUNT | remove NAME ACCOUNT]] [--json]",
        summary: "List, create or switch sandbox testers; group them in families",
        details: """
              accounts               the store file's accounts; * marks the one in use
              accounts create NAME   a new tester with an empty history (the way to test a
                                     first purchase of a non-consumable again)
              accounts switch NAME   use NAME when --account is not given (created if new)
            Settings marked "per account" (canMakePayments, askToBuy) belong to each tester.
            \(FamilyCommands.details)
            """,
        operands: [.words(["create", "switch", "family"]), .text, .text, .text])

    static func parse(_ line: CommandArguments) throws(UsageError) -> Self {
        try line.allow()
        let args = line.args
        switch (args.first, args.count) {
        case (nil, _): return .list
        case ("create", 2) where !args[1].isEmpty: return .create(name: args[1])
        case ("switch", 2) where !args[1].isEmpty: return .switchTo(name: args[1])
        case ("family", _): return .family(try FamilyAction(Array(args.dropFirst())))
        default:
            throw UsageError(description: "accounts takes nothing, create NAME, switch NAME or family …", command: line.name)
        }
    }

    var needsCatalog: Bool { if case .family(let action) = self { action.needsCatalog } else { false } }

    func run(in session: Session) async throws -> Report? {
        switch self {
        case .list: try await session.accounts()
        case .create(let name): try await session.createAccount(name)
        case .switchTo(let name): try await session.switchAccount(name)
        case .family(let action): try await action.run(in: session)
        }
    }
}

/// `reset app | account | all`: the app's state, the account's history, or everything wiped.
struct ResetCommand: StorefrontCommand {
    var scope: ResetScope

    static let help = CommandHelp(
        name: "reset", usage: "reset app | account | all [--json]",
        summary: "Wipe the app's state, the account's history, or everything",
        details: """
              app       as deleting the app: its owned-products cache and consumable balances
                        (for every account); the App Store's history stays, so restore works
              account   the account's transactions, settings, log and app-side state
              all       the whole store file's contents; transaction ids are never reused,
                        and the catalog the store runs with is kept
            """,
        operands: [.words(["app", "account", "all"])])

    static func parse(_ line: CommandArguments) throws(UsageError) -> Self {
        try line.expect(1, "what to reset: app, account or all")
        try line.allow()
        guard let scope = ResetScope(rawValue: line.args[0]) else {
            throw UsageError(description: "reset takes app, account or all, not \"\(line.args[0])\"", command: line.name)
        }
        return Self(scope: scope)
    }

    func run(in session: Session) async throws -> Report? { try await session.reset(scope) }
}

/// `settings [set NAME VALUE [--once]]`: the simulated conditions.
enum SettingsCommand: StorefrontCommand {
    /// `settings`: every setting and its value.
    case list
    /// `settings set NAME VALUE [--once]`.
    case set(name: String, value: String, once: Bool = false)

    static let help = CommandHelp(
        name: "settings", usage: "settings [set NAME VALUE [--once]] [--json]",
        summary: "Show or change the simulated conditions",
        details: """
            Without operands, lists every setting and its value. `settings set NAME VALUE`
            changes one; settings are kept in the store file. With --once an error setting
            applies to the next call only, then returns to none.
            \(SettingDefinition.all.map { "  \($0.name.padding(toLength: CommandHelp.settingNameWidth, withPad: " ", startingAt: 0)) \($0.scope == .account ? "per account" : "whole store"): \($0.summary)" }.joined(separator: "\n"))
            """,
        options: [once.spec], operands: [.words(["set"]), .settingName, .settingValue])

    static let once = Flag("--once", "an error setting applies to the next call only")

    static func parse(_ line: CommandArguments) throws(UsageError) -> Self {
        try line.allow(refusing: line.args.count == 3 ? [] : [once.spec])  // settings set NAME VALUE --once
        let args = line.args
        switch args.count {
        case 0: return .list
        case 3 where args[0] == "set": return .set(name: args[1], value: args[2], once: line.has(once))
        default:
            throw UsageError(description: "settings takes nothing, or set NAME VALUE", command: line.name)
        }
    }

    func run(in session: Session) async throws -> Report? {
        switch self {
        case .list: try await session.settings()
        case .set(let name, let value, let once): try await session.setSetting(name, value, once: once)
        }
    }
}

/// `clock [advance DURATION]`: the store's clock, or a jump ahead.
enum ClockCommand: StorefrontCommand {
    /// `clock`: the store time and rate.
    case show
    /// `clock advance DURATION`.
    case advance(ISODuration)

    static let help = CommandHelp(
        name: "clock", usage: "clock [advance DURATION] [--json]",
        summary: "Show the store's clock, or jump it ahead (renewals follow)",
        details: """
            The store has its own time: real time scaled by the timeRate setting (Xcode's
            names: realTime, monthlyRenewalEveryHour … monthlyRenewalEveryThirtySeconds,
            oneRenewalEveryFifteenMinutes … oneRenewalEveryTwoSeconds), plus every jump.
              clock                    the store time and rate
              clock advance DURATION   jump ahead by an ISO-8601 duration (P1M, P3D, PT6H);
                                       the renewals, billing retries and expiries due by then
                                       are made in order, as when a device was off
            """,
        operands: [.words(["advance"]), .words(["P1D", "P1W", "P1M", "P1Y", "PT1H"])])

    static func parse(_ line: CommandArguments) throws(UsageError) -> Self {
        try line.allow()
        let args = line.args
        switch args.count {
        case 0: return .show
        case 2 where args[0] == "advance":
            guard let duration = ISODuration(args[1]), duration != ISODuration() else {
                throw UsageError(description: "clock advance needs an ISO-8601 duration such as P1M, P3D or PT6H, not \"\(args[1])\"", command: line.name)
            }
            return .advance(duration)
        default:
            throw UsageError(description: "clock takes nothing, or advance DURATION", command: line.name)
        }
    }

    var needsCatalog: Bool { if case .advance = self { true } else { false } }

    func run(in session: Session) async throws -> Report? {
        switch self {
        case .show: try await session.clock()
        case .advance(let duration): try await session.advanceClock(duration)
        }
    }
}

/// `log [--limit N]`: the account's transaction state changes.
struct LogCommand: StorefrontCommand {
    var limit = 50

    static let help = CommandHelp(
        name: "log", usage: "log [--limit N] [--json]",
        summary: "The account's transaction state changes (StoreKit 1 states)",
        details: """
            The newest N (default 50) state changes of the account's transactions, in the
            order they happened by the store's clock: purchasing, purchased, failed, restored,
            deferred; revoked for a refund and expired for a subscription's end (StoreKit 1
            has no state for either). Failures carry the error's name and SKError code.
            """,
        options: [SharedOptions.limit.spec])

    static func parse(_ line: CommandArguments) throws(UsageError) -> Self {
        try line.expect(0, "")
        try line.allow()
        return Self(limit: try line.value(SharedOptions.limit) ?? 50)
    }

    func run(in session: Session) async throws -> Report? { try await session.log(limit: limit) }
}

/// The tester's commands — clock, accounts, settings, resets, the log — on the test session's face.
extension Session {
    func clock() async throws -> Report {
        let (now, rate) = try await testSession.clock()
        return Report(json: .object(["now": .date(now), "timeRate": .string(rate.rawValue)]),
                      "Store time: \(now.iso8601) (\(rate.rawValue))")
    }

    func advanceClock(_ duration: ISODuration) async throws -> Report {
        let advance = try await testSession.advanceClockReporting(by: duration)
        return Report(json: .object(["now": .date(advance.now), "advancedBy": .string(duration.description),
                                     "renewals": .integer(advance.renewals), "failedRenewals": .integer(advance.failedRenewals),
                                     "expirations": .integer(advance.expirations), "inGracePeriod": .integer(advance.inGracePeriod),
                                     "gracePeriodsEnded": .integer(advance.gracePeriodsEnded)]),
                      "Advanced the clock by \(duration.spelledOut): store time is \(advance.now.iso8601). \(advance.summary)")
    }

    func accounts() async throws -> Report {
        let names = try await testSession.accounts()
        let json = JSON.object(["current": .string(store.account), "accounts": .array(names.map(JSON.string))])
        guard !names.isEmpty else {
            return Report(json: json, "No accounts yet; \(TerminalText.sanitized(store.account)) is used when none is named.")
        }
        return Report(json: json, names.map { "\($0 == store.account ? "*" : " ") \(TerminalText.sanitized($0))" })
    }

    func createAccount(_ name: String) async throws -> Report {
        guard try await testSession.createAccount(name) else { throw AccountExists(account: name) }
        // The hints are pasted: on this store (not the default one), the name as the shell reads it.
        let (shown, word) = (TerminalText.sanitized(name), ShellWord.word(name))
        return Report(json: .object(["created": .string(name)]),
                      "Created sandbox tester \(shown) with an empty history. Use it with --account \(word) or: \(ShellWord.storefront(store: store.path)) accounts switch \(word)")
    }

    func switchAccount(_ name: String) async throws -> Report {
        _ = try await testSession.switchAccount(to: name)
        return Report(json: .object(["current": .string(name)]),
                      "Switched to \(TerminalText.sanitized(name)): commands without --account use it now.")
    }

    func reset(_ scope: ResetScope) async throws -> Report {
        Report(try await testSession.resetReporting(scope), ["reset": .string(scope.rawValue), "account": .string(store.account)])
    }

    func settings() async throws -> Report {
        let settings = try await testSession.settings()
        let json = JSON.object([
            "account": .string(store.account),
            "settings": .object(settings.map { JSON.Member($0.name, .string($0.value)) }),
            "once": .array(settings.filter(\.once).map { JSON.string($0.name) }),
        ])
        var table = Table("NAME", "VALUE", "SCOPE")
        for setting in settings {
            table.add(setting.name, setting.value + (setting.isDefault ? " (default)" : setting.once ? " (once)" : ""),
                      setting.scope == .account ? "account \(store.account)" : "store")
        }
        return Report(json: json, table.rendered)
    }

    func setSetting(_ name: String, _ value: String, once: Bool) async throws -> Report {
        let stored = try await testSession.setSetting(name, to: value, once: once)
        return Report(ActionOutcome.settingChanged(name: name, value: stored, once: once),
                      ["name": .string(name), "value": .string(stored), "once": .bool(once)])
    }

    func log(limit: Int) async throws -> Report {
        let events = try await testSession.events(limit: limit)
        var table = Table("DATE", "STATE", "PRODUCT ID", "TRANSACTION", "DETAIL")
        for event in events {
            table.add(event.date.iso8601, event.state.rawValue, event.productID,
                      event.transactionID.map(String.init) ?? "", event.detail)
        }
        return Report(json: .object(["account": .string(store.account), "events": .array(events.map(\.json))]), table.rendered)
    }
}
