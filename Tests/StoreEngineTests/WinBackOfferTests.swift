import Foundation
import Testing
@testable import StoreEngine

/// Win-back offers: Apple's eligibility (a lapsed subscriber, paid long enough, within the time
/// since the lapse, not too soon after the last win-back offer), and buying with one.
@Suite("win-back offers")
struct WinBackOfferTests {
    /// Subscribes monthly on March 1 and lets it lapse after `paidMonths` paid periods.
    func lapsedSubscriber(_ fixture: StoreFixture, paidMonths: Int) async throws -> Store {
        let store = try fixture.open()
        _ = try await buy(store, "club.monthly")
        fixture.clock.set(ISODuration(months: paidMonths - 1).after(utc(2025, 3, 1)).addingTimeInterval(86_400))
        try await store.setAutoRenew(groupID: "club", false)
        fixture.clock.set(ISODuration(months: paidMonths).after(utc(2025, 3, 1)).addingTimeInterval(3_600))
        #expect(try await store.subscriptionStatuses().first?.state == .expired)
        return store
    }

    func winBackError(_ store: Store, _ productID: String, _ offerID: String) async -> SimulatedError? {
        await purchaseError { _ = try await store.purchase(productID, winBackOfferID: offerID) }
    }

    @Test("nobody who never subscribed, or is subscribed now, is eligible")
    func notLapsed() async throws {
        try await withPricingStore { fixture in
            let store = try fixture.open()
            #expect(try await store.app.eligibleWinBackOfferIDs(groupID: "club").isEmpty)
            #expect(await winBackError(store, "club.monthly", "back3") == .ineligibleForOffer)
            _ = try await buy(store, "club.monthly")
            fixture.clock.set(utc(2025, 8, 1))
            #expect(try await store.app.eligibleWinBackOfferIDs(groupID: "club.monthly").isEmpty, "still renewing")
            #expect(await winBackError(store, "club.monthly", "back3") == .ineligibleForOffer)
            #expect(await winBackError(store, "club.monthly", "nope") == .invalidOfferIdentifier)
        }
    }

