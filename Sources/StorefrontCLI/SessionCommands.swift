import Foundation
import StoreEngine
import StorefrontUI

/// The tester's commands — clock, accounts, settings, resets, the log — on the test session's face.
extension Session {
    func clock() async throws -> Report {
        let (now, rate) = try await testSession.clock()
        return Report(json: .object(["now": .date(now), "timeRate": .string(rate.rawValue)]),
                      "Store time: \(now.iso8601) (\(rate.rawValue))")
    }

    func advanceClock(_ duration: ISODuration) async throws -> Report {
        let now = try await testSession.advanceClock(by: duration)
        return Report(json: .object(["now": .date(now), "advancedBy": .string(duration.description)]),
                      "Advanced the clock by \(duration.spelledOut): store time is \(now.iso8601). Renewals due by then are made.")
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
        guard try await testSession.createAccount(name) else { throw AccountExists(name: name) }
        let shown = TerminalText.sanitized(name)
        return Report(json: .object(["created": .string(name)]),
                      "Created sandbox tester \(shown) with an empty history. Use it with --account \(shown) or: storefront accounts switch \(shown)")
    }

    func switchAccount(_ name: String) async throws -> Report {
        _ = try await testSession.switchAccount(to: name)
        return Report(json: .object(["current": .string(name)]),
                      "Switched to \(TerminalText.sanitized(name)): commands without --account use it now.")
    }

    func reset(_ scope: ResetScope) async throws -> Report {
        try await testSession.reset(scope)
        let json = JSON.object(["reset": .string(scope.rawValue), "account": .string(store.account)])
        return switch scope {
        case .app: Report(json: json, "Reset the app: owned products and balances are gone, as after deleting the app. Restore brings purchases back.")
        case .account: Report(json: json, "Reset account \(TerminalText.sanitized(store.account)): its history, settings and app state are gone.")
        case .all: Report(json: json, "Reset everything in \(TerminalText.sanitized(store.path)).")
        }
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
        return Report(json: .object(["name": .string(name), "value": .string(stored), "once": .bool(once)]),
                      "\(name) = \(stored)\(once ? " (once: the next call only)" : "")")
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
