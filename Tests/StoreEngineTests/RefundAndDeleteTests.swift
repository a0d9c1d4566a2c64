import Foundation
import Testing
@testable import StoreEngine

// Refunds by the App Store, and transactions deleted, in the engine.

@Suite("Store: refunds and deleted transactions")
struct RefundAndDeleteTests {
    @Test("a refunded non-consumable: revocation date and reason, signed anew, entitlement and owned status gone, logged revoked")
    func refundNonConsumable() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            let bought = try await buy(store, "pro")
            try await store.finish(bought)
            #expect(try await store.ownedProducts()["pro"] != nil)

            fixture.clock.advance(by: 86_400)
            let refunded = try await store.refund(bought.id, reason: .developerIssue)
            #expect(refunded.revocationDate == utc(2025, 2, 1, 12))
            #expect(refunded.revocationReason == .developerIssue)
            #expect(refunded.status == .purchased)
            #expect(refunded.purchaseDate == fixtureStart, "the purchase keeps its date")
            #expect(refunded.verification == .verified)
            #expect(refunded.jwsRepresentation != bought.jwsRepresentation)
            let payload = try await signedPayload(store, refunded)
            #expect(payload["revocationDate"] == .integer(utc(2025, 2, 1, 12).milliseconds))
            #expect(payload["revocationReason"] == .integer(1))
            #expect(try await store.transaction(id: bought.id) == refunded)

            #expect(try await store.isEntitled(to: "pro") == false)
            #expect(try await store.currentEntitlements().isEmpty)
            #expect(try await store.ownedProducts().isEmpty)
            #expect(try await store.sync().isEmpty)
            let last = try #require(try await store.events().last)
            #expect(last.state == .revoked)
            #expect(last.transactionID == bought.id)
            #expect(last.date == utc(2025, 2, 1, 12))

            await #expect(throws: StoreError.invalidTransactionState(id: bought.id, action: "refund", state: "refunded already")) {
                try await store.refund(bought.id)
            }
            #expect(try await store.transaction(id: bought.id).revocationReason == .developerIssue)

            // Bought again after the refund: charged anew, a new transaction.
            let again = try await store.purchaseAndFinish("pro")
            #expect(again.alreadyOwned == false)
            let second = try transaction(of: again.result)
            #expect(second.id != bought.id)
            #expect(try await store.ownedProducts()["pro"]?.id == second.id)
        }
    }

    @Test("the default refund reason is other")
    func defaultReason() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            let bought = try await buy(store, "faces")
            let refunded = try await store.refund(bought.id)
            #expect(refunded.revocationReason == .other)
            #expect(try await signedPayload(store, refunded)["revocationReason"] == .integer(0))
        }
    }

    @Test("a refunded consumable is taken from the balance, never below zero")
    func refundConsumable() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            let first = try await buy(store, "coins", quantity: 2)
            try await store.finish(first)
            let second = try await buy(store, "coins", quantity: 3)
            try await store.finish(second)
            #expect(try await store.balances()["coins"] == 5)
            try await store.refund(second.id)
            #expect(try await store.balances()["coins"] == 2)

            try await store.consume("coins", quantity: 1)
            try await store.refund(first.id)
            #expect(try await store.balances()["coins"] == 0, "1 left, 2 refunded: zero, not -1")
        }
    }

    @Test("a consumable refunded before the app delivered it never reaches the balance")
    func refundUnfinishedConsumable() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            try await store.finish(try await buy(store, "coins", quantity: 1))
            let waiting = try await buy(store, "coins", quantity: 3)  // not finished yet
            try await store.refund(waiting.id)
            #expect(try await store.balances()["coins"] == 1)
            _ = try await store.deliverUnfinished()
            #expect(try await store.balances()["coins"] == 1, "a revoked purchase grants nothing")
            #expect(try await store.unfinished().isEmpty, "the app has seen and finished it")

            // An app that got the transaction before the refund and finishes its copy afterwards.
            let held = try await buy(store, "coins", quantity: 5)
            try await store.refund(held.id)
            try await store.finish(held)
            #expect(try await store.balances()["coins"] == 1)
            #expect(try await store.transaction(id: held.id).isFinished)
        }
    }

    @Test("a refunded subscription loses its entitlement and renewal info at once")
    func refundSubscription() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            let bought = try await buy(store, "sub.yearly")
            #expect(try await store.renewalInfo()["premium"] != nil)
            try await store.refund(bought.id)
            #expect(try await store.isEntitled(to: "sub.yearly") == false)
            #expect(try await store.subscriptionStatuses().map(\.state) == [.revoked])
            #expect(try await store.renewalInfo()["premium"]?.willAutoRenew == false)
        }
    }

    @Test("a deleted transaction leaves the history and the app's cache; the product can be bought again")
    func deleteTransaction() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            let bought = try await buy(store, "pro")
            try await store.finish(bought)
            let other = try await buy(store, "faces")
            try await store.deleteTransaction(bought.id)
            #expect(try await store.transactions().map(\.id) == [other.id])
            #expect(try await store.isEntitled(to: "pro") == false)
            #expect(try await store.ownedProducts()["pro"] == nil)
            await #expect(throws: StoreError.transactionNotFound(id: bought.id)) { try await store.transaction(id: bought.id) }
            await #expect(throws: StoreError.transactionNotFound(id: bought.id)) { try await store.deleteTransaction(bought.id) }

            let again = try await store.purchaseAndFinish("pro")
            #expect(again.alreadyOwned == false)
            #expect(try transaction(of: again.result).id > other.id, "ids are never reused")
        }
    }
}
