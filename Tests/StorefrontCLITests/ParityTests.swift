import Foundation
import Scenarios
import StoreEngine
import StorefrontCLI
import StorefrontKit
import StorefrontUI
import Testing
import TerminalCore

/// One store, four front ends, one truth (issue 26): for stores in the states a tester meets, the
/// CLI's `products`, `transactions` and `status` (text and `--json`), the paywall's rendered rows,
/// StorefrontKit and a scenario's `expect` lines say the same thing — the same owned and entitled
/// products, the same status words, the same prices, the same transaction states
/// (``ParityCheck``; ``ParityWalkTests`` walks states generated at random).
///
/// Each store is set up through the engine's faces on a clock that stands still (the store's own
/// clock moved with `advanceClock`); every front end reads it at that time.
@Suite("Parity")
struct ParityTests {
    /// The clock every front end reads the store at (a scenario's `start`).
    static let start = try! Date("2026-01-05T09:00:00Z", strategy: .iso8601)
    static let catalog = try! Catalog.load(contentsOf: Repository.catalog)

    /// A store state, made through the faces.
    struct State: Sendable, CustomTestStringConvertible {
        var name: String
        var prepare: @Sendable (Store, _ path: String, _ clock: @escaping @Sendable () -> Date) async throws -> Void
        var testDescription: String { name }
    }

    static func advance(_ store: Store, _ duration: String) async throws {
        _ = try await store.testSession.advanceClock(by: ISODuration(duration)!)
    }

    static func set(_ store: Store, _ name: String, _ value: String) async throws {
        _ = try await store.testSession.setSetting(name, to: value)
    }

    static func buy(_ store: Store, _ productID: String) async throws -> StoreEngine.Transaction {
        try #require(try await store.app.buy(productID).outcome.transaction)
    }

    static let states: [State] = [
        State(name: "trial") { store, _, _ in _ = try await buy(store, Demo.monthly) },
        State(name: "renewed trial") { store, _, _ in
            _ = try await buy(store, Demo.monthly)
            try await advance(store, "P1W")
        },
        State(name: "grace period") { store, _, _ in
            _ = try await buy(store, Demo.monthly)
            try await set(store, "billingIssues", "true")
            try await set(store, "gracePeriod", "true")
            try await advance(store, "P8D")
        },
        State(name: "billing retry") { store, _, _ in
            _ = try await buy(store, Demo.monthly)
            try await set(store, "billingIssues", "true")
            try await advance(store, "P8D")
        },
        State(name: "downgrade scheduled") { store, _, _ in
            _ = try await buy(store, Demo.yearly)
            _ = try await store.app.buy(Demo.monthly)
        },
        State(name: "reset app") { store, _, _ in
            _ = try await buy(store, Demo.yearly)
            _ = try await buy(store, Demo.swiftShopping)
            try await store.testSession.reset(.app)
        },
        State(name: "family share") { store, path, clock in
            _ = try await store.testSession.createAccount("alice")
            _ = try await store.testSession.createFamily("smiths", organizer: "alice")
            _ = try await store.testSession.addFamilyMember(store.account, to: "smiths")
            let alice = try Store(catalog: ParityTests.catalog, path: path, account: "alice", now: clock)
            _ = try await buy(alice, Demo.goPro)
        },
        State(name: "refunded") { store, _, _ in
            let bought = try await buy(store, Demo.swiftShopping)
            _ = try await store.appStore.refund(bought.id)
            _ = try await buy(store, Demo.iPhoneRage)
        },
        State(name: "no payments") { store, _, _ in
            _ = try await buy(store, Demo.swiftShopping)
            try await set(store, "canMakePayments", "false")
        },
        State(name: "German storefront") { store, _, _ in
            try await set(store, "storefront", "DEU")
            _ = try await buy(store, Demo.yearly)
        },
        State(name: "foreign currency") { store, _, _ in
            try await set(store, "storefront", "DEU")
            _ = try await buy(store, Demo.swiftShopping)
            try await set(store, "storefront", "USA")
            _ = try await buy(store, Demo.iPhoneRage)
        },
    ]

    /// Each state on a store file and on a store in PostgreSQL: no front end knows which it is on.
    @Test(arguments: states, [TestBackend.sqlite, .postgreSQL])
    func everyFrontEndSaysTheSame(_ state: State, on backend: TestBackend) async throws {
        let folder = try TemporaryFolder(prefix: "storefront-parity")
        let path = backend == .postgreSQL ? try PostgreSQLServer.shared().freshSchema(named: "parity") : folder.path("store.sqlite")
        let clock: @Sendable () -> Date = { ParityTests.start }
        let store = try Store(catalog: Self.catalog, path: path, now: clock)
        try await state.prepare(store, path, clock)
        let check = ParityCheck()
        let complete = try await check.compare(store, path: path, catalog: Self.catalog, clock: clock,
                                               scenarioPath: folder.path("parity.scenario"))
        for disagreement in check.disagreements { Issue.record("\(disagreement)") }
        #expect(complete && check.comparisons > 50, "\(check.comparisons) comparisons")
    }
}
