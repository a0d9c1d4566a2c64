import Foundation
import Testing
@testable import StoreEngine

/// What the App Store sheet says before Confirm, as the engine decides it.
@Suite("purchase preview")
struct PurchasePreviewTests {
    @Test("a yearly subscriber's snapshot says the monthly plan is a downgrade that starts at the renewal, charged nothing now")
    func downgradePlanned() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            let yearly = try await buy(store, "sub.yearly")
            let snapshot = try await store.app.snapshot()
            let change = try #require(snapshot.plannedChanges["sub.monthly"])
            #expect(change.kind == .downgrade && change.isScheduled && change.fromProductID == "sub.yearly")
            #expect(change.effectiveDate == yearly.expirationDate)
            #expect(snapshot.plannedChanges["sub.yearly"] == nil, "the current plan is no change")
            // The purchase does what the preview said.
            guard case .changeScheduled(let made) = try await store.purchase("sub.monthly") else {
                Issue.record("expected a scheduled change")
                return
            }
            #expect(made.kind == change.kind && made.effectiveDate == change.effectiveDate)
        }
    }

    @Test("a monthly subscriber's snapshot says yearly is an upgrade made at once")
    func upgradePlanned() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            _ = try await buy(store, "sub.monthly")
            let change = try #require(try await store.app.snapshot().plannedChanges["sub.yearly"])
            #expect(change.kind == .upgrade && !change.isScheduled && change.effectiveDate == nil)
        }
    }

    @Test("no subscription, no planned change")
    func nothingPlanned() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            #expect(try await store.app.snapshot().plannedChanges.isEmpty)
        }
    }

    @Test("the conditions in force are named in the order a purchase meets them, with what they make of it")
    func conditionsNamed() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            #expect(try await store.app.snapshot().conditions.summary == "succeeds (no condition set)")
            try await store.testSession.set(.askToBuy, to: true)
            try await store.testSession.set(.interruptedPurchases, to: true)
            var conditions = try await store.app.snapshot().conditions
            #expect(conditions.expected == .askToBuy)
            #expect(conditions.summary == "pending Ask to Buy (askToBuy, interruptedPurchases)")
            try await store.testSession.set(.purchaseError, to: .networkError, once: true)
            try await store.testSession.set(.finishTransactions, to: false)
            conditions = try await store.app.snapshot().conditions
            #expect(conditions.expected == .fails(.networkError))
            #expect(conditions.inForce == ["purchaseError networkError (once)", "askToBuy", "interruptedPurchases",
                                           "finishTransactions false"])
            try await store.testSession.set(.canMakePayments, to: false)
            #expect(try await store.app.snapshot().conditions.expected == .notAllowed)
        }
    }
}
