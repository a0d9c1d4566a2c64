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

/// The event log as every face reads it: in the order things happened, an expiry named so.
@Suite("event log order")
struct EventLogOrderTests {
    @Test("an expiry is logged as expired, not failed; auto-renew off expires as expired too")
    func expiryIsExpired() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            _ = try await buy(store, "sub.yearly")
            try await store.appStore.expireSubscription(groupID: "premium")
            let last = try #require(try await store.appStore.events().last)
            #expect(last.state == .expired && last.detail == "expired now by the tester")
            _ = try await buy(store, "sub.yearly")
            try await store.appStore.setAutoRenew(groupID: "premium", false)
            fixture.clock.advance(ISODuration(years: 1, days: 1))
            _ = try await store.appStore.processRenewals()
            let events = try await store.appStore.events()
            #expect(events.last?.state == .expired && events.last?.detail.contains("autoRenewDisabled") == true)
            #expect(!events.contains { $0.state == .failed }, "no expiry reads as a failure")
        }
    }

    @Test("renewals caught up late are listed when they happened, not after the later events recorded before them")
    func inOrderOfHappening() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            _ = try await buy(store, "sub.monthly")
            fixture.clock.advance(ISODuration(months: 3))
            // A purchase by another account's process comes first; this account's renewals are recorded after it,
            // dated in the past: a consumable bought now is logged before them.
            _ = try await store.purchase("coins")
            _ = try await store.appStore.processRenewals()
            let dates = try await store.appStore.events().map(\.date)
            #expect(dates == dates.sorted(), "oldest first by the store's clock")
        }
    }
}

@Suite("renew now and offers")
struct RenewNowOfferTests {
    @Test("renew now does not cut a paid promotional period short and charge the full price; a free trial may end now")
    func keepsPaidOffer() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            let trial = try await buy(store, "sub.monthly")
            #expect(trial.offerPaymentMode == .freeTrial)
            try await store.appStore.renewSubscription(groupID: "premium")
            let paid = try #require(try await store.appStore.subscriptionStatuses().first?.transaction)
            #expect(paid.offerType == nil && paid.price > 0, "the trial ended now, the first paid month began")
        }
        // The bundled catalog's promotional year ($29.99), taken by a lapsed subscriber.
        try await withTemporaryFolder { folder in
            let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            let catalog = try Catalog.load(contentsOf: root.appendingPathComponent("products.json").path)
            let clock = TestClock(fixtureStart)
            let store = try Store(catalog: catalog, path: folder + "/store.sqlite", now: clock.closure)
            _ = try await buy(store, "barcode_year_subscription")
            try await store.appStore.expireSubscription(groupID: "premium")
            let promo = try transaction(of: try await store.purchase("barcode_year_subscription", offerID: "annual_comeback"))
            #expect(promo.offerType == .promotional && promo.price == decimal("29.99"))
            do {
                try await store.appStore.renewSubscription(groupID: "premium")
                Issue.record("renew now cut the promotional year short")
            } catch let error as StoreError {
                #expect(error.description.contains("\(promo.id)") && error.description.contains("advance the clock"), "\(error.description)")
            }
            let status = try #require(try await store.appStore.subscriptionStatuses().first)
            #expect(status.transaction.id == promo.id, "nothing charged at the full price")
        }
    }
}
