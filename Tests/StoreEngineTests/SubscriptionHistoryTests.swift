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
