import Foundation
import Testing
@testable import StoreEngine

/// The paywall's snapshot reads every subscription's status in one query, unsigned; whether renewals
/// are due is asked of every subscription in one query too.
@Suite("Store snapshot: subscription statuses")
struct SnapshotStatusTests {
    @Test("the snapshot's statuses are subscriptionStatuses' (the newest renewal of each), without the renewal info's signature")
    func sameAsSignedStatuses() async throws {
        try await withLifecycleStore { fixture in
            let store = try fixture.open()
            let monthly = try await buy(store, "pro.monthly")
            let weekly = try await buy(store, "news.weekly")
            fixture.clock.advance(ISODuration(days: 40))  // a month's renewal and five weeks'
            let snapshot = try await store.app.snapshot()
            let signed = try await store.subscriptionStatuses()
            #expect(Set(snapshot.subscriptions.keys) == ["pro", "news"])
            for status in signed {
                let unsigned = try #require(snapshot.subscriptions[status.groupID])
                #expect(unsigned.transaction == status.transaction)
                #expect(unsigned.transaction.reason == .renewal, "the newest period, not the purchase")
                #expect(unsigned.transaction.verification.isVerified)
                #expect(unsigned.state == status.state)
                #expect(unsigned.renewalInfo.jwsRepresentation == nil)
                var info = status.renewalInfo
                let jws = try #require(info.jwsRepresentation, "subscriptionStatuses signs")
                #expect(try await store.verify(jws: jws).payload["originalTransactionId"] == .string(String(info.originalTransactionID)))
                info.jwsRepresentation = nil
                #expect(unsigned.renewalInfo == info)
            }
            #expect(snapshot.subscriptions["pro"]?.transaction.originalID == monthly.id)
            #expect(snapshot.subscriptions["news"]?.transaction.originalID == weekly.id)
            #expect(try await store.renewalInfo().values.allSatisfy { $0.jwsRepresentation != nil }, "the app's renewal info is signed")
        }
    }

    @Test("a subscription's newest row edited in the file shows unverified in the snapshot's status", .fileStoreOnly)
    func editedRowRefused() async throws {
        try await withLifecycleStore { fixture in
            let store = try fixture.open()
            _ = try await buy(store, "pro.monthly")
            _ = try await buy(store, "news.weekly")
            fixture.clock.advance(ISODuration(days: 10))
            let before = try await store.app.snapshot()
            let news = try #require(before.subscriptions["news"]?.transaction)
            #expect(news.verification.isVerified)
            // Another process edits the newest weekly renewal under its seal and mark.
            try SQLiteDatabase(path: fixture.path, create: false).run("UPDATE transactions SET price = '0.01' WHERE id = ?", news.id)
            let after = try await store.app.snapshot()
            #expect(after.subscriptions["news"]?.transaction.verification.isVerified == false)
            #expect(after.subscriptions["pro"]?.transaction.verification.isVerified == true, "the other one stays verified")
        }
    }

    @Test("renewals are due when any one subscription's period has ended, and no longer once it renewed")
    func dueWhenAnyIs() async throws {
        try await withLifecycleStore { fixture in
            let store = try fixture.open()
            _ = try await buy(store, "pro.yearly")
            _ = try await buy(store, "news.weekly")
            #expect(try await store.renewalsDue() == false)
            fixture.clock.advance(ISODuration(days: 8))  // the week has ended, the year has not
            #expect(try await store.renewalsDue() == true)
            #expect(try await store.processRenewals() == 1)
            #expect(try await store.renewalsDue() == false)
            // Auto-renew off: an ended period is due once, as an expiry, then never again.
            try await store.setAutoRenew(groupID: "news", false)
            fixture.clock.advance(ISODuration(days: 8))
            #expect(try await store.renewalsDue() == true)
            #expect(try await store.processRenewals() == 0)
            #expect(try await store.renewalsDue() == false)
        }
    }
}
