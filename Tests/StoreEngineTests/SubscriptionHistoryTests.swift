import Foundation
import Testing
@testable import StoreEngine

/// A subscription group's history as spans and marks, from the ledger's records.
@Suite("SubscriptionHistory")
struct SubscriptionHistoryTests {
    typealias Span = SubscriptionHistory.Span

    func historyOf(_ store: Store) async throws -> SubscriptionHistory {
        try #require(try await store.appStore.subscriptionHistory(groupID: "premium"))
    }

    @Test("a trial, then a paid plan renewed twice as one span, then the period auto-renewal starts next")
    func trialThenPaid() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            let trial = try await buy(store, "sub.monthly")
            fixture.clock.set(utc(2025, 3, 10))
            let history = try await historyOf(store)
            let renewals = try await store.appStore.transactions().filter { $0.id != trial.id }.map(\.id).sorted()
            #expect(history.spans == [
                Span(kind: .trial, productID: "sub.monthly", start: fixtureStart, end: utc(2025, 2, 7, 12), transactionIDs: [trial.id]),
                Span(kind: .paid, productID: "sub.monthly", start: utc(2025, 2, 7, 12), end: utc(2025, 4, 7, 12), periods: 2,
                     transactionIDs: renewals),
                Span(kind: .next, productID: "sub.monthly", start: utc(2025, 4, 7, 12), end: utc(2025, 5, 7, 12)),
            ])
            #expect(history.marks.isEmpty && history.lanes == ["sub.monthly"] && history.now == utc(2025, 3, 10))
        }
    }

    @Test("a grace period and billing retry past, found from the App Store's records rather than the log's words")
    func graceThenRetryThenRecovery() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            _ = try await buy(store, "sub.monthly")
            _ = try await store.testSession.setSetting("billingIssues", to: "true")
            _ = try await store.testSession.setSetting("gracePeriod", to: "true")
            fixture.clock.set(utc(2025, 2, 10))
            var history = try await historyOf(store)
            // In the grace period now: the span runs to its end.
            #expect(history.spans.map(\.kind) == [.trial, .grace])
            #expect(history.spans.last == Span(kind: .grace, productID: "sub.monthly", start: utc(2025, 2, 7, 12),
                                               end: utc(2025, 2, 23, 12)))
            fixture.clock.set(utc(2025, 3, 1))
            history = try await historyOf(store)
            #expect(history.spans.map(\.kind) == [.trial, .grace, .billingRetry])
            #expect(history.spans.last?.isOpen == true)
            _ = try await store.testSession.setSetting("billingIssues", to: "false")
            history = try await historyOf(store)
            #expect(history.spans.map(\.kind) == [.trial, .grace, .billingRetry, .paid, .next])
            #expect(history.spans[1] == Span(kind: .grace, productID: "sub.monthly", start: utc(2025, 2, 7, 12), end: utc(2025, 2, 23, 12)))
            #expect(history.spans[2] == Span(kind: .billingRetry, productID: "sub.monthly", start: utc(2025, 2, 23, 12),
                                             end: utc(2025, 3, 1)))
            #expect(history.spans[3].start == utc(2025, 3, 1))
        }
    }

    @Test("an upgrade climbs a lane; a downgrade waits as the next span; a refund is a mark where the period stops")
    func changesAndRefund() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            _ = try await buy(store, "sub.monthly")
            fixture.clock.set(utc(2025, 2, 3))
            let yearly = try await buy(store, "sub.yearly")
            _ = try await store.purchase("sub.monthly")  // a downgrade, at the renewal
            var history = try await historyOf(store)
            #expect(history.lanes == ["sub.yearly", "sub.monthly"])
            #expect(history.spans.map(\.kind) == [.trial, .paid, .next])
            #expect(history.spans[0].end == utc(2025, 2, 3) && history.spans[1].change == .upgrade)
            #expect(history.spans[2] == Span(kind: .next, productID: "sub.monthly", start: utc(2026, 2, 3), end: utc(2026, 3, 3),
                                             change: .downgrade))
            fixture.clock.set(utc(2025, 6, 1))
            try await store.appStore.refund(yearly.id)
            history = try await historyOf(store)
            #expect(history.marks == [SubscriptionHistory.Mark(kind: .refunded, productID: "sub.yearly", date: utc(2025, 6, 1))])
            #expect(history.spans.map(\.kind) == [.trial, .paid] && history.spans[1].end == utc(2025, 6, 1))
        }
    }

    @Test("auto-renew off: an expired mark at the period's end")
    func expired() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            _ = try await buy(store, "sub.yearly")
            try await store.appStore.setAutoRenew(groupID: "premium", false)
            fixture.clock.set(utc(2026, 3, 1))
            let history = try await historyOf(store)
            #expect(history.marks == [SubscriptionHistory.Mark(kind: .expired, productID: "sub.yearly", date: utc(2026, 1, 31, 12))])
            #expect(history.spans.map(\.kind) == [.paid])
            #expect(try await store.appStore.subscriptionHistories().map(\.groupID) == ["premium"])
        }
    }
}

