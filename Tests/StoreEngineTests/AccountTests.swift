import Foundation
import Testing
@testable import StoreEngine

// Sandbox testers (accounts) in the engine.

@Suite("Store: sandbox accounts")
struct AccountTests {
    @Test("createAccount adds a tester once; unusedTesterName finds the next free name")
    func create() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            #expect(try await store.unusedTesterName() == "tester2@local")
            #expect(try await store.createAccount("tester2@local"))
            #expect(try await store.createAccount("tester2@local") == false)
            #expect(try await store.unusedTesterName() == "tester3@local")
            #expect(try await store.accounts().contains("tester2@local"))
            let fresh = try fixture.open(account: "tester2@local")
            #expect(try await fresh.transactions().isEmpty)
        }
    }

    @Test("switchAccount is kept in the store file: a store opened without an account uses it")
    func switchAccount() async throws {
        try await withStoreFixture { fixture in
            let unnamed = try Store(catalog: fixture.catalog, path: fixture.path, account: nil, now: fixture.clock.closure)
            #expect(unnamed.account == Store.defaultAccount)

            let switched = try await unnamed.switchAccount(to: "qa@local")
            #expect(switched.account == "qa@local")
            #expect(unnamed.account == Store.defaultAccount, "a store keeps its own account")
            #expect(try await unnamed.accounts().contains("qa@local"), "created when new")
            let bought = try await buy(switched, "pro")

            let reopened = try Store(catalog: fixture.catalog, path: fixture.path, account: nil, now: fixture.clock.closure)
            #expect(reopened.account == "qa@local")
            #expect(try await reopened.transactions().map(\.id) == [bought.id])
            // A named account still wins.
            let named = try fixture.open(account: Store.defaultAccount)
            #expect(try await named.transactions().isEmpty)

            _ = try await reopened.switchAccount(to: Store.defaultAccount)
            let back = try Store(catalog: fixture.catalog, path: fixture.path, account: nil, now: fixture.clock.closure)
            #expect(back.account == Store.defaultAccount)
        }
    }

    @Test("canMakePayments is per account")
    func canMakePaymentsPerAccount() async throws {
        try await withStoreFixture { fixture in
            let a = try fixture.open(account: "a@qa")
            let b = try fixture.open(account: "b@qa")
            try await a.setSetting("canMakePayments", to: "false")
            #expect(try await a.canMakePayments() == false)
            #expect(try await b.canMakePayments())
            await #expect(throws: StoreError.purchaseNotAllowed) { try await a.purchase("pro") }
            #expect(try await b.purchase("pro").result.name == "success")
        }
    }
}
