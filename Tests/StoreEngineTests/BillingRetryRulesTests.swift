import Foundation
import Testing
@testable import StoreEngine

/// The notifications of one subscription, oldest first, as `TYPE` or `TYPE SUBTYPE`.
func notificationNames(_ store: Store, since date: Date? = nil) async throws -> [String] {
    try await store.appStore.notifications(NotificationFilter(startDate: date)).map { note in
        note.subtype.map { "\(note.type) \($0)" } ?? note.type
    }
}

/// The decoded `signedRenewalInfo` of the newest notification of `type`.
func renewalInfoOfNewest(_ store: Store, _ type: String, sourceLocation: SourceLocation = #_sourceLocation) async throws -> JSON {
    let note = try #require(try await store.appStore.notifications(NotificationFilter(type: type)).last, sourceLocation: sourceLocation)
    let payload = try await store.app.verify(jws: note.signedPayload).payload
    guard case .string(let jws)? = payload["data"]?["signedRenewalInfo"] else {
        Issue.record("\(type) carries no signedRenewalInfo", sourceLocation: sourceLocation)
        throw TestFailure.unexpectedResult
    }
    return try await store.app.verify(jws: jws).payload
}

@Suite("Subscriptions: billing retry ends as Apple ends it")
struct BillingRetryRulesTests {
    @Test("auto-renew turned off during billing retry stops the retry: EXPIRED VOLUNTARY, and billing recovering charges nothing")
    func cancelInBillingRetry() async throws {
        try await withLifecycleStore { fixture in
            let store = try fixture.open()
            let bought = try await buy(store, "pro.monthly")
            try await store.setSetting("billingIssues", to: "true")
            fixture.clock.set(utc(2025, 2, 20))
            #expect(try await status(store, "pro").state == .inBillingRetryPeriod)
            let since = fixture.clock.now
            try await store.appStore.setAutoRenew(groupID: "pro", false)
            #expect(try await notificationNames(store, since: since) == ["DID_CHANGE_RENEWAL_STATUS AUTO_RENEW_DISABLED", "EXPIRED VOLUNTARY"])
            let expired = try await status(store, "pro")
            #expect(expired.state == .expired)
            #expect(expired.renewalInfo.expirationReason == .autoRenewDisabled)
            #expect(expired.renewalInfo.isInBillingRetry == false)
            #expect(expired.renewalInfo.willAutoRenew == false)
            // The card works again: Apple retries no more, so nothing renews and nothing is charged.
            fixture.clock.set(utc(2025, 2, 25))
            try await store.setSetting("billingIssues", to: "false")
            #expect(try await store.transactions().map(\.id) == [bought.id])
            #expect(try await !notificationNames(store).contains("DID_RENEW BILLING_RECOVERY"))
            #expect(try await status(store, "pro").state == .expired)
        }
    }

    @Test("auto-renew turned off during the grace period ends it too: no longer entitled, nothing charged later")
    func cancelInGracePeriod() async throws {
        try await withLifecycleStore { fixture in
            let store = try fixture.open()
            _ = try await buy(store, "pro.monthly")
            try await store.setSetting("billingIssues", to: "true")
            try await store.setSetting("gracePeriod", to: "true")
            fixture.clock.set(utc(2025, 2, 20))
            #expect(try await status(store, "pro").state == .inGracePeriod)
            try await store.appStore.setAutoRenew(groupID: "pro", false)
            let expired = try await status(store, "pro")
            #expect(expired.state == .expired)
            #expect(expired.renewalInfo.gracePeriodExpirationDate == nil)
            #expect(try await !store.isEntitled(to: "pro.monthly"))
            try await store.setSetting("billingIssues", to: "false")
            #expect(try await store.transactions().count == 1)
        }
    }

    @Test("after the 60 days of retry: expired (billingError, expirationIntent 2), not renewing, not in retry, win-back eligible")
    func involuntaryChurn() async throws {
        let catalogText = lifecycleCatalogText.replacingOccurrences(of: """
            { "id": "pro.quarterly",
            """, with: """
            { "id": "pro.quarterly", "offers": [ { "type": "winBack", "id": "back", "paymentMode": "payUpFront", "period": "P1M", "price": "0.99" } ],
            """)
        try await withTemporaryFolder { folder in
            let catalog = try Catalog.parse(Array(catalogText.utf8), file: "winback.json")
            let fixture = StoreFixture(folder: folder, path: folder + "/store.sqlite", catalog: catalog, clock: TestClock(lifecycleStart))
            let store = try fixture.open()
            _ = try await buy(store, "pro.quarterly")
            try await store.setSetting("billingIssues", to: "true")
            fixture.clock.set(utc(2025, 4, 16))  // the quarter ended April 15
            #expect(try await status(store, "pro").state == .inBillingRetryPeriod)
            fixture.clock.set(utc(2025, 6, 15))  // 60 days of retry are over
            let churned = try await status(store, "pro")
            #expect(churned.state == .expired)
            #expect(churned.renewalInfo.expirationReason == .billingError)
            #expect(churned.renewalInfo.isInBillingRetry == false)
            #expect(churned.renewalInfo.willAutoRenew == false, "expired and not renewing, one consistent state")
            #expect(churned.renewalInfo.eligibleWinBackOfferIDs == ["back"])
            let payload = try await renewalPayload(store, churned)
            #expect(payload["autoRenewStatus"] == .integer(0))
            #expect(payload["expirationIntent"] == .integer(2))
            #expect(payload["isInBillingRetryPeriod"] == .bool(false))
            // The EXPIRED BILLING_RETRY notification's renewal info says the same.
            let notified = try await renewalInfoOfNewest(store, "EXPIRED")
            #expect(notified["autoRenewStatus"] == .integer(0))
            #expect(notified["expirationIntent"] == .integer(2))
        }
    }

    @Test("gracePeriodExpirationDate is set during the grace period only: not after it ended, in billing retry or expired")
    func graceDateOnlyInGrace() async throws {
        try await withLifecycleStore { fixture in
            let store = try fixture.open()
            _ = try await buy(store, "pro.monthly")
            try await store.setSetting("billingIssues", to: "true")
            try await store.setSetting("gracePeriod", to: "true")
            fixture.clock.set(utc(2025, 2, 20))
            #expect(try await status(store, "pro").renewalInfo.gracePeriodExpirationDate == utc(2025, 3, 3, 12))
            fixture.clock.set(utc(2025, 3, 5))
            let retrying = try await status(store, "pro")
            #expect(retrying.state == .inBillingRetryPeriod)
            #expect(retrying.renewalInfo.gracePeriodExpirationDate == nil)
            #expect(try await renewalPayload(store, retrying)["gracePeriodExpiresDate"] == nil)
            #expect(try await renewalInfoOfNewest(store, "GRACE_PERIOD_EXPIRED")["gracePeriodExpiresDate"] == nil)
            #expect(try await renewalInfoOfNewest(store, "DID_FAIL_TO_RENEW")["gracePeriodExpiresDate"]
                    == .integer(utc(2025, 3, 3, 12).milliseconds), "while it ran, the grace period's end")
            fixture.clock.set(utc(2025, 5, 1))
            #expect(try await status(store, "pro").renewalInfo.gracePeriodExpirationDate == nil)
        }
    }
}
