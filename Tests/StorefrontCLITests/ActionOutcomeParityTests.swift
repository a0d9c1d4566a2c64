import Foundation
import Scenarios
import StoreEngine
import StorefrontCLI
@testable import StorefrontUI
import TerminalCore
import Testing

/// What an action did is the engine's ``ActionOutcome``, said in one wording (issue 40, item 2): the
/// CLI's line (and its `--json` `summary`) and the paywall's status line are the same sentence, with
/// the same price format (`$9.99/month`) and date format (`Feb 12, 2026`), for the same action on
/// stores in the same state.
@Suite("Action outcomes: one wording")
struct ActionOutcomeParityTests {
    /// An action, prepared the same way on two stores: one acted on by the CLI, one by the paywall.
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        /// Makes the state the action needs; returns the transaction (or request) id it acts on, if any.
        var prepare: @Sendable (Store) async throws -> Int64
        var cli: @Sendable (Int64) -> [String]
        var paywall: @Sendable (Int64) -> StoreCommand
        /// How the sentence ends, where the case is about its words.
        var says: String? = nil
        var testDescription: String { name }
    }

    static func pending(_ setting: String) -> @Sendable (Store) async throws -> Int64 {
        { store in
            _ = try await store.testSession.setSetting(setting, to: "true")
            let purchase = try await store.app.buy(Demo.goPro)
            guard case .pending(let request) = purchase.outcome else { throw Unexpected(what: "\(purchase.outcome)") }
            return request.id
        }
    }

    static func bought(_ productID: String) -> @Sendable (Store) async throws -> Int64 {
        { store in try #require(try await store.app.buy(productID).outcome.transaction).id }
    }

    /// Go Pro, family-shareable, bought by the organizer of a family of three: two members share it.
    static let familyBought: @Sendable (Store) async throws -> Int64 = { store in
        try await store.testSession.createFamily("Smiths")
        for member in ["kid@local", "partner@local"] { try await store.testSession.addFamilyMember(member, to: "Smiths") }
        return try #require(try await store.app.buy(Demo.goPro).outcome.transaction).id
    }

    static let priceIncrease: @Sendable (Store) async throws -> Int64 = { store in
        _ = try await store.app.buy(Demo.monthly)
        _ = try await store.testSession.advanceClock(by: ISODuration("P1W")!)
        _ = try await store.appStore.changePrice(Demo.monthly, to: Decimal(string: "9.99")!, requireConsent: true)
        return 0
    }

    struct Unexpected: Error { var what: String }

    static let cases: [Case] = [
        Case(name: "approve", prepare: pending("askToBuy"), cli: { ["approve", "\($0)"] }, paywall: { .approve($0) }),
        Case(name: "decline", prepare: pending("askToBuy"), cli: { ["decline", "\($0)"] }, paywall: { .decline($0) }),
        Case(name: "resolve", prepare: pending("interruptedPurchases"), cli: { ["resolve", "\($0)"] }, paywall: { .resolve($0) }),
        Case(name: "buy outside", prepare: { _ in 0 }, cli: { _ in ["buy", Demo.goPro, "--outside"] },
             paywall: { _ in .buyOutside(productID: Demo.goPro) }),
        Case(name: "buy outside, owned", prepare: bought(Demo.goPro), cli: { _ in ["buy", Demo.goPro, "--outside"] },
             paywall: { _ in .buyOutside(productID: Demo.goPro) }),
        Case(name: "refund", prepare: bought(Demo.swiftShopping), cli: { ["refund", "\($0)"] }, paywall: { .refund($0) },
             says: "the entitlement is gone."),
        Case(name: "refund, shared by family", prepare: familyBought, cli: { ["refund", "\($0)"] }, paywall: { .refund($0) },
             says: "the entitlement is gone; 2 family members' shares are revoked too."),
        Case(name: "refund request", prepare: bought(Demo.swiftShopping),
             cli: { ["refund-request", "begin", "\($0)", "--request-reason", "unintendedPurchase"] },
             paywall: { .requestRefund($0, reason: .unintendedPurchase) }),
        Case(name: "price increase agreed", prepare: priceIncrease, cli: { _ in ["price-increase", "consent", Demo.monthly] },
             paywall: { _ in .consentToPriceIncrease(productID: Demo.monthly) }),
        Case(name: "price increase declined", prepare: priceIncrease, cli: { _ in ["price-increase", "decline", Demo.monthly] },
             paywall: { _ in .declinePriceIncrease(productID: Demo.monthly) }),
        Case(name: "expire", prepare: bought(Demo.monthly), cli: { _ in ["expire", "premium"] }, paywall: { _ in .expire(groupID: "premium") }),
        Case(name: "renew", prepare: bought(Demo.monthly), cli: { _ in ["renew", "premium"] }, paywall: { _ in .renew(groupID: "premium") }),
        Case(name: "auto-renew off", prepare: bought(Demo.monthly), cli: { _ in ["auto-renew", "premium", "off"] },
             paywall: { _ in .autoRenew(groupID: "premium", on: false) }),
        Case(name: "setting", prepare: { _ in 0 }, cli: { _ in ["settings", "set", "askToBuy", "true"] },
             paywall: { _ in .setSetting(name: "askToBuy", value: "true", once: false) }),
        Case(name: "setting once", prepare: { _ in 0 }, cli: { _ in ["settings", "set", "purchaseError", "networkError", "--once"] },
             paywall: { _ in .setSetting(name: "purchaseError", value: "networkError", once: true) }),
        Case(name: "reset app", prepare: bought(Demo.goPro), cli: { _ in ["reset", "app"] }, paywall: { _ in .reset(.app) }),
        Case(name: "reset account", prepare: bought(Demo.goPro), cli: { _ in ["reset", "account"] }, paywall: { _ in .reset(.account) }),
    ]

    @Test(arguments: cases)
    func theCLIAndThePaywallSayTheSame(_ action: Case) async throws {
        let folder = try TemporaryFolder(prefix: "storefront-outcomes")
        let clock: @Sendable () -> Date = { ParityTests.start }
        // The CLI's store.
        let cliPath = folder.path("cli.sqlite")
        let id = try await action.prepare(try Store(catalog: ParityTests.catalog, path: cliPath, now: clock))
        let commands = CLI.scenarioCommandLine
        let text = try await commands.run(action.cli(id), catalog: ParityTests.catalog, storePath: cliPath, now: clock)
        #expect(text.error == nil, "\(text.error?.message ?? "")")
        let json = try await commands.run(action.cli(id) + ["--json"], catalog: ParityTests.catalog,
                                          storePath: folder.path("json.sqlite"), now: clock, preparedBy: action.prepare)
        // The paywall's store, in the same state.
        let paywallStore = try Store(catalog: ParityTests.catalog, path: folder.path("paywall.sqlite"), now: clock)
        let paywallID = try await action.prepare(paywallStore)
        #expect(paywallID == id, "the two stores give the same ids")
        let engine = EngineEffects(store: paywallStore, latency: .zero)
        guard case .commandFinished(_, .success(let said))? = await engine.perform(.run(action.paywall(paywallID))) else {
            Issue.record("the paywall's command failed")
            return
        }
        let line = try #require(text.lines.first)
        #expect(line == said, "CLI: \(line)\npaywall: \(said)")
        #expect(json?["summary"] == .string(said), "--json's summary: \(String(describing: json))")
        if let says = action.says { #expect(said.hasSuffix(says), "\(said)") }
        // One price format and one date format: never a bare amount or an ISO date.
        #expect(!said.contains("T09:00") && !said.contains(" 9.99 "), "\(said)")
    }

    /// An app action the paywall takes as an effect of its own (Buy, c, r), not a store command.
    struct AppAction: Sendable, CustomTestStringConvertible {
        var name: String
        var prepare: @Sendable (Store) async throws -> Int64
        var cli: [String]
        var effect: Effect
        /// `--json`'s `action`.
        var action: String
        /// How the sentence starts (the rest, prices and ids, must only be the same on both).
        var starts: String
        /// What the paywall's alert adds after the sentence; nil when the paywall says it on its status line.
        var alertAdds: String? = nil
        var testDescription: String { name }
    }

    static func setting(_ name: String, _ value: String, then prepare: @escaping @Sendable (Store) async throws -> Int64 = { _ in 0 })
        -> @Sendable (Store) async throws -> Int64 {
        { store in
            _ = try await store.testSession.setSetting(name, to: value)
            return try await prepare(store)
        }
    }

    static let appActions: [AppAction] = [
        AppAction(name: "consume", prepare: bought(Demo.coins), cli: ["consume", Demo.coins], effect: .consume(productID: Demo.coins),
                  action: "consumed", starts: "Consumed 1 × 100 Coins: the balance is 0."),
        AppAction(name: "restore", prepare: bought(Demo.goPro), cli: ["restore"], effect: .restore, action: "restored",
                  starts: "Restored 1 purchase."),
        AppAction(name: "buy", prepare: { _ in 0 }, cli: ["buy", Demo.goPro], effect: .purchase(productID: Demo.goPro),
                  action: "bought", starts: "Purchased Go Pro for $"),
        AppAction(name: "buy, owned", prepare: bought(Demo.goPro), cli: ["buy", Demo.goPro], effect: .purchase(productID: Demo.goPro),
                  action: "bought", starts: "Restored Go Pro for free: the account owns it already (transaction 2000000001)."),
        AppAction(name: "buy, cancelled", prepare: { _ in 0 }, cli: ["buy", Demo.goPro, "--outcome", "cancel"],
                  effect: .purchase(productID: Demo.goPro, outcome: .cancel), action: "bought",
                  starts: "The purchase of Go Pro was cancelled (userCancelled)."),
        AppAction(name: "buy, left unfinished", prepare: setting("finishTransactions", "false"), cli: ["buy", Demo.goPro],
                  effect: .purchase(productID: Demo.goPro), action: "bought",
                  starts: "Purchased Go Pro, left unfinished (transaction 2000000001): nothing delivered"),
        AppAction(name: "buy, free trial", prepare: { _ in 0 }, cli: ["buy", Demo.monthly], effect: .purchase(productID: Demo.monthly),
                  action: "bought", starts: "Started the free trial of Monthly Subscription (transaction 2000000001)."),
        AppAction(name: "buy, downgrade", prepare: bought(Demo.yearly), cli: ["buy", Demo.monthly],
                  effect: .purchase(productID: Demo.monthly), action: "bought", starts: "Downgrade to Monthly Subscription from "),
        AppAction(name: "buy, Ask to Buy", prepare: setting("askToBuy", "true"), cli: ["buy", Demo.goPro],
                  effect: .purchase(productID: Demo.goPro), action: "bought",
                  starts: "The purchase of Go Pro is pending Ask to Buy approval", alertAdds: " In the Transaction Manager: t, then a."),
        AppAction(name: "redeem", prepare: { _ in 0 }, cli: ["redeem", "FREE3A"], effect: .redeem(code: "FREE3A"), action: "redeemed",
                  starts: "Redeemed FREE3A: Annual Subscription, offer \"", alertAdds: ""),
    ]

    @Test("Buy, consume and restore: the CLI's line, its --json summary and the paywall's note (or alert) are one sentence",
          arguments: appActions)
    func appActionsSayTheSame(_ action: AppAction) async throws {
        let folder = try TemporaryFolder(prefix: "storefront-outcomes")
        let clock: @Sendable () -> Date = { ParityTests.start }
        let cliPath = folder.path("cli.sqlite")
        _ = try await action.prepare(try Store(catalog: ParityTests.catalog, path: cliPath, now: clock))
        let commands = CLI.scenarioCommandLine
        let text = try await commands.run(action.cli, catalog: ParityTests.catalog, storePath: cliPath, now: clock)
        let jsonPath = folder.path("json.sqlite")
        let json = try await commands.run(action.cli + ["--json"], catalog: ParityTests.catalog,
                                          storePath: jsonPath, now: clock, preparedBy: action.prepare)
        let paywallStore = try Store(catalog: ParityTests.catalog, path: folder.path("paywall.sqlite"), now: clock)
        _ = try await action.prepare(paywallStore)
        let engine = EngineEffects(store: paywallStore, latency: .zero)
        var state = StorefrontUI.State(size: Size(columns: 200, rows: 40), account: paywallStore.account,
                                       storePath: paywallStore.path, paywall: ParityTests.catalog.paywall)
        let launched = try #require(await engine.perform(.load))
        #expect(update(&state, launched).isEmpty, "the launch asks for nothing more")
        let done = try #require(await engine.perform(action.effect))
        #expect(update(&state, done) == [.load])
        // A pending purchase is an alert: the sentence, then where the paywall acts on it.
        let alert: String? = if case .alert(_, let message) = state.sheet { message } else { nil }
        let said = try #require(action.alertAdds == nil ? state.flash : alert)
        // A pending request's next step names each store's own file.
        let (cliSaid, jsonSaid) = (text.lines.first?.replacingOccurrences(of: cliPath, with: paywallStore.path),
                                   json?["summary"].flatMap { if case .string(let text) = $0 { text } else { nil } }?
                                       .replacingOccurrences(of: jsonPath, with: paywallStore.path))
        #expect(said.hasPrefix(action.starts), "\(said)")
        #expect(try #require(cliSaid) + (action.alertAdds ?? "") == said, "CLI: \(text.lines)\npaywall: \(said)")
        #expect(jsonSaid == cliSaid && json?["action"] == .string(action.action), "\(String(describing: json))")
    }
}

extension ScenarioCommandLine {
    /// Runs `arguments` with `--json` on a fresh store at `path` prepared by `prepare`: the JSON printed.
    func run(_ arguments: [String], catalog: Catalog, storePath path: String, now: @escaping @Sendable () -> Date,
             preparedBy prepare: @Sendable (Store) async throws -> Int64) async throws -> JSON? {
        _ = try await prepare(try Store(catalog: catalog, path: path, now: now))
        return try await run(arguments, catalog: catalog, storePath: path, now: now).json
    }
}
