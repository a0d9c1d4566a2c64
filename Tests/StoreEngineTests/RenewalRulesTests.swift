import Foundation
import Testing
@testable import StoreEngine

/// A monthly plan with a three-month pay-as-you-go introductory offer and a
/// two-month pay-as-you-go promotional offer.
let offersCatalogText = """
    {
      "storefront": "USA",
      "subscriptionGroups": [
        { "id": "plus", "displayName": "Plus",
          "subscriptions": [
            { "id": "plus.monthly", "displayName": "Plus Monthly", "price": "9.99", "period": "P1M", "level": 1,
              "introductoryOffer": { "paymentMode": "payAsYouGo", "period": "P1M", "periodCount": 3, "price": "1.99" },
              "offers": [
                { "type": "promotional", "id": "loyal", "paymentMode": "payAsYouGo", "period": "P1M",
                  "periodCount": 2, "price": "4.99" }
              ] }
          ] }
      ],
      "products": []
    }
    """

/// Runs `body` with a store of ``offersCatalogText`` whose clock starts on November 30, 2025.
func withOffersStore<T>(_ body: (StoreFixture) async throws -> T) async throws -> T {
    try await withStoreFixture(catalogText: offersCatalogText, file: "offers.json", at: utc(2025, 11, 30, 12), body)
}

@Suite("StoreKit's rules: renewal info and renewal dates")
struct RenewalRulesTests {
    @Test("renewalDate is the newest period's end once expired, in billing retry and revoked")
    func renewalDateInEveryState() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            let yearly = try await buy(store, "sub.yearly")
            let end = try #require(yearly.expirationDate)

            try await store.testSession.set(.billingIssues, to: true)
            fixture.clock.set(end.addingTimeInterval(86_400))
            var status = try #require(try await store.app.subscriptionStatuses().first)
            #expect(status.state == .inBillingRetryPeriod)
            #expect(status.renewalInfo.renewalDate == end)

