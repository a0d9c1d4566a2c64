import Foundation
import Testing
@testable import StoreEngine

/// A catalog of one group for the pricing tests: a monthly plan with win-back offers, a
/// yearly plan, and a plan with a month's free trial.
let pricingCatalogText = """
    {
      "storefront": "USA",
      "storefronts": { "USA": { "currency": "USD", "locale": "en_US" }, "DEU": { "currency": "EUR", "locale": "de_DE" } },
      "subscriptionGroups": [
        { "id": "club", "displayName": "Club", "subscriptions": [
          { "id": "club.yearly", "displayName": "Yearly", "price": "49.99", "period": "P1Y", "level": 1,
            "offers": [ { "type": "winBack", "id": "yearly.back", "paymentMode": "payUpFront", "period": "P1Y", "price": "29.99" } ] },
          { "id": "club.monthly", "displayName": "Monthly", "price": "4.99", "prices": { "DEU": "5.49" }, "period": "P1M", "level": 2,
            "offers": [
              { "type": "winBack", "id": "back3", "paymentMode": "payAsYouGo", "period": "P1M", "periodCount": 3, "price": "1.99",
                "customerEligibilityPaidSubscriptionDurationInMonths": 2,
                "customerEligibilityTimeSinceLastSubscribedInMonths": { "minimum": 1, "maximum": 6 },
                "customerEligibilityWaitBetweenOffersInMonths": 12 },
              { "type": "winBack", "id": "free1", "paymentMode": "freeTrial", "period": "P1M", "priority": "HIGH",
                "customerEligibilityPaidSubscriptionDurationInMonths": 6,
                "customerEligibilityTimeSinceLastSubscribedInMonths": { "minimum": 0 } }
            ] },
          { "id": "club.trial", "displayName": "Trial plan", "price": "9.99", "period": "P1M", "level": 3,
            "introductoryOffer": { "paymentMode": "freeTrial", "period": "P1M" } }
        ] }
      ]
    }
    """

/// Runs `body` with a store file on the pricing catalog, its clock at March 1, 2025.
func withPricingStore<T>(_ text: String = pricingCatalogText, _ body: (StoreFixture) async throws -> T) async throws -> T {
    try await withStoreFixture(catalogText: text, file: "pricing.json", at: utc(2025, 3, 1), body)
}

/// The (type, subtype) of every notification recorded, in order.
func notificationTypes(_ store: Store) async throws -> [String] {
    try await store.notifications(NotificationFilter(), after: nil, limit: 100).map { [$0.type, $0.subtype].compactMap { $0 }.joined(separator: " ") }
}