/// Inputs checked on the face that takes them, and the purchase's rule order, written once.
@Suite("FaceValidation")
struct FaceValidationTests {
    @Test("extension days are 1–90 and reasons 0–3, on the face, whoever calls it")
    func extensionLimits() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            let yearly = try await buy(store, "sub.yearly")
            for days in [0, 91, -1] {
                await #expect(throws: InputError.invalidExtendByDays(days)) {
                    try await store.appStore.extendSubscription(originalTransactionID: yearly.originalID, days: days)
                }
            }
            await #expect(throws: InputError.invalidExtendReasonCode(4)) {
                try await store.appStore.extendSubscription(originalTransactionID: yearly.originalID, days: 5, reasonCode: 4)
            }
            await #expect(throws: InputError.invalidExtendByDays(120)) {
                try await store.appStore.extendAllSubscribers(productID: "sub.yearly", days: 120, requestIdentifier: "r1")
            }
            await #expect(throws: InputError.invalidRequestIdentifier("")) {
                try await store.appStore.extendAllSubscribers(productID: "sub.yearly", days: 5, requestIdentifier: "")
            }
            let extended = try await store.appStore.extendSubscription(originalTransactionID: yearly.originalID, days: 90)
            #expect(extended?.effectiveDate == utc(2026, 5, 1, 12))
            #expect(InputError.invalidExtendByDays(91).description == "extendByDays must be 1–90 days, not 91")
        }
    }

    @Test("quantities: 1–10 of a consumable, one of anything else")
    func quantities() async throws {
        #expect(FaceValidation.isValidQuantity(10, of: .consumable) && !FaceValidation.isValidQuantity(11, of: .consumable))
        #expect(!FaceValidation.isValidQuantity(0, of: .consumable) && !FaceValidation.isValidQuantity(2, of: .nonConsumable))
        #expect(FaceValidation.isValidQuantity(1, of: .autoRenewable))
        #expect(throws: InputError.invalidTransactionID(0)) { try FaceValidation.checkTransactionID(0) }
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            await #expect(throws: StoreError.invalidQuantity(2)) { try await store.app.purchase("pro", quantity: 2) }
        }
    }

    @Test("the device refuses first (canMakePayments, then offline), before the offer is checked")
    func deviceFirst() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            try await store.testSession.set(.offline, to: true)
            await #expect(throws: StoreError.simulated(.networkError, cause: "offline is true")) {
                try await store.app.purchase("sub.monthly", offerID: "no-such-offer")
            }
            try await store.testSession.set(.canMakePayments, to: false)
            await #expect(throws: StoreError.purchaseNotAllowed) { try await store.app.purchase("sub.monthly") }
        }
    }

    @Test("the sheet's preview and the purchase agree on every combination of conditions")
    func previewAgreesWithPurchase() async throws {
        for mask in 0..<32 {
            try await withStoreFixture { fixture in
                let store = try fixture.open()
                try await store.testSession.set(.canMakePayments, to: mask & 1 == 0)
                try await store.testSession.set(.offline, to: mask & 2 != 0)
                if mask & 4 != 0 { try await store.testSession.set(.purchaseError, to: .systemError) }
                try await store.testSession.set(.askToBuy, to: mask & 8 != 0)
                try await store.testSession.set(.interruptedPurchases, to: mask & 16 != 0)
                // Read as the snapshot reads them (the snapshot itself is refused offline, as loading products is).
                let expected = try await store.purchaseConditions().expected
                let made: PurchaseConditions.Expected
                do {
                    switch try await store.app.purchase("pro") {
                    case .pending(let request): made = request.reason == .askToBuy ? .askToBuy : .interrupted
                    default: made = .succeeds
                    }
                } catch StoreError.purchaseNotAllowed {
                    made = .notAllowed
                } catch StoreError.simulated(let error, _) {
                    made = .fails(error)
                }
                #expect(made == expected, "conditions \(mask)")
            }
        }
    }
}