    @Test("lapsed: eligible once a month has passed, for the offers whose paid duration it meets; bought, it records winBack")
    func redeem() async throws {
        try await withPricingStore { fixture in
            let store = try await lapsedSubscriber(fixture, paidMonths: 3)  // lapsed June 1
            fixture.clock.set(utc(2025, 6, 15))
            #expect(try await store.app.eligibleWinBackOfferIDs(groupID: "club").isEmpty, "a month must pass")
            fixture.clock.set(utc(2025, 7, 2))
            #expect(try await store.app.eligibleWinBackOfferIDs(groupID: "club") == ["back3"], "free1 needs 6 paid months")
            let status = try #require(try await store.subscriptionStatuses().first)
            #expect(status.renewalInfo.eligibleWinBackOfferIDs == ["back3"])
            #expect(try await renewalPayload(store)["eligibleWinBackOfferIds"] == .array([.string("back3")]))
            #expect(await winBackError(store, "club.monthly", "free1") == .ineligibleForOffer)
            #expect(await winBackError(store, "club.yearly", "yearly.back") == .ineligibleForOffer, "not the plan it lapsed from")

            let bought = try transaction(of: try await store.purchase("club.monthly", winBackOfferID: "back3"))
            #expect(bought.offerType == .winBack && bought.offerID == "back3" && bought.price == decimal("1.99"))
            let payload = try await store.app.verify(jws: try #require(bought.jwsRepresentation)).payload
            #expect(payload["offerType"] == .integer(4) && payload["offerIdentifier"] == .string("back3"))
            #expect(payload["offerDiscountType"] == .string("PAY_AS_YOU_GO") && payload["offerPeriod"] == .string("P3M"))
            #expect(try await notificationTypes(store).last == "OFFER_REDEEMED RESUBSCRIBE")
            fixture.clock.set(utc(2025, 10, 3))
            _ = try await store.processRenewals()
            let prices = try await store.transactions().prefix(4).map(\.price)
            #expect(prices == [decimal("4.99"), decimal("1.99"), decimal("1.99"), decimal("1.99")], "three offer periods, then the plan's price")
        }
    }

    @Test("the wait between offers and the longest time since the lapse; HIGH priority first")
    func rules() async throws {
        try await withPricingStore { fixture in
            let store = try await lapsedSubscriber(fixture, paidMonths: 6)  // lapsed September 1
            fixture.clock.set(utc(2025, 10, 2))
            #expect(try await store.app.eligibleWinBackOfferIDs(groupID: "club") == ["free1", "back3"], "HIGH before NORMAL")
            _ = try transaction(of: try await store.purchase("club.monthly", winBackOfferID: "back3"))
            fixture.clock.set(utc(2025, 11, 3))
            try await store.setAutoRenew(groupID: "club", false)  // lapses December 2
            fixture.clock.set(utc(2026, 1, 3))
            #expect(try await store.app.eligibleWinBackOfferIDs(groupID: "club") == ["free1"], "back3 waits 12 months after October 2")
            fixture.clock.set(utc(2026, 7, 3))
            #expect(try await store.app.eligibleWinBackOfferIDs(groupID: "club") == ["free1"], "back3: more than 6 months since the lapse")
            let reasons = try await store.winBackVerdicts(groupID: "club", account: store.account, at: utc(2026, 7, 3))
            #expect(reasons.first { $0.id == "back3" }?.fault?.contains("at most 6 months") == true)
        }
    }

    @Test("a subscription in billing retry, or refunded, has not lapsed")
    func billingRetryAndRefund() async throws {
        try await withPricingStore { fixture in
            let store = try fixture.open()
            let first = try await buy(store, "club.monthly")
            _ = try await store.setSetting("billingIssues", to: "true")
            fixture.clock.set(utc(2025, 5, 2))
            #expect(try await store.subscriptionStatuses().first?.state == .inBillingRetryPeriod)
            #expect(try await store.app.eligibleWinBackOfferIDs(groupID: "club").isEmpty)
            _ = try await store.setSetting("billingIssues", to: "false")
            _ = try await store.refund(first.id)
            let other = try fixture.open(account: "refunded@local")
            let bought = try await buy(other, "club.monthly")
            _ = try await other.refund(bought.id)
            fixture.clock.set(utc(2025, 9, 1))
            #expect(try await other.app.eligibleWinBackOfferIDs(groupID: "club").isEmpty)
        }
    }

    @Test("becoming eligible queues a winBackOffer message, once per lapse")
    func message() async throws {
        try await withPricingStore { fixture in
            let store = try await lapsedSubscriber(fixture, paidMonths: 3)
            #expect(try await store.messages().isEmpty)
            fixture.clock.set(utc(2025, 7, 2))
            let messages = try await store.messages()
            #expect(messages.map(\.reason) == [.winBackOffer] && messages.first?.offerID == "back3")
            #expect(try await store.messages().count == 1)
            let sheet = try await store.sheet(for: try #require(messages.first))
            #expect(sheet.title == "Come back to Monthly" && sheet.lines.joined().contains("$1.99"))
        }
    }

    @Test("products.json and .storekit carry App Store Connect's eligibility; catalog convert keeps it")
    func catalog() throws {
        let catalog = try Catalog.parse(Array(pricingCatalogText.utf8), file: "pricing.json")
        let back3 = try #require(catalog.product(id: "club.monthly")?.subscription?.offers.first)
        let rules = try #require(back3.winBack)
        #expect(rules.paidSubscriptionDurationInMonths == 2 && rules.minimumMonthsSinceLastSubscribed == 1)
        #expect(rules.maximumMonthsSinceLastSubscribed == 6 && rules.waitBetweenOffersInMonths == 12 && rules.priority == .normal)
        let converted = try Catalog.parse(Array(catalog.productsJSON().document.serialized().utf8), file: "converted.json")
        #expect(converted == catalog)
        let bad = pricingCatalogText.replacingOccurrences(of: "\"maximum\": 6", with: "\"maximum\": 0")
        #expect(throws: CatalogError.self) { try Catalog.parse(Array(bad.utf8), file: "bad.json") }
        let misplaced = pricingCatalogText.replacingOccurrences(of: "\"type\": \"winBack\", \"id\": \"yearly.back\"",
                                                                with: "\"type\": \"promotional\", \"priority\": \"HIGH\", \"id\": \"yearly.back\"")
        #expect(throws: CatalogError.self) { try Catalog.parse(Array(misplaced.utf8), file: "bad.json") }
    }
}

@Suite("messages")
struct MessageTests {
    @Test("a renewal that fails to bill queues billingIssue, once")
    func billingIssue() async throws {
        try await withPricingStore { fixture in
            let store = try fixture.open()
            _ = try await buy(store, "club.monthly")
            _ = try await store.setSetting("billingIssues", to: "true")
            fixture.clock.set(utc(2025, 4, 2))
            let messages = try await store.messages()
            #expect(messages.map(\.reason) == [.billingIssue] && messages.first?.productID == "club.monthly")
            fixture.clock.set(utc(2025, 4, 20))
            #expect(try await store.messages().count == 1)
            #expect(try await store.sheet(for: messages[0]).title == "Billing Problem")
        }
    }

    @Test("send, defer, display: kept in the store file for every process; another account has its own")
    func lifecycle() async throws {
        try await withPricingStore { fixture in
            let store = try fixture.open()
            let sent = try await store.sendMessage(.generic)
            #expect(sent.state == .pending && sent.reason == .generic)
            #expect(try await store.deferMessage(sent.id).state == .deferred)
            let other = try fixture.open()
            #expect(try await other.messages().map(\.state) == [.deferred], "another process sees it")
            let (shown, sheet) = try await other.displayMessage(sent.id)
            #expect(shown.state == .displayed && sheet.title == "App Store")
            #expect(try await store.deferMessage(sent.id).state == .displayed, "a shown message stays shown")
            #expect(try await fixture.open(account: "else@local").messages().isEmpty)
            await #expect(throws: StoreError.messageNotFound(id: sent.id)) {
                _ = try await fixture.open(account: "else@local").displayMessage(sent.id)
            }
            try await store.reset(.account)
            #expect(try await store.messages().isEmpty)
        }
    }
}