/// The decoded payload of the group's signed renewal info now.
func renewalPayload(_ store: Store, _ group: String = "club") async throws -> JSON {
    let status = try #require(try await store.subscriptionStatuses().first { $0.groupID == group })
    return try await store.app.verify(jws: try #require(status.renewalInfo.jwsRepresentation)).payload
}

@Suite("price increases")
struct PriceIncreaseTests {
    @Test("an increase needing consent, never given: PRICE_INCREASE PENDING, status 0, then EXPIRED PRICE_INCREASE at the renewal")
    func refusedByNotAnswering() async throws {
        try await withPricingStore { fixture in
            let store = try fixture.open()
            let bought = try await buy(store, "club.monthly")
            let change = try await store.changePrice("club.monthly", to: decimal("5.99"), requireConsent: true)
            #expect(change.requiresConsent && change.oldPrice == decimal("4.99") && change.newPrice == decimal("5.99"))
            let told = try #require(change.subscribers.first)
            #expect(change.subscribers.count == 1 && told.status == .pending && told.originalTransactionID == bought.id)
            #expect(told.noticeEnds == utc(2025, 3, 28), "Apple's 27 days of notice for a monthly plan")
            #expect(told.effectiveDate == utc(2025, 4, 1))
            let status = try #require(try await store.subscriptionStatuses().first)
            #expect(status.renewalInfo.priceIncreaseStatus == .pending && status.renewalInfo.renewalPrice == decimal("5.99"))
            #expect(try await renewalPayload(store)["priceIncreaseStatus"] == .integer(0))
            #expect(try await store.product(id: "club.monthly")?.price == decimal("5.99"), "new subscribers pay it at once")
            #expect(try await store.messages().map(\.reason) == [.priceIncreaseConsent])

            fixture.clock.set(utc(2025, 4, 2))
            #expect(try await store.processRenewals() == 0, "not renewed")
            let expired = try #require(try await store.subscriptionStatuses().first)
            #expect(expired.state == .expired && expired.renewalInfo.expirationReason == .didNotConsentToPriceIncrease)
            let payload = try await renewalPayload(store)
            #expect(payload["expirationIntent"] == .integer(3) && payload["priceIncreaseStatus"] == nil)
            #expect(try await notificationTypes(store) == ["SUBSCRIBED INITIAL_BUY", "PRICE_INCREASE PENDING", "EXPIRED PRICE_INCREASE"])
            #expect(try await store.messages().allSatisfy { $0.state == .displayed }, "nothing left to agree to")
        }
    }

    @Test("consent given: PRICE_INCREASE ACCEPTED, status 1, and the renewal charges the new price")
    func agreed() async throws {
        try await withPricingStore { fixture in
            let store = try fixture.open()
            _ = try await buy(store, "club.monthly")
            _ = try await store.changePrice("club.monthly", to: decimal("5.99"), requireConsent: true)
            let agreed = try await store.consentToPriceIncrease("club.monthly")
            #expect(agreed.status == .agreed)
            #expect(try await renewalPayload(store)["priceIncreaseStatus"] == .integer(1))
            #expect(try await store.messages().first?.state == .displayed, "the consent message is answered")
            fixture.clock.set(utc(2025, 4, 2))
            #expect(try await store.processRenewals() == 1)
            let renewal = try #require(try await store.transactions().first)
            #expect(renewal.reason == .renewal && renewal.price == decimal("5.99"))
            #expect(try await store.subscriptionStatuses().first?.renewalInfo.priceIncreaseStatus == .noIncreasePending)
            #expect(try await notificationTypes(store) == ["SUBSCRIBED INITIAL_BUY", "PRICE_INCREASE PENDING", "PRICE_INCREASE ACCEPTED", "DID_RENEW"])
            await #expect(throws: StoreError.noPriceIncrease(productID: "club.monthly")) {
                _ = try await store.consentToPriceIncrease("club.monthly")
            }
        }
    }

    @Test("without consent: told at once (ACCEPTED), the renewal inside the notice keeps the old price, the next one pays the new")
    func noticePeriod() async throws {
        try await withPricingStore { fixture in
            let store = try fixture.open()
            _ = try await buy(store, "club.monthly")
            fixture.clock.set(utc(2025, 3, 20))
            let change = try await store.changePrice("club.monthly", to: decimal("5.99"), requireConsent: false)
            #expect(!change.requiresConsent && change.subscribers.first?.status == .agreed)
            #expect(change.subscribers.first?.effectiveDate == utc(2025, 5, 1), "April 1 is within the 27 days")
            let newcomer = try fixture.open(account: "new@local")
            #expect(try await buy(newcomer, "club.monthly").price == decimal("5.99"))
            #expect(try await store.subscriptionStatuses().first?.renewalInfo.renewalPrice == decimal("4.99"))
            fixture.clock.set(utc(2025, 5, 2))
            _ = try await store.processRenewals()
            let prices = try await store.transactions().filter { $0.reason == .renewal }.map(\.price)
            #expect(prices == [decimal("5.99"), decimal("4.99")], "newest first: May at the new price, April at the old")
            #expect(try await notificationTypes(store).contains("PRICE_INCREASE ACCEPTED"))
            #expect(try await store.messages().isEmpty, "no consent to ask for")
        }
    }

    @Test("declining cancels: auto-renew off now (AUTO_RENEW_DISABLED), no increase waits, it ends at the period's end")
    func declined() async throws {
        try await withPricingStore { fixture in
            let store = try fixture.open()
            _ = try await buy(store, "club.monthly")
            _ = try await store.changePrice("club.monthly", to: decimal("7.99"), requireConsent: true)
            try await store.declinePriceIncrease("club.monthly")
            let status = try #require(try await store.subscriptionStatuses().first)
            #expect(!status.renewalInfo.willAutoRenew && status.renewalInfo.priceIncreaseStatus == .noIncreasePending)
            fixture.clock.set(utc(2025, 4, 2))
            let expired = try #require(try await store.subscriptionStatuses().first)
            #expect(expired.state == .expired && expired.renewalInfo.expirationReason == .autoRenewDisabled)
            #expect(try await notificationTypes(store).suffix(2) == ["DID_CHANGE_RENEWAL_STATUS AUTO_RENEW_DISABLED", "EXPIRED VOLUNTARY"])
        }
    }

    @Test("Apple's thresholds and the yearly limit decide consent when the developer does not ask for it")
    func thresholds() async throws {
        try await withPricingStore { fixture in
            let store = try fixture.open()
            #expect(await !store.exceedsThresholds(decimal("4.99"), decimal("9.99"), period: ISODuration(months: 1), currency: "USD"),
                    "+100% but exactly $5.00: not more than $5")
            #expect(await store.exceedsThresholds(decimal("4.99"), decimal("10.49"), period: ISODuration(months: 1), currency: "USD"))
            #expect(await !store.exceedsThresholds(decimal("49.99"), decimal("99.00"), period: ISODuration(years: 1), currency: "USD"))
            #expect(await !store.exceedsThresholds(decimal("4.99"), decimal("7.00"), period: ISODuration(months: 1), currency: "EUR"))
            #expect(try await !store.changePrice("club.monthly", to: decimal("5.49"), requireConsent: false).requiresConsent)
            fixture.clock.advance(ISODuration(months: 6))
            #expect(try await store.changePrice("club.monthly", to: decimal("5.99"), requireConsent: false).requiresConsent,
                    "a second increase without consent within a year")
            #expect(try await store.changePrice("club.yearly", to: decimal("120"), requireConsent: false).requiresConsent)
            await #expect(throws: StoreError.self) { _ = try await store.changePrice("club.monthly", to: decimal("5.99"), requireConsent: false) }
        }
    }

    @Test("a lower price needs no notice: the waiting increase is dropped and the next renewal charges it")
    func decrease() async throws {
        try await withPricingStore { fixture in
            let store = try fixture.open()
            _ = try await buy(store, "club.monthly")
            _ = try await store.changePrice("club.monthly", to: decimal("8.99"), requireConsent: true)
            let change = try await store.changePrice("club.monthly", to: decimal("3.99"), requireConsent: false)
            #expect(!change.isIncrease && change.subscribers.isEmpty)
            #expect(try await store.subscriptionStatuses().first?.renewalInfo.priceIncreaseStatus == .noIncreasePending)
            fixture.clock.set(utc(2025, 4, 2))
            #expect(try await store.processRenewals() == 1)
            #expect(try await store.transactions().first?.price == decimal("3.99"))
        }
    }

    @Test("a free trial renews once more at the price it was sold with")
    func freeTrial() async throws {
        try await withPricingStore { fixture in
            let store = try fixture.open()
            let trial = try await buy(store, "club.trial")
            #expect(trial.price == 0 && trial.expirationDate == utc(2025, 4, 1))
            let change = try await store.changePrice("club.trial", to: decimal("10.99"), requireConsent: false)
            #expect(change.subscribers.first?.effectiveDate == utc(2025, 5, 1), "the notice alone would end March 28")
            fixture.clock.set(utc(2025, 5, 2))
            _ = try await store.processRenewals()
            #expect(try await store.transactions().prefix(2).map(\.price) == [decimal("10.99"), decimal("9.99")])
        }
    }

    /// Tester's day, finding 1: consent was asked at a renewal inside a win-back offer, and the subscription
    /// expired there (didNotConsentToPriceIncrease) with two of the offer's three periods never given.
    @Test("renewals inside a paid offer keep its price and need no consent: the increase waits for the first renewal after it")
    func insideAnOffer() async throws {
        try await withPricingStore { fixture in
            let store = try fixture.open()
            _ = try await buy(store, "club.monthly")  // March 1; renewed April 1: two paid months
            fixture.clock.set(utc(2025, 4, 2))
            try await store.setAutoRenew(groupID: "club", false)  // lapses May 1
            fixture.clock.set(utc(2025, 6, 2))
            let back = try transaction(of: try await store.purchase("club.monthly", winBackOfferID: "back3"))
            #expect(back.price == decimal("1.99") && back.expirationDate == utc(2025, 7, 2))
            let change = try await store.changePrice("club.monthly", to: decimal("9.99"), requireConsent: true)
            #expect(change.subscribers.first?.effectiveDate == utc(2025, 9, 2), "July 2 and August 2 are the offer's")
            var status = try #require(try await store.subscriptionStatuses().first)
            #expect(status.renewalInfo.renewalPrice == decimal("1.99") && status.renewalInfo.priceIncreaseStatus == .pending)
            #expect(status.priceIncreaseText == "price increase pending, from the first renewal after the offer",
                    "not \"renews at $1.99\": that renewal has no increase")
            #expect(try await store.priceIncreases().waiting.first?.effectiveDate == utc(2025, 9, 2))

            fixture.clock.set(utc(2025, 8, 15))
            #expect(try await store.processRenewals() == 2)
            #expect(try await store.transactions().prefix(3).map(\.price) == [decimal("1.99"), decimal("1.99"), decimal("1.99")])
            status = try #require(try await store.subscriptionStatuses().first)
            #expect(status.state == .subscribed && status.priceIncreaseText == "price increase pending, renews at $9.99")
            fixture.clock.set(utc(2025, 9, 3))
            let expired = try #require(try await store.subscriptionStatuses().first)
            #expect(expired.state == .expired && expired.renewalInfo.expirationReason == .didNotConsentToPriceIncrease)
            #expect(expired.transaction.expirationDate == utc(2025, 9, 2))
        }
    }

    /// Tester's day, finding 2: after a plan change the consent message and `price-increase` still asked
    /// for consent to the old plan's increase, which every answer refused (`noPriceIncrease`).
    @Test("an increase told to a subscription that then expired or changed plan waits no more, nor does its message",
          arguments: ["club.yearly", "club.monthly"])
    func staleAfterExpiry(rebuy: String) async throws {
        try await withPricingStore { fixture in
            let store = try fixture.open()
            _ = try await buy(store, "club.monthly")
            _ = try await store.changePrice("club.monthly", to: decimal("9.99"), requireConsent: true)
            try await store.expireSubscription(groupID: "club")
            _ = try await buy(store, rebuy)
            let status = try #require(try await store.subscriptionStatuses().first)
            #expect(status.renewalInfo.priceIncreaseStatus == .noIncreasePending)
            #expect(try await store.priceIncreases().waiting.isEmpty)
            #expect(try await store.messages().allSatisfy { $0.state == .displayed }, "nothing left to agree to")
            #expect(try await store.app.snapshot().priceIncreases.isEmpty, "the paywall's consent sheet has nothing to ask")
        }
    }

    /// Tester's day, finding 4: after a storefront change `status` said no increase waits, `price-increase`
    /// that one did, and the renewal then ended the subscription for not consenting.
    @Test("an increase of another storefront's price does not wait here: not listed, and no renewal ends for it")
    func otherStorefront() async throws {
        try await withPricingStore { fixture in
            let store = try fixture.open()
            _ = try await buy(store, "club.monthly")
            _ = try await store.changePrice("club.monthly", to: decimal("9.99"), requireConsent: true)
            try await store.setSetting("storefront", to: "DEU")
            #expect(try await store.subscriptionStatuses().first?.renewalInfo.priceIncreaseStatus == .noIncreasePending)
            #expect(try await store.priceIncreases().waiting.isEmpty)
            fixture.clock.set(utc(2025, 4, 2))
            #expect(try await store.processRenewals() == 1)
            let status = try #require(try await store.subscriptionStatuses().first)
            #expect(status.state == .subscribed && status.transaction.price == decimal("5.49"))
        }
    }

    /// Tester's day, finding 5: "Expires … · price increase pending, renews at $9.99" with auto-renew off.
    @Test("with auto-renew off a waiting increase promises no renewal")
    func autoRenewOff() async throws {
        try await withPricingStore { fixture in
            let store = try fixture.open()
            _ = try await buy(store, "club.monthly")
            _ = try await store.changePrice("club.monthly", to: decimal("9.99"), requireConsent: true)
            try await store.setAutoRenew(groupID: "club", false)
            let status = try #require(try await store.subscriptionStatuses().first)
            #expect(status.renewalInfo.priceIncreaseStatus == .pending, "Apple's field still says pending")
            #expect(status.priceIncreaseText == "price increase pending")
        }
    }

    @Test("a subscription price changed in the catalog between runs is a price change, made once")
    func catalogChange() async throws {
        try await withPricingStore { fixture in
            let store = try fixture.open()
            _ = try await buy(store, "club.monthly")
            let raised = try Catalog.parse(Array(pricingCatalogText.replacingOccurrences(of: "\"4.99\"", with: "\"5.49\"").utf8),
                                           file: "pricing.json")
            let next = StoreFixture(folder: fixture.folder, path: fixture.path, catalog: raised, clock: fixture.clock)
            let reopened = try next.open()
            _ = try await reopened.processRenewals()
            let (changes, waiting) = try await reopened.priceIncreases()
            #expect(changes.map(\.source) == ["catalog"] && changes.first?.newPrice == decimal("5.49"))
            #expect(waiting.first?.status == .agreed, "+10%: no consent needed")
            _ = try await next.open().processRenewals()
            #expect(try await next.open().priceIncreases().changes.count == 1, "noticed once")
            fixture.clock.set(utc(2025, 4, 2))
            _ = try await reopened.processRenewals()
            #expect(try await reopened.transactions().first?.price == decimal("5.49"))
            #expect(try await notificationTypes(reopened).contains("PRICE_INCREASE ACCEPTED"))
        }
    }

    @Test("only subscriptions' prices change; the price of another storefront is its own")
    func refusals() async throws {
        try await withPricingStore { fixture in
            let store = try fixture.open()
            await #expect(throws: StoreError.invalidPriceChange(productID: "nope", reason: "only an auto-renewable subscription's price can increase for its subscribers")) {
                _ = try await store.changePrice("nope", to: 1, requireConsent: false)
            }
            await #expect(throws: StoreError.noSubscription(groupID: "club")) { try await store.declinePriceIncrease("club.monthly") }
            _ = try await buy(store, "club.monthly")
            await #expect(throws: StoreError.noPriceIncrease(productID: "club.monthly")) { try await store.declinePriceIncrease("club.monthly") }
            _ = try await store.changePrice("club.monthly", to: decimal("5.99"), requireConsent: false)
            try await store.setSetting("storefront", to: "DEU")
            #expect(try await store.product(id: "club.monthly")?.price == decimal("5.49"))
        }
    }
}

@Suite("schema 8")
struct SchemaEightTests {
    @Test("a schema 7 file gets the pricing tables; its rows keep their seals", .fileStoreOnly)
    func migrates() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            let kept = try await buy(store, "pro")
            let db = try SQLiteDatabase(path: fixture.path, create: false)
            try db.execute("""
                DROP TABLE price_changes; DROP TABLE price_increases; DROP TABLE catalog_prices; DROP TABLE messages;
                ALTER TABLE subscriptions DROP COLUMN seal; ALTER TABLE app_balances DROP COLUMN seal;
                PRAGMA user_version = 7;
                """)
            let notes = StoreDoctor.examine(path: fixture.path).notes.map(\.message)
            #expect(notes.contains { $0.contains("schema version 7") && $0.contains("schema 8's (price changes") }, "\(notes)")
            let reopened = try fixture.open()
            #expect(try db.scalar("PRAGMA user_version") == Ledger.schemaVersion)
            #expect(try await reopened.sendMessage(.generic).reason == .generic)
            #expect(try await reopened.transaction(id: kept.id).verification == .verified)
        }
    }
}