            fixture.clock.set(ISODuration(days: 61).after(end))
            status = try #require(try await store.app.subscriptionStatuses().first)
            #expect(status.state == .expired)
            #expect(status.renewalInfo.renewalDate == end)
            let (_, payload) = try await store.app.verify(jws: try #require(status.renewalInfo.jwsRepresentation))
            #expect(payload["renewalDate"] == .integer(end.milliseconds))

            let other = try fixture.open(account: "other@local")
            let monthly = try await buy(other, "sub.monthly")
            try await other.appStore.refund(monthly.id)
            status = try #require(try await other.app.subscriptionStatuses().first)
            #expect(status.state == .revoked)
            #expect(status.renewalInfo.renewalDate == monthly.expirationDate)
        }
    }

    @Test("recentSubscriptionStartDate ignores upgrades and lapses of 60 days or less")
    func recentSubscriptionStart() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            _ = try await buy(store, "sub.monthly")
            fixture.clock.advance(by: 3 * 86_400)
            _ = try await buy(store, "sub.yearly")  // an upgrade, at once
            func start() async throws -> Date? {
                try await store.app.subscriptionStatuses().first?.renewalInfo.recentSubscriptionStartDate
            }
            #expect(try await start() == fixtureStart)

            // A lapse of 60 days, then back: the same run of service.
            try await store.appStore.expireSubscription(groupID: "premium")
            fixture.clock.advance(by: 60 * 86_400)
            _ = try await buy(store, "sub.yearly")
            #expect(try await start() == fixtureStart)

            // A lapse of more than 60 days starts a new one.
            try await store.appStore.expireSubscription(groupID: "premium")
            fixture.clock.advance(by: 61 * 86_400)
            let back = try await buy(store, "sub.yearly")
            #expect(try await start() == back.purchaseDate)
        }
    }

    /// Apple's recentSubscriptionStartDate: a gap "of more than 60 days in the production environment, or
    /// 10 minutes in the sandbox environment". The store used 60 days in every environment.
    @Test("in the Sandbox environment a lapse of more than 10 minutes starts a new run of service")
    func recentSubscriptionStartInSandbox() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            try await store.setSetting("environment", to: "Sandbox")
            _ = try await buy(store, "sub.monthly")
            func start() async throws -> Date? {
                try await store.app.subscriptionStatuses().first?.renewalInfo.recentSubscriptionStartDate
            }
            try await store.appStore.expireSubscription(groupID: "premium")
            fixture.clock.advance(by: 10 * 60)
            _ = try await buy(store, "sub.monthly")
            #expect(try await start() == fixtureStart, "10 minutes: the same run")
            try await store.appStore.expireSubscription(groupID: "premium")
            fixture.clock.advance(by: 11 * 60)
            let back = try await buy(store, "sub.monthly")
            #expect(try await start() == back.purchaseDate)
        }
    }

    @Test("renewalPrice and offerType show a pay-as-you-go offer that is still running")
    func runningOfferInRenewalInfo() async throws {
        try await withOffersStore { fixture in
            let store = try fixture.open()
            let first = try await buy(store, "plus.monthly")
            #expect(first.offerType == .introductory && first.price == decimal("1.99"))
            var info = try #require(try await store.app.renewalInfo()["plus"])
            #expect(info.offerType == .introductory)
            #expect(info.offerPaymentMode == .payAsYouGo)
            #expect(info.renewalPrice == decimal("1.99"))
            let (_, payload) = try await store.app.verify(jws: try #require(info.jwsRepresentation))
            #expect(payload["offerType"] == .integer(1))
            #expect(payload["offerDiscountType"] == .string("PAY_AS_YOU_GO"))
            #expect(payload["renewalPrice"] == .integer(1990))

            // In the offer's third and last period: the next renewal is at the regular price.
            fixture.clock.set(utc(2026, 2, 1))
            info = try #require(try await store.app.renewalInfo()["plus"])
            #expect(info.offerType == nil)
            #expect(info.renewalPrice == decimal("9.99"))
        }
    }

    @Test("renewals keep the day of the month after an offer ends in February")
    func dayOfMonthAfterOffer() async throws {
        try await withOffersStore { fixture in
            let store = try fixture.open()
            _ = try await buy(store, "plus.monthly")  // November 30, three months at 1.99
            fixture.clock.set(utc(2026, 5, 15))
            let periods = try await store.app.transactions().reversed()
            #expect(periods.map(\.expirationDate) == [
                utc(2025, 12, 30, 12), utc(2026, 1, 30, 12), utc(2026, 2, 28, 12),
                utc(2026, 3, 30, 12), utc(2026, 4, 30, 12), utc(2026, 5, 30, 12),
            ])
            #expect(periods.map(\.price) == ["1.99", "1.99", "1.99", "9.99", "9.99", "9.99"].map(decimal))
        }
    }

    @Test("a promotional offer bought while subscribed to the same product applies at the next renewal")
    func promotionalOfferAtNextRenewal() async throws {
        try await withOffersStore { fixture in
            let store = try fixture.open()
            _ = try await buy(store, "plus.monthly")
            fixture.clock.set(utc(2026, 3, 5))  // past the intro offer: the March 30 period runs at 9.99
            let before = try await store.appStore.transactions().count

            let outcome = try await store.app.purchase("plus.monthly", offerID: "loyal",
                                                       offerSignature: try await signedOffer(store, "plus.monthly", "loyal"))
            guard case .changeScheduled(let change) = outcome else {
                Issue.record("expected the offer scheduled for the renewal, got \(outcome.name)")
                return
            }
            #expect(change.kind == .promotionalOffer)
            #expect(change.offerID == "loyal")
            #expect(change.effectiveDate == utc(2026, 3, 30, 12))
            #expect(try await store.appStore.transactions().count == before, "nothing charged now")
            var info = try #require(try await store.app.renewalInfo()["plus"])
            #expect(info.offerType == .promotional && info.offerID == "loyal")
            #expect(info.renewalPrice == decimal("4.99"))

            // Two periods at the offer's price, then the regular price again.
            fixture.clock.set(utc(2026, 6, 15))
            let renewals = try await store.app.transactions().reversed().filter { $0.purchaseDate >= utc(2026, 3, 30) }
            #expect(renewals.map(\.price) == ["4.99", "4.99", "9.99"].map(decimal))
            #expect(renewals.map(\.offerID) == ["loyal", "loyal", nil])
            #expect(renewals.first?.offerType == .promotional)
            info = try #require(try await store.app.renewalInfo()["plus"])
            #expect(info.offerType == nil && info.renewalPrice == decimal("9.99"))
        }
    }

    /// Issue 40: the offer was in `status --json` (offerType, renewalPrice) but not in `status` or on
    /// the paywall's row, which promised the regular price. The engine words it once for both.
    @Test("a promotional offer waiting for the next renewal: the status and the row say it, until auto-renew goes off")
    func promotionalOfferAtNextRenewalInWords() async throws {
        try await withOffersStore { fixture in
            let store = try fixture.open()
            _ = try await buy(store, "plus.monthly")
            fixture.clock.set(utc(2026, 3, 5))
            _ = try await store.app.purchase("plus.monthly", offerID: "loyal",
                                             offerSignature: try await signedOffer(store, "plus.monthly", "loyal"))
            let words = "next renewal: promotional offer loyal at $4.99"
            #expect(try await store.app.subscriptionStatuses().first?.renewalOfferText == words)
            var snapshot = try await store.app.snapshot()
            let product = try #require(snapshot.products.first { $0.id == "plus.monthly" })
            #expect(snapshot.standing(of: product).text(for: product) == "Renews Mar 30, 2026 · \(words)")
            try await store.appStore.setAutoRenew(groupID: "plus", false)
            #expect(try await store.app.subscriptionStatuses().first?.renewalOfferText == nil)
            snapshot = try await store.app.snapshot()
            #expect(snapshot.standing(of: product).text(for: product) == "Expires Mar 30, 2026")
        }
    }
}
