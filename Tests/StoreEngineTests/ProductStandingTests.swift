import Foundation
import Testing
@testable import StoreEngine

/// The standing of a product in a snapshot: decided by the engine, and the words both front ends print.
@Suite("ProductStanding")
struct ProductStandingTests {
    /// The standing and the status words of `productID` in a new snapshot.
    func standing(_ store: Store, _ productID: String) async throws -> (ProductStanding, String) {
        let snapshot = try await store.app.snapshot()
        let product = try #require(snapshot.products.first { $0.id == productID })
        let standing = snapshot.standing(of: product)
        return (standing, standing.text(for: product))
    }

    @Test("a free trial: owned, a trial until its end, then the regular price")
    func trial() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            _ = try await store.app.buy("sub.monthly")
            let (monthly, text) = try await standing(store, "sub.monthly")
            #expect(monthly.ownership == .owned)
            #expect(monthly.subscription == ProductStanding.Subscription(
                state: .subscribed, expirationDate: utc(2025, 2, 7, 12), isFreeTrial: true, willAutoRenew: true,
                gracePeriodExpirationDate: nil))
            #expect(monthly.introductoryOffer == nil && monthly.scheduledChange == nil)
            #expect(text == "Free trial until Feb 7, 2025, then $4.99/month")
            let (yearly, yearlyText) = try await standing(store, "sub.yearly")
            #expect(yearly.ownership == .none && yearly.subscription == nil && yearlyText == "")
        }
    }

    @Test("the intro offer is the account's to take only while payments are allowed; no price shows without them")
    func noPayments() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            var (monthly, text) = try await standing(store, "sub.monthly")
            #expect(monthly.introductoryOffer?.paymentMode == .freeTrial && monthly.displayPrice == "$4.99")
            #expect(text == "1 week free, then $4.99/month")
            try await store.testSession.set(.canMakePayments, to: false)
            (monthly, text) = try await standing(store, "sub.monthly")
            #expect(monthly.introductoryOffer == nil && monthly.displayPrice == nil)
            #expect(text == "")
        }
    }

    /// The engine's words carry a refund request made from the app, so `products` says what the
    /// paywall says ("Owned" alone in the CLI before).
    @Test("a refund requested from the app: Owned · Refund requested, then Refund declined, in the engine's text")
    func refundRequestMark() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            let bought = try #require(try await store.app.buy("pro").outcome.transaction)
            _ = try await store.app.beginRefundRequest(transactionID: bought.id)
            #expect(try await standing(store, "pro").1 == "Owned · Refund requested")
            _ = try await store.appStore.declineRefundRequest(bought.id)
            #expect(try await standing(store, "pro").1 == "Owned · Refund declined")
        }
    }

    @Test("after reset app the subscription shows at once, as currentEntitlements has it; the purchase is not on this device")
    func resetApp() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            let yearly = try await store.app.buy("sub.yearly").outcome.transaction
            _ = try await store.app.buy("pro")
            _ = try await store.app.buy("pass")
            try await store.testSession.reset(.app)
            let (subscription, text) = try await standing(store, "sub.yearly")
            #expect(subscription.ownership == .owned && subscription.transaction?.id == yearly?.id)
            #expect(text == "Renews Jan 31, 2026", "no Restore needed for a StoreKit 2 app")
            let (pro, proText) = try await standing(store, "pro")
            #expect(pro.ownership == .notOnThisDevice && proText == "Purchased, not on this device")
            // A non-renewing subscription says the same, not nothing (its row was blank).
            let (pass, passText) = try await standing(store, "pass")
            #expect(pass.ownership == .notOnThisDevice && passText == "Purchased, not on this device")
            // Restored: owned again, and the words say what it does.
            _ = try await store.app.sync()
            #expect(try await standing(store, "sub.yearly").1 == "Renews Jan 31, 2026")
            #expect(try await standing(store, "pro").1 == "Owned")
        }
    }

    @Test("a downgrade scheduled: the current plan says until when, the next one when it starts")
    func downgradeScheduled() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            _ = try await store.app.buy("sub.yearly")
            _ = try await store.app.buy("sub.monthly")
            let (yearly, text) = try await standing(store, "sub.yearly")
            #expect(yearly.scheduledChange == ProductStanding.ScheduledChange(kind: .downgrade, toProductID: "sub.monthly",
                                                                              date: utc(2026, 1, 31, 12)))
            #expect(text == "Until Jan 31, 2026, then changes")
            let (monthly, monthlyText) = try await standing(store, "sub.monthly")
            #expect(monthly.startsOn == utc(2026, 1, 31, 12) && monthlyText == "Starts Jan 31, 2026")
        }
    }

    /// Found by the parity walk (issue 40): `status` printed "next: sub.monthly" for a refunded or
    /// cancelled subscription, whose row says nothing changes; both read `nextProductID` now.
    @Test("a downgrade waiting on a subscription that will not renew (auto-renew off, refunded) is no next plan")
    func noNextPlanWithoutRenewal() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            let yearly = try #require(try await store.app.buy("sub.yearly").outcome.transaction)
            _ = try await store.app.buy("sub.monthly")
            #expect(try await store.app.subscriptionStatuses().first?.nextProductID == "sub.monthly")
            try await store.appStore.setAutoRenew(groupID: "premium", false)
            var status = try #require(try await store.app.subscriptionStatuses().first)
            #expect(status.renewalInfo.autoRenewPreference == "sub.monthly" && status.nextProductID == nil)
            #expect(try await standing(store, "sub.yearly").1 == "Expires Jan 31, 2026")
            try await store.appStore.setAutoRenew(groupID: "premium", true)
            _ = try await store.appStore.refund(yearly.id)
            status = try #require(try await store.app.subscriptionStatuses().first)
            #expect(status.state == .revoked && status.renewalInfo.autoRenewPreference == "sub.monthly")
            #expect(status.nextProductID == nil)
            #expect(try await standing(store, "sub.monthly").0.startsOn == nil)
        }
    }

    /// Issue 40: `status` said "price increase pending, renews at 5.99", the paywall's row nothing.
    @Test("a price increase waiting for consent is on the current plan's row, in status's words")
    func priceIncreasePending() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            _ = try await store.app.buy("sub.yearly")
            _ = try await store.appStore.changePrice("sub.yearly", to: Decimal(string: "49.99")!, requireConsent: true)
            let status = try #require(try await store.app.subscriptionStatuses().first)
            #expect(status.priceIncreaseText == "price increase pending, renews at $49.99")
            #expect(try await standing(store, "sub.yearly").1 == "Renews Jan 31, 2026 · price increase pending, renews at $49.99")
        }
    }

    @Test("auto-renew off is a cancellation scheduled for the period's end")
    func cancelScheduled() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            _ = try await store.app.buy("sub.yearly")
            try await store.appStore.setAutoRenew(groupID: "premium", false)
            let (yearly, text) = try await standing(store, "sub.yearly")
            #expect(yearly.scheduledChange == ProductStanding.ScheduledChange(kind: .cancel, toProductID: nil,
                                                                              date: utc(2026, 1, 31, 12)))
            #expect(text == "Expires Jan 31, 2026")
        }
    }

    @Test("a failed renewal: grace period until its end, then billing retry")
    func graceAndBillingRetry() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            _ = try await store.app.buy("sub.yearly")
            _ = try await store.testSession.setSetting("billingIssues", to: "true")
            _ = try await store.testSession.setSetting("gracePeriod", to: "true")
            fixture.clock.set(utc(2026, 2, 5))
            let (grace, text) = try await standing(store, "sub.yearly")
            #expect(grace.subscription?.state == .inGracePeriod)
            #expect(grace.subscription?.gracePeriodExpirationDate == utc(2026, 2, 16, 12))
            #expect(text == "Grace period until Feb 16, 2026")
            fixture.clock.set(utc(2026, 2, 20))
            let (retry, retryText) = try await standing(store, "sub.yearly")
            #expect(retry.subscription?.state == .inBillingRetryPeriod && retryText == "Billing retry")
        }
    }

    @Test("a refunded subscription says Refunded")
    func refunded() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            let yearly = try #require(try await store.app.buy("sub.yearly").outcome.transaction)
            try await store.appStore.refund(yearly.id)
            let (standing, text) = try await standing(store, "sub.yearly")
            #expect(standing.subscription?.state == .revoked && text == "Refunded")
        }
    }

    @Test("a purchase the family shares is shared by family, not owned")
    func familyShare() async throws {
        try await withFamilyFixture { fixture in
            let alice = try fixture.open(account: "alice"), bob = try fixture.open(account: "bob")
            try await alice.testSession.createFamily("smiths")
            try await alice.testSession.addFamilyMember("bob", to: "smiths")
            _ = try await alice.app.buy("pro")
            let (shared, text) = try await standing(bob, "pro")
            #expect(shared.ownership == .familyShared && shared.transaction?.ownershipType == .familyShared)
            #expect(text == "Shared by family")
            #expect(try await standing(alice, "pro").1 == "Owned")
        }
    }

    @Test("a request waiting for a parent, a consumable's balance, a transaction left unfinished")
    func pendingBalanceUnfinished() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            _ = try await store.app.buy("coins", quantity: 3)
            var (coins, text) = try await standing(store, "coins")
            #expect(coins.balance == 3 && text == "Balance: 3")
            try await store.testSession.set(.askToBuy, to: true)
            _ = try await store.app.buy("pro")
            let (pro, proText) = try await standing(store, "pro")
            #expect(pro.pending?.reason == .askToBuy && pro.ownership == .none)
            #expect(proText == "Pending approval")
            try await store.testSession.set(.askToBuy, to: false)
            try await store.testSession.set(.finishTransactions, to: false)
            _ = try await store.app.buy("coins")
            (coins, text) = try await standing(store, "coins")
            #expect(coins.isUnfinished && text == "Balance: 3 · Unfinished")
            let snapshot = try await store.app.snapshot()
            let product = try #require(snapshot.products.first { $0.id == "coins" })
            #expect(snapshot.standing(of: product).text(for: product, dot: "-") == "Balance: 3 - Unfinished")
        }
    }

    /// Tester's day, finding 9: "Purchased, not on this device · Unfinished" for what was just bought on
    /// this device (docs/qa-recipes.md: "the row says `Unfinished`"), cut to "not on this device" at 100 columns.
    @Test("a non-consumable bought here and left unfinished says Unfinished, not \"not on this device\"")
    func unfinishedIsNotElsewhere() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            try await store.testSession.set(.finishTransactions, to: false)
            _ = try await store.app.buy("pro")
            let (pro, text) = try await standing(store, "pro")
            #expect(pro.isUnfinished && text == "Unfinished")
        }
    }
}
