import Foundation
import Testing
@testable import StoreEngine

// Interrupted purchases in the engine: pending until resolved.

@Suite("Store: interrupted purchases")
struct InterruptedPurchaseTests {
    @Test("interruptedPurchases: pending (interrupted) for every account until resolve completes it, at resolve time")
    func interruptedThenResolved() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            try await store.setSetting("interruptedPurchases", to: "true")
            let waiting = try await pendingTransaction(in: store, try await store.purchase("coins", quantity: 2))
            #expect(waiting.status == .pending)
            #expect(waiting.pendingReason == .interrupted)
            #expect(waiting.jwsRepresentation == nil)
            let logged = try #require(try await store.events().last)
            #expect(logged.state == .failed)
            #expect(logged.transactionID == waiting.id)
            // A store-wide setting: another account is interrupted too.
            let other = try fixture.open(account: "other@qa")
            #expect(try await other.purchase("pro").name == "pending")

            await #expect(throws: StoreError.invalidTransactionState(id: waiting.id, action: "approve",
                                                                     state: "pending (interrupted)")) {
                try await store.approve(waiting.id)
            }
            await #expect(throws: StoreError.invalidTransactionState(id: waiting.id, action: "decline",
                                                                     state: "pending (interrupted)")) {
                try await store.decline(waiting.id)
            }

            fixture.clock.advance(by: 300)
            let resolved = try await store.resolve(waiting.id)
            #expect(resolved.status == .purchased)
            #expect(resolved.pendingReason == nil)
            #expect(resolved.purchaseDate == utc(2025, 1, 31, 12, 5))
            #expect(resolved.price == decimal("1.98"))
            #expect(resolved.isFinished == false)
            #expect(resolved.verification == .verified)
            #expect(try await signedPayload(store, resolved)["quantity"] == .integer(2))
            await #expect(throws: StoreError.invalidTransactionState(id: waiting.id, action: "resolve", state: "purchased")) {
                try await store.resolve(waiting.id)
            }
            #expect(try await store.balances()["coins", default: 0] == 0)
            #expect(try await store.deliverUnfinished().finished.map(\.id) == [waiting.id])
            #expect(try await store.balances()["coins"] == 2)
        }
    }
}
