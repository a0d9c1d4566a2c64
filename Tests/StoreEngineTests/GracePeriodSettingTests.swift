import Foundation
import Testing
@testable import StoreEngine

@Suite("Settings: the Billing Grace Period as App Store Connect configures it")
struct GracePeriodSettingTests {
    @Test("gracePeriodDuration takes App Store Connect's 3, 16 or 28 days (or their names) and nothing else")
    func durations() async throws {
        try await withLifecycleStore { fixture in
            let store = try fixture.open()
            #expect(try await store.testSession.value(.gracePeriodDuration) == 16)
            #expect(try await store.testSession.setSetting("gracePeriodDuration", to: "TWENTY_EIGHT_DAYS") == "28")
            #expect(try await store.testSession.setSetting("gracePeriodDuration", to: "3") == "3")
            for refused in ["6", "0", "-3", "30", "99999999999999999999", "SIX_DAYS", ""] {
                await #expect(throws: SettingError.self, "\(refused)") {
                    try await store.testSession.setSetting("gracePeriodDuration", to: refused)
                }
            }
            #expect(try await store.testSession.value(.gracePeriodDuration) == 3)
            #expect(try await store.testSession.setSetting("gracePeriodRenewalType", to: "paid_to_paid_only") == "PAID_TO_PAID_ONLY")
            await #expect(throws: SettingError.self) { try await store.testSession.setSetting("gracePeriodRenewalType", to: "some") }
        }
    }

    @Test("a 28-day grace period: a monthly plan keeps access for 28 days; a weekly one for at most 6")
    func twentyEightDays() async throws {
        try await withLifecycleStore { fixture in
            let store = try fixture.open()
            _ = try await buy(store, "pro.monthly")
            _ = try await buy(store, "news.weekly")
            try await store.setSetting("billingIssues", to: "true")
            try await store.setSetting("gracePeriod", to: "true")
            try await store.testSession.set(.gracePeriodDuration, to: 28)
            fixture.clock.set(utc(2025, 1, 23))
            #expect(try await status(store, "news").renewalInfo.gracePeriodExpirationDate == utc(2025, 1, 28, 12))
            fixture.clock.set(utc(2025, 3, 1))
            let grace = try await status(store, "pro")
            #expect(grace.state == .inGracePeriod)
            #expect(grace.renewalInfo.gracePeriodExpirationDate == utc(2025, 3, 15, 12), "February 15 + 28 days")
            #expect(try await store.isEntitled(to: "pro.monthly"))
        }
    }

    @Test("a 3-day grace period ends after 3 days, then billing retry")
    func threeDays() async throws {
        try await withLifecycleStore { fixture in
            let store = try fixture.open()
            _ = try await buy(store, "pro.monthly")
            try await store.setSetting("billingIssues", to: "true")
            try await store.setSetting("gracePeriod", to: "true")
            try await store.testSession.set(.gracePeriodDuration, to: 3)
            fixture.clock.set(utc(2025, 2, 17))
            #expect(try await status(store, "pro").renewalInfo.gracePeriodExpirationDate == utc(2025, 2, 18, 12))
            fixture.clock.set(utc(2025, 2, 18, 12))
            #expect(try await status(store, "pro").state == .inBillingRetryPeriod)
        }
    }

    @Test("PAID_TO_PAID_ONLY: a free trial that fails to turn paid goes straight to billing retry; a paid period gets the grace period")
    func paidToPaidOnly() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            let trial = try await buy(store, "sub.monthly")  // a one-week free trial
            #expect(trial.price == 0)
            try await store.setSetting("billingIssues", to: "true")
            try await store.setSetting("gracePeriod", to: "true")
            try await store.testSession.set(.gracePeriodRenewalType, to: .paidToPaidOnly)
            fixture.clock.set(ISODuration(days: 1).after(try #require(trial.expirationDate)))
            let retrying = try await status(store, "premium")
            #expect(retrying.state == .inBillingRetryPeriod)
            #expect(retrying.renewalInfo.gracePeriodExpirationDate == nil)
            #expect(try await notificationNames(store).last == "DID_FAIL_TO_RENEW", "no GRACE_PERIOD subtype")

            // ALL_RENEWALS (the default) gives the trial's end the grace period.
            let other = try fixture.open(account: "other@local")
            try await store.testSession.set(.gracePeriodRenewalType, to: .allRenewals)
            let second = try await buy(other, "sub.monthly")
            fixture.clock.set(ISODuration(days: 1).after(try #require(second.expirationDate)))
            #expect(try await status(other, "premium").state == .inGracePeriod)
        }
    }

    /// What `transactions` asks for its rows' "grace period": each group's status where it is in
    /// billing retry, as the full statuses say it, unsigned; a group subscribed is left out.
    @Test("billing retry statuses: the groups in billing retry only, as subscriptionStatuses says them, unsigned")
    func billingRetryStatuses() async throws {
        try await withLifecycleStore { fixture in
            let store = try fixture.open()
            _ = try await buy(store, "pro.monthly")
            try await store.setSetting("billingIssues", to: "true")
            try await store.setSetting("gracePeriod", to: "true")
            try await store.testSession.set(.gracePeriodDuration, to: 16)
            fixture.clock.set(utc(2025, 2, 20))
            _ = try await buy(store, "news.weekly")
            let all = try await store.subscriptionStatuses()
            #expect(all.map(\.state) == [.subscribed, .inGracePeriod], "news, then pro: \(all.map(\.groupID))")
            let retrying = try await store.billingRetryStatuses()
            #expect(retrying.map(\.groupID) == ["pro"])
            let full = try #require(all.first { $0.groupID == "pro" })
            var unsigned = full
            unsigned.renewalInfo.jwsRepresentation = nil
            #expect(full.renewalInfo.jwsRepresentation != nil)
            #expect(retrying.first == unsigned)
        }
    }
}
