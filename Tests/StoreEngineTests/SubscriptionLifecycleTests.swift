import Foundation
import Testing
@testable import StoreEngine

// MARK: - A catalog for the lifecycle

/// Two groups of plans with every shape of offer: `pro` has a yearly plan above three
/// level-2 plans (monthly, a same-period crossgrade, a quarterly) and promotional offers
/// (products.json wants distinct levels, so ``lifecycleCatalog()`` puts them on one level,
/// as a `.storekit` file's shared `groupNumber` does);
/// `news` has a weekly plan with a pay-as-you-go intro offer and a monthly one paid up front.
let lifecycleCatalogText = """
    {
      "paywall": { "title": "Lifecycle", "subtitle": "For tests", "features": ["one"] },
      "storefront": "USA",
      "storefronts": { "USA": { "currency": "USD", "locale": "en_US" } },
      "subscriptionGroups": [
        { "id": "pro", "displayName": "Pro",
          "subscriptions": [
            { "id": "pro.yearly", "displayName": "Yearly", "price": "49.99", "period": "P1Y", "level": 1 },
            { "id": "pro.monthly", "displayName": "Monthly", "price": "5.99", "period": "P1M", "level": 2,
              "offers": [
                { "type": "promotional", "id": "comeback", "paymentMode": "payAsYouGo", "period": "P1M",
                  "periodCount": 2, "price": "2.99" },
                { "type": "code", "id": "a-code", "paymentMode": "freeTrial", "period": "P1M" }
              ] },
            { "id": "pro.quarterly", "displayName": "Quarterly", "price": "14.99", "period": "P3M", "level": 3 },
            { "id": "pro.family", "displayName": "Family", "price": "7.99", "period": "P1M", "level": 4 }
          ] },
        { "id": "news", "displayName": "News",
          "subscriptions": [
            { "id": "news.weekly", "displayName": "Weekly", "price": "0.99", "period": "P1W", "level": 1,
              "introductoryOffer": { "paymentMode": "payAsYouGo", "period": "P1W", "periodCount": 3, "price": "0.49" } },
            { "id": "news.monthly", "displayName": "News Monthly", "price": "2.99", "period": "P1M", "level": 2,
              "introductoryOffer": { "paymentMode": "payUpFront", "period": "P2M", "price": "1.99" } }
          ] }
      ],
      "products": [
        { "id": "gems", "type": "consumable", "displayName": "Gems", "price": "0.99" }
      ]
    }
    """

/// The lifecycle catalog, with the quarterly and family plans on the monthly plan's level 2.
func lifecycleCatalog() throws -> Catalog {
    let parsed = try Catalog.parse(Array(lifecycleCatalogText.utf8), file: "lifecycle.json")
    let products = parsed.products.map { product in
        var product = product
        if ["pro.quarterly", "pro.family"].contains(product.id) { product.subscription?.level = 2 }
        return product
    }
    let catalog = Catalog(paywall: parsed.paywall, defaultStorefront: parsed.defaultStorefront,
                          storefronts: parsed.storefronts, products: products,
                          subscriptionGroups: parsed.subscriptionGroups)
    #expect(catalog.product(id: "pro.family")?.subscription?.level == 2)
    return catalog
}

/// Mid-month, so that adding months is never ambiguous.
let lifecycleStart = utc(2025, 1, 15, 12)

/// Runs `body` with a store file of the lifecycle catalog and a test clock at ``lifecycleStart``.
func withLifecycleStore<T>(_ body: (StoreFixture) async throws -> T) async throws -> T {
    try await withStoreFixture(catalog: try lifecycleCatalog(), at: lifecycleStart, body)
}

/// The status of one group; fails the test when the account has none.
func status(_ store: Store, _ groupID: String, sourceLocation: SourceLocation = #_sourceLocation) async throws
    -> SubscriptionStatus {
    try #require(try await store.subscriptionStatuses().first { $0.groupID == groupID }, sourceLocation: sourceLocation)
}

/// The signed renewal info's payload, verified with the store's key.
func renewalPayload(_ store: Store, _ status: SubscriptionStatus,
                    sourceLocation: SourceLocation = #_sourceLocation) async throws -> JSON {
    let jws = try #require(status.renewalInfo.jwsRepresentation, sourceLocation: sourceLocation)
    return try await store.verify(jws: jws).payload
}

let day: TimeInterval = 86_400

/// The `Product.PurchaseError` a purchase threw, or nil when it threw none or another error.
func purchaseError(_ body: () async throws -> Void) async -> SimulatedError? {
    do {
        try await body()
        return nil
    } catch StoreError.purchaseError(let error, _) {
        return error
    } catch {
        return nil
    }
}

// MARK: - The clock

@Suite("Subscriptions: the store's clock")
struct SubscriptionClockTests {
    @Test("without a time rate the store's time is the real time")
    func realTime() async throws {
        try await withLifecycleStore { fixture in
            let store = try fixture.open()
            #expect(try await store.clock().now == lifecycleStart)
            #expect(try await store.clock().rate == .realTime)
            fixture.clock.advance(by: 90)
            #expect(try await store.clock().now == lifecycleStart.addingTimeInterval(90))
        }
    }

    @Test("monthlyRenewalEveryHour: an hour of real time is a month (31 days) of store time; a new rate goes on from there")
    func monthlyRate() async throws {
        try await withLifecycleStore { fixture in
            let store = try fixture.open()
            fixture.clock.advance(by: 600)
            try await store.setSetting("timeRate", to: "monthlyRenewalEveryHour")
            // Setting the rate does not move the clock.
            #expect(try await store.clock().now == lifecycleStart.addingTimeInterval(600))
            #expect(try await store.clock().rate == .monthlyRenewalEveryHour)
            fixture.clock.advance(by: 1800)
            #expect(try await store.clock().now == lifecycleStart.addingTimeInterval(600 + 15.5 * day))
            // Back to real time: the store's time goes on from where it got, never back.
            try await store.setSetting("timeRate", to: "realTime")
            #expect(try await store.clock().now == lifecycleStart.addingTimeInterval(600 + 15.5 * day))
            fixture.clock.advance(by: 60)
            #expect(try await store.clock().now == lifecycleStart.addingTimeInterval(660 + 15.5 * day))
            // A second store (another process) reads the same clock.
            #expect(try await fixture.open().clock().now == lifecycleStart.addingTimeInterval(660 + 15.5 * day))
        }
    }

    @Test("oneRenewalEvery… makes the catalog's shortest period (a week here) pass in that time")
    func shortestPeriodRate() async throws {
        try await withLifecycleStore { fixture in
            let store = try fixture.open()
            try await store.setSetting("timeRate", to: "oneRenewalEveryTenSeconds")
            fixture.clock.advance(by: 10)
            #expect(try await store.clock().now == lifecycleStart.addingTimeInterval(7 * day))
            // The monthly… rates stay tied to a month, whatever the catalog.
            try await store.setSetting("timeRate", to: "monthlyRenewalEveryThirtySeconds")
            fixture.clock.advance(by: 30)
            #expect(try await store.clock().now == lifecycleStart.addingTimeInterval(38 * day))
        }
    }

    @Test("a faster rate set while subscribed makes the renewals come with real seconds")
    func rateBringsRenewals() async throws {
        try await withLifecycleStore { fixture in
            let store = try fixture.open()
            let bought = try await buy(store, "pro.monthly")
            try await store.setSetting("timeRate", to: "monthlyRenewalEveryThirtySeconds")
            fixture.clock.advance(by: 29)  // 29 store days: not due yet
            #expect(try await store.transactions().count == 1)
            fixture.clock.advance(by: 2)   // 31 store days: February 15 has passed
            let renewal = try #require(try await store.transactions().first)
            #expect(renewal.id != bought.id)
            #expect(renewal.purchaseDate == utc(2025, 2, 15, 12))
        }
    }

    @Test("advanceClock jumps by a calendar duration, then makes the renewals due")
    func advance() async throws {
        try await withLifecycleStore { fixture in
            let store = try fixture.open()
            let bought = try await buy(store, "pro.monthly")
            try await store.finish(bought)
            #expect(try await store.advanceClock(by: ISODuration(months: 1)) == utc(2025, 2, 15, 12))
            #expect(try await store.clock().now == utc(2025, 2, 15, 12))
            // Made by advanceClock itself: unfinished() reads without catching up.
            let waiting = try await store.unfinished()
            #expect(waiting.map(\.purchaseDate) == [utc(2025, 2, 15, 12)])
            // The jump composes with real time and with a rate.
            fixture.clock.advance(by: 60)
            #expect(try await store.clock().now == utc(2025, 2, 15, 12, 1))
            try await store.setSetting("timeRate", to: "monthlyRenewalEveryHour")
            try await store.advanceClock(by: ISODuration(days: 1))
            fixture.clock.advance(by: 3600)
            #expect(try await store.clock().now == utc(2025, 2, 16, 12, 1).addingTimeInterval(31 * day))
        }
    }
}

// MARK: - Renewals

@Suite("Subscriptions: renewals")
struct SubscriptionRenewalTests {
    @Test("a year of monthly renewals: new ids, the same original, each from the previous expiration, unfinished")
    func yearOfRenewals() async throws {
        try await withLifecycleStore { fixture in
            let store = try fixture.open()
            let first = try await buy(store, "pro.monthly")
            try await store.finish(first)
            fixture.clock.set(utc(2026, 1, 15, 12))
            let history = try await store.transactions().reversed().map { $0 }
            #expect(history.count == 13)
            #expect(history.first?.id == first.id)
            let renewals = history.dropFirst()
            #expect(renewals.allSatisfy { $0.originalID == first.id && $0.reason == .renewal && !$0.isFinished })
            #expect(renewals.allSatisfy { $0.productID == "pro.monthly" && $0.price == decimal("5.99") })
            #expect(renewals.allSatisfy { $0.originalPurchaseDate == lifecycleStart && $0.verification.isVerified })
            #expect(Set(history.map(\.id)).count == 13)
            #expect(history.map(\.id) == history.map(\.id).sorted(), "made in order")
            for (previous, next) in zip(history, history.dropFirst()) {
                #expect(next.purchaseDate == previous.expirationDate)
            }
            #expect(history.map(\.purchaseDate) == (0...12).map { utcCalendar.date(byAdding: .month, value: $0, to: lifecycleStart)! })
            #expect(history.last?.expirationDate == utc(2026, 2, 15, 12))
            #expect(try await store.currentEntitlements().map(\.id) == [history.last!.id])
            // The app gets them as updates, oldest first.
            #expect(try await store.deliverUnfinished().finished.map(\.id) == renewals.map(\.id))
            let renewed = try await status(store, "pro")
            #expect(renewed.state == .subscribed)
            #expect(renewed.renewalInfo.renewalDate == utc(2026, 2, 15, 12))
            #expect(renewed.renewalInfo.recentSubscriptionStartDate == lifecycleStart)
            #expect(renewed.renewalInfo.originalTransactionID == first.id)
        }
    }

    @Test("bought on January 31: renews on the last day of shorter months and on the 31st again after them")
    func monthEnd() async throws {
        try await withLifecycleStore { fixture in
            fixture.clock.set(utc(2025, 1, 31, 12))
            let store = try fixture.open()
            let first = try await buy(store, "pro.monthly")
            #expect(first.expirationDate == utc(2025, 2, 28, 12))
            fixture.clock.set(utc(2025, 7, 1))
            let ends = try await store.transactions().reversed().map(\.expirationDate)
            #expect(ends == [utc(2025, 2, 28, 12), utc(2025, 3, 31, 12), utc(2025, 4, 30, 12), utc(2025, 5, 31, 12),
                             utc(2025, 6, 30, 12), utc(2025, 7, 31, 12)])
            // A plan bought on the 28th keeps the 28th: nothing to restore at a month's end.
            let other = try fixture.open(account: "other@local")
            fixture.clock.set(utc(2025, 2, 28, 9))
            _ = try await buy(other, "pro.monthly")
            fixture.clock.set(utc(2025, 5, 1))
            let otherEnds = try await other.transactions().reversed().map(\.expirationDate)
            #expect(otherEnds == [utc(2025, 3, 28, 9), utc(2025, 4, 28, 9), utc(2025, 5, 28, 9)])
        }
    }

    @Test("a renewal's signed payload says RENEWAL, with the new dates and the same original id")
    func renewalSignedPayload() async throws {
        try await withLifecycleStore { fixture in
            let store = try fixture.open()
            let first = try await buy(store, "pro.monthly")
            fixture.clock.set(utc(2025, 2, 20))
            let renewal = try #require(try await store.transactions().first)
            let payload = try await store.verify(jws: try #require(renewal.jwsRepresentation)).payload
            #expect(payload["transactionReason"] == .string("RENEWAL"))
            #expect(payload["transactionId"] == .string(String(renewal.id)))
            #expect(payload["originalTransactionId"] == .string(String(first.id)))
            #expect(payload["purchaseDate"] == .number(String(utc(2025, 2, 15, 12).milliseconds)))
            #expect(payload["expiresDate"] == .number(String(utc(2025, 3, 15, 12).milliseconds)))
        }
    }

    enum Read: String, CaseIterable, CustomTestStringConvertible {
        case currentEntitlements, transactions, sync, subscriptionStatuses, purchase, deliverUnfinished
        var testDescription: String { rawValue }

        func perform(_ store: Store) async throws {
            switch self {
            case .currentEntitlements: _ = try await store.currentEntitlements()
            case .transactions: _ = try await store.transactions()
            case .sync: _ = try await store.sync()
            case .subscriptionStatuses: _ = try await store.subscriptionStatuses()
            case .purchase: _ = try await store.purchase("gems")
            case .deliverUnfinished: _ = try await store.deliverUnfinished()
            }
        }
    }

    @Test("renewals that fell due while nothing ran are made, in order, at the next read", arguments: Read.allCases)
    func catchUp(_ read: Read) async throws {
        try await withLifecycleStore { fixture in
            let first = try await buy(try fixture.open(), "pro.monthly")
            // Nothing runs for three and a half months; then a new process opens the store.
            fixture.clock.set(utc(2025, 5, 1))
            let store = try fixture.open()
            #expect(try await store.unfinished().map(\.id) == [first.id], "nothing is made before a read")
            try await read.perform(store)
            let renewals = try await store.transactions().filter { $0.reason == .renewal }.reversed().map { $0 }
            #expect(renewals.map(\.purchaseDate) == [utc(2025, 2, 15, 12), utc(2025, 3, 15, 12), utc(2025, 4, 15, 12)])
            #expect(renewals.map(\.id) == renewals.map(\.id).sorted())
            #expect(renewals.allSatisfy { $0.originalID == first.id })
            // Logged at the store times they fell due, not at the read.
            let logged = try await store.events().filter { $0.detail == "renewal" }
            #expect(logged.map(\.date) == renewals.map(\.purchaseDate))
            #expect(logged.map(\.transactionID) == renewals.map(\.id))
            #expect(try await store.isEntitled(to: "pro.monthly"))
        }
    }

    @Test("two processes reading at once make each renewal once")
    func concurrentCatchUp() async throws {
        try await withLifecycleStore { fixture in
            _ = try await buy(try fixture.open(), "pro.monthly")
            fixture.clock.set(utc(2025, 5, 1))
            let (a, b) = (try fixture.open(), try fixture.open())
            async let one = a.currentEntitlements()
            async let two = b.transactions()
            _ = try await (one, two)
            #expect(try await a.transactions().count == 4)
        }
    }
}

// MARK: - Auto-renew, expire, renew

@Suite("Subscriptions: auto-renew and the tester's controls")
struct SubscriptionControlTests {
    @Test("auto-renew off: active to the period's end, then expired with autoRenewDisabled and no renewal")
    func autoRenewOff() async throws {
        try await withLifecycleStore { fixture in
            let store = try fixture.open()
            let bought = try await buy(store, "pro.monthly")
            fixture.clock.advance(by: 3 * day)
            try await store.setAutoRenew(groupID: "pro", false)
            let off = try await status(store, "pro")
            #expect(off.state == .subscribed)
            #expect(off.renewalInfo.willAutoRenew == false)
            #expect(off.renewalInfo.expirationReason == nil, "not expired yet")
            #expect(try await renewalPayload(store, off)["autoRenewStatus"] == .number("0"))
            fixture.clock.set(utc(2025, 2, 15, 11, 59, 59))
            #expect(try await store.isEntitled(to: "pro.monthly"))
            fixture.clock.set(utc(2025, 2, 15, 12))
            #expect(try await !store.isEntitled(to: "pro.monthly"))
            let expired = try await status(store, "pro")
            #expect(expired.state == .expired)
            #expect(expired.transaction.id == bought.id)
            #expect(expired.renewalInfo.expirationReason == .autoRenewDisabled)
            #expect(expired.renewalInfo.renewalDate == expired.transaction.expirationDate, "still present once expired")
            #expect(try await renewalPayload(store, expired)["expirationIntent"] == .number("1"))
            fixture.clock.set(utc(2025, 6, 1))
            #expect(try await store.transactions().map(\.id) == [bought.id])
            // Turning it on after the end brings nothing back.
            try await store.setAutoRenew(groupID: "pro", true)
            #expect(try await store.transactions().map(\.id) == [bought.id])
            #expect(try await status(store, "pro").state == .expired)
        }
    }

    @Test("auto-renew off, then on again before the period's end: it renews")
    func autoRenewBackOn() async throws {
        try await withLifecycleStore { fixture in
            let store = try fixture.open()
            let bought = try await buy(store, "pro.monthly")
            try await store.setAutoRenew(groupID: "pro.monthly", false)  // a product id names its group
            fixture.clock.advance(by: 10 * day)
            try await store.setAutoRenew(groupID: "pro", true)
            fixture.clock.set(utc(2025, 2, 16))
            let renewal = try #require(try await store.transactions().first)
            #expect(renewal.id != bought.id)
            #expect(renewal.purchaseDate == utc(2025, 2, 15, 12))
            #expect(try await status(store, "pro").renewalInfo.willAutoRenew)
        }
    }

    @Test("auto-renew turned off after a renewal fell due, nothing read since: the renewal stands, the renewed period runs out")
    func autoRenewOffAfterUnreadRenewal() async throws {
        try await withLifecycleStore { fixture in
            let store = try fixture.open()
            let bought = try await buy(store, "pro.monthly")
            fixture.clock.set(utc(2025, 2, 20))  // due Feb 15
            try await store.setAutoRenew(groupID: "pro", false)
            let renewal = try #require(try await store.transactions().first)
            #expect(renewal.id != bought.id)
            #expect(renewal.purchaseDate == utc(2025, 2, 15, 12))
            let now = try await status(store, "pro")
            #expect(now.state == .subscribed)
            #expect(now.renewalInfo.willAutoRenew == false)
            fixture.clock.set(utc(2025, 4, 1))
            #expect(try await store.transactions().count == 2)
        }
    }

    @Test("expire and renew after a renewal fell due, nothing read since, act on the renewed period")
    func controlsAfterUnreadRenewal() async throws {
        try await withLifecycleStore { fixture in
            let store = try fixture.open()
            let other = try fixture.open(account: "other@local")
            _ = try await buy(store, "pro.monthly")
            _ = try await buy(other, "pro.monthly")
            fixture.clock.set(utc(2025, 2, 20))
            try await store.expireSubscription(groupID: "pro")
            let history = try await store.transactions()
            #expect(history.count == 2, "the renewal due on Feb 15 was made first")
            #expect(history.first?.expirationDate == utc(2025, 2, 20))

            // The other account: the Feb 15 renewal was made with the first store's catch-up; Mar 15's is due.
            fixture.clock.set(utc(2025, 3, 20))
            try await other.renewSubscription(groupID: "pro")
            #expect(try await other.transactions().map(\.purchaseDate)
                    == [utc(2025, 3, 20), utc(2025, 3, 15, 12), utc(2025, 2, 15, 12), lifecycleStart])
        }
    }

    @Test("auto-renew on an account without a subscription in the group throws noSubscription")
    func noSubscription() async throws {
        try await withLifecycleStore { fixture in
            let store = try fixture.open()
            await #expect(throws: StoreError.noSubscription(groupID: "pro")) {
                try await store.setAutoRenew(groupID: "pro", false)
            }
            await #expect(throws: StoreError.noSubscription(groupID: "news")) {
                try await store.expireSubscription(groupID: "news.weekly")
            }
        }
    }

    @Test("expire: the period ends now, autoRenewDisabled, and it never renews")
    func expireNow() async throws {
        try await withLifecycleStore { fixture in
            let store = try fixture.open()
            let bought = try await buy(store, "pro.monthly")
            fixture.clock.advance(by: 5 * day)
            try await store.expireSubscription(groupID: "pro")
            let cut = try await store.transaction(id: bought.id)
            #expect(cut.expirationDate == lifecycleStart.addingTimeInterval(5 * day))
            #expect(cut.verification.isVerified, "re-signed with the new expiration")
            #expect(try await !store.isEntitled(to: "pro.monthly"))
            let expired = try await status(store, "pro")
            #expect(expired.state == .expired)
            #expect(expired.renewalInfo.expirationReason == .autoRenewDisabled)
            #expect(expired.renewalInfo.willAutoRenew == false)
            fixture.clock.set(utc(2025, 6, 1))
            #expect(try await store.transactions().count == 1)
            // Expiring what has expired is refused.
            await #expect(throws: StoreError.self) { try await store.expireSubscription(groupID: "pro") }
        }
    }

    @Test("renew: the period ends now and a renewal starts now")
    func renewNow() async throws {
        try await withLifecycleStore { fixture in
            let store = try fixture.open()
            let bought = try await buy(store, "pro.monthly")
            fixture.clock.advance(by: 5 * day)
            let now = lifecycleStart.addingTimeInterval(5 * day)
            try await store.renewSubscription(groupID: "pro")
            #expect(try await store.transaction(id: bought.id).expirationDate == now)
            let renewal = try #require(try await store.unfinished().last)
            #expect(renewal.id != bought.id)
            #expect(renewal.originalID == bought.id)
            #expect(renewal.reason == .renewal)
            #expect(renewal.purchaseDate == now)
            #expect(renewal.expirationDate == utc(2025, 2, 20, 12))
            #expect(try await store.currentEntitlements().map(\.id) == [renewal.id])
            #expect(try await status(store, "pro").renewalInfo.renewalDate == utc(2025, 2, 20, 12))
        }
    }
}

// MARK: - Billing

@Suite("Subscriptions: billing retry and grace")
struct SubscriptionBillingTests {
    @Test("billingIssues: the renewal fails at the period's end into billing retry (not entitled); 60 days later it expires with billingError")
    func billingRetry() async throws {
        try await withLifecycleStore { fixture in
            let store = try fixture.open()
            let bought = try await buy(store, "pro.monthly")
            try await store.setSetting("billingIssues", to: "true")
            fixture.clock.set(utc(2025, 2, 15, 12, 0, 1))
            let retrying = try await status(store, "pro")
            #expect(retrying.state == .inBillingRetryPeriod)
            #expect(retrying.renewalInfo.isInBillingRetry)
            #expect(retrying.renewalInfo.gracePeriodExpirationDate == nil)
            #expect(retrying.renewalInfo.expirationReason == .billingError, "Apple's expirationIntent 2 from the failed renewal on")
            #expect(retrying.renewalInfo.renewalDate == bought.expirationDate, "the lapsed period's end, as Apple's renewalDate")
            #expect(try await renewalPayload(store, retrying)["isInBillingRetryPeriod"] == .bool(true))
            #expect(try await store.transactions().map(\.id) == [bought.id])
            #expect(try await !store.isEntitled(to: "pro.monthly"))
            // Still retrying the day before the 60 days are over.
            fixture.clock.set(utc(2025, 4, 15, 12))  // Feb 15 + 59 days
            #expect(try await status(store, "pro").state == .inBillingRetryPeriod)
            fixture.clock.set(utc(2025, 4, 16, 12))  // + 60 days
            let expired = try await status(store, "pro")
            #expect(expired.state == .expired)
            #expect(expired.renewalInfo.expirationReason == .billingError)
            #expect(expired.renewalInfo.isInBillingRetry == false)
            #expect(try await renewalPayload(store, expired)["expirationIntent"] == .number("2"))
            let logged = try #require(try await store.events().last)
            #expect(logged.date == utc(2025, 4, 16, 12))
            #expect(logged.detail.contains("billingError"))
            // Billing fixed after the retry ended: too late, nothing renews.
            try await store.setSetting("billingIssues", to: "false")
            #expect(try await store.transactions().map(\.id) == [bought.id])
        }
    }

    @Test("with gracePeriod, a monthly plan keeps access for 16 days, then retries billing")
    func graceMonthly() async throws {
        try await withLifecycleStore { fixture in
            let store = try fixture.open()
            _ = try await buy(store, "pro.monthly")
            try await store.setSetting("billingIssues", to: "true")
            try await store.setSetting("gracePeriod", to: "true")
            fixture.clock.set(utc(2025, 2, 20))
            let grace = try await status(store, "pro")
            #expect(grace.state == .inGracePeriod)
            #expect(grace.renewalInfo.gracePeriodExpirationDate == utc(2025, 3, 3, 12))
            #expect(grace.renewalInfo.isInBillingRetry)
            #expect(try await renewalPayload(store, grace)["gracePeriodExpiresDate"]
                    == .number(String(utc(2025, 3, 3, 12).milliseconds)))
            #expect(try await store.isEntitled(to: "pro.monthly"), "entitled during the grace period")
            fixture.clock.set(utc(2025, 3, 3, 12))
            #expect(try await status(store, "pro").state == .inBillingRetryPeriod)
            #expect(try await !store.isEntitled(to: "pro.monthly"))
        }
    }

    @Test("with gracePeriod, a weekly plan keeps access for 6 days")
    func graceWeekly() async throws {
        try await withLifecycleStore { fixture in
            let store = try fixture.open()
            _ = try await buy(store, "news.weekly")
            try await store.setSetting("billingIssues", to: "true")
            try await store.setSetting("gracePeriod", to: "true")
            fixture.clock.set(utc(2025, 1, 23))
            let grace = try await status(store, "news")
            #expect(grace.state == .inGracePeriod)
            #expect(grace.renewalInfo.gracePeriodExpirationDate == utc(2025, 1, 28, 12))
            fixture.clock.set(utc(2025, 1, 28, 12))
            #expect(try await status(store, "news").state == .inBillingRetryPeriod)
        }
    }

    @Test("billing fixed during the grace period: renewed from the lapsed period's end, no gap")
    func fixedInGrace() async throws {
        try await withLifecycleStore { fixture in
            let store = try fixture.open()
            let bought = try await buy(store, "pro.monthly")
            try await store.setSetting("billingIssues", to: "true")
            try await store.setSetting("gracePeriod", to: "true")
            fixture.clock.set(utc(2025, 2, 20))
            #expect(try await status(store, "pro").state == .inGracePeriod)
            try await store.setSetting("billingIssues", to: "false")
            let renewal = try #require(try await store.transactions().first)
            #expect(renewal.id != bought.id)
            #expect(renewal.originalID == bought.id)
            #expect(renewal.reason == .renewal)
            #expect(renewal.purchaseDate == utc(2025, 2, 15, 12))
            #expect(renewal.expirationDate == utc(2025, 3, 15, 12))
            let renewed = try await status(store, "pro")
            #expect(renewed.state == .subscribed)
            #expect(renewed.renewalInfo.isInBillingRetry == false)
            #expect(renewed.renewalInfo.gracePeriodExpirationDate == nil)
        }
    }

    @Test("billing fixed during billing retry: renewed from now")
    func fixedInRetry() async throws {
        try await withLifecycleStore { fixture in
            let store = try fixture.open()
            _ = try await buy(store, "pro.monthly")
            try await store.setSetting("billingIssues", to: "true")
            fixture.clock.set(utc(2025, 3, 1))
            #expect(try await status(store, "pro").state == .inBillingRetryPeriod)
            try await store.setSetting("billingIssues", to: "false")
            let renewal = try #require(try await store.transactions().first)
            #expect(renewal.reason == .renewal)
            #expect(renewal.purchaseDate == utc(2025, 3, 1))
            #expect(renewal.expirationDate == utc(2025, 4, 1))
            #expect(try await status(store, "pro").state == .subscribed)
            #expect(try await store.isEntitled(to: "pro.monthly"))
        }
    }

    @Test("a renewal that fell due while billing worked is made, though billingIssues was set before anything read")
    func dueBeforeBillingIssues() async throws {
        try await withLifecycleStore { fixture in
            let store = try fixture.open()
            _ = try await buy(store, "pro.monthly")
            fixture.clock.set(utc(2025, 2, 20))  // renewal due on Feb 15; nothing has read since
            try await store.setSetting("billingIssues", to: "true")
            let renewal = try #require(try await store.transactions().first)
            #expect(renewal.reason == .renewal)
            #expect(renewal.purchaseDate == utc(2025, 2, 15, 12))
            #expect(try await status(store, "pro").state == .subscribed)
        }
    }

    @Test("billing fixed long after the 60 days of retry, nothing read meanwhile: it had expired (billingError), no renewal")
    func fixedAfterRetryUnread() async throws {
        try await withLifecycleStore { fixture in
            let store = try fixture.open()
            let bought = try await buy(store, "pro.monthly")
            try await store.setSetting("billingIssues", to: "true")
            fixture.clock.set(utc(2025, 6, 1))
            try await store.setSetting("billingIssues", to: "false")
            #expect(try await store.transactions().map(\.id) == [bought.id])
            #expect(try await status(store, "pro").renewalInfo.expirationReason == .billingError)
        }
    }
}

// MARK: - Upgrades, downgrades, crossgrades

@Suite("Subscriptions: changing plans in a group")
struct SubscriptionChangeTests {
    @Test("an upgrade takes effect at once: the old transaction is upgraded, the original id is kept, a prorated refund is noted")
    func upgrade() async throws {
        try await withLifecycleStore { fixture in
            let store = try fixture.open()
            let monthly = try transaction(of: try await store.purchaseAndFinish("pro.monthly").result)
            fixture.clock.advance(by: 10 * day)
            let upgrade = try await store.purchaseAndFinish("pro.yearly")
            let yearly = try transaction(of: upgrade.result)
            #expect(yearly.productID == "pro.yearly")
            #expect(yearly.id != monthly.id)
            #expect(yearly.originalID == monthly.id)
            #expect(yearly.originalPurchaseDate == lifecycleStart)
            #expect(yearly.purchaseDate == utc(2025, 1, 25, 12))
            #expect(yearly.expirationDate == utc(2026, 1, 25, 12))
            #expect(yearly.reason == .purchase)
            #expect(try await store.transaction(id: monthly.id).isUpgraded)
            #expect(try await store.transaction(id: monthly.id).verification.isVerified)
            guard case .purchased(_, let change?) = upgrade.outcome else {
                Issue.record("expected a purchase that changed the plan, got \(upgrade.outcome.name)")
                return
            }
            #expect(change.kind == .upgrade && !change.isScheduled)
            #expect(change.fromProductID == "pro.monthly" && change.toProductID == "pro.yearly")
            #expect(change.current.id == monthly.id)
            #expect(change.summary.contains("refunded pro rata"))
            #expect(try await store.currentEntitlements().map(\.productID) == ["pro.yearly"])
            let now = try await status(store, "pro")
            #expect(now.transaction.id == yearly.id)
            #expect(now.renewalInfo.autoRenewPreference == "pro.yearly")
            // The monthly plan never renews again.
            fixture.clock.set(utc(2025, 6, 1))
            #expect(try await store.transactions().count == 2)
        }
    }

    @Test("an upgrade approved by a parent (Ask to Buy) keeps the subscription's original id")
    func approvedUpgradeKeepsOriginal() async throws {
        try await withLifecycleStore { fixture in
            let store = try fixture.open()
            let monthly = try await buy(store, "pro.monthly")
            try await store.setSetting("askToBuy", to: "true")
            guard case .pending(let request) = try await store.purchase("pro.yearly") else {
                Issue.record("expected a pending purchase")
                return
            }
            fixture.clock.advance(by: day)
            let yearly = try await store.approve(request.id)
            #expect(yearly.id == request.id)
            #expect(yearly.originalID == monthly.id)
            #expect(yearly.originalPurchaseDate == lifecycleStart)
            #expect(try await store.transaction(id: monthly.id).isUpgraded)
            #expect(try await status(store, "pro").renewalInfo.originalTransactionID == monthly.id)
            let payload = try await store.verify(jws: try #require(yearly.jwsRepresentation)).payload
            #expect(payload["originalTransactionId"] == .string(String(monthly.id)))
        }
    }

    /// Found by the parity walk (issue 40): the resolved yearly kept the request's older id, so the
    /// monthly stayed the subscription's newest transaction: its status and the paywall's ✓ said
    /// monthly, `currentEntitlements` yearly.
    @Test("an upgrade completed from a request older than the plan bought since: a new id, the subscription's newest")
    func upgradeFromOlderRequest() async throws {
        try await withLifecycleStore { fixture in
            let store = try fixture.open()
            guard case .pending(let request) = try await store.purchase("pro.yearly", choice: .interrupt) else {
                Issue.record("expected a pending purchase")
                return
            }
            let monthly = try await buy(store, "pro.monthly")
            fixture.clock.advance(by: day)
            let yearly = try await store.resolve(request.id)
            #expect(yearly.id > monthly.id && yearly.originalID == monthly.id)
            #expect(try await store.appStore.pendingRequests().isEmpty)
            #expect(try await status(store, "pro").transaction.id == yearly.id)
            #expect(try await store.currentEntitlements().map(\.productID) == ["pro.yearly"])
            let snapshot = try await store.app.snapshot()
            let owned = snapshot.products.filter { snapshot.standing(of: $0).ownership == .owned }.map(\.id)
            #expect(owned == ["pro.yearly"])
        }
    }

    @Test("an upgrade approved after a renewal fell due, nothing read since: the renewal is made first, then upgraded")
    func approvedUpgradeAfterUnreadRenewal() async throws {
        try await withLifecycleStore { fixture in
            let store = try fixture.open()
            let monthly = try await buy(store, "pro.monthly")
            try await store.setSetting("askToBuy", to: "true")
            guard case .pending(let request) = try await store.purchase("pro.yearly") else {
                Issue.record("expected a pending purchase")
                return
            }
            fixture.clock.set(utc(2025, 2, 20))  // the monthly renewal was due Feb 15
            let yearly = try await store.approve(request.id)
            #expect(yearly.originalID == monthly.id)
            let renewal = try #require(try await store.transactions().first { $0.reason == .renewal })
            #expect(renewal.purchaseDate == utc(2025, 2, 15, 12))
            #expect(renewal.isUpgraded, "the renewed month is the plan the upgrade replaced")
            #expect(try await store.currentEntitlements().map(\.id) == [yearly.id])
        }
    }

    @Test("a downgrade waits for the renewal: no transaction now, autoRenewPreference the lower plan, the renewal is for it")
    func downgrade() async throws {
        try await withLifecycleStore { fixture in
            let store = try fixture.open()
            let yearly = try await buy(store, "pro.yearly")
            fixture.clock.advance(by: 30 * day)
            let purchase = try await store.purchaseAndFinish("pro.monthly")
            #expect(try transaction(of: purchase.result).id == yearly.id, "the current plan is kept")
            #expect(purchase.alreadyOwned == false)
            guard case .changeScheduled(let change) = purchase.outcome else {
                Issue.record("expected a scheduled change, got \(purchase.outcome.name)")
                return
            }
            #expect(change.kind == .downgrade && change.isScheduled)
            #expect(change.toProductID == "pro.monthly")
            #expect(change.effectiveDate == yearly.expirationDate, "it starts when the current year ends")
            #expect(change.summary.contains("downgrade to pro.monthly takes effect at the next renewal, Jan 15, 2026"))
            #expect(try await store.transactions().map(\.id) == [yearly.id])
            #expect(try await store.currentEntitlements().map(\.productID) == ["pro.yearly"])
            let waiting = try await status(store, "pro")
            #expect(waiting.transaction.productID == "pro.yearly")
            #expect(waiting.renewalInfo.currentProductID == "pro.yearly")
            #expect(waiting.renewalInfo.autoRenewPreference == "pro.monthly")
            #expect(waiting.renewalInfo.willAutoRenew)
            #expect(waiting.renewalInfo.renewalPrice == decimal("5.99"))
            #expect(try await renewalPayload(store, waiting)["autoRenewProductId"] == .string("pro.monthly"))
            fixture.clock.set(utc(2026, 1, 20))
            let renewal = try #require(try await store.transactions().first)
            #expect(renewal.productID == "pro.monthly")
            #expect(renewal.reason == .renewal)
            #expect(renewal.originalID == yearly.id)
            #expect(renewal.purchaseDate == utc(2026, 1, 15, 12))
            #expect(renewal.expirationDate == utc(2026, 2, 15, 12))
            #expect(renewal.price == decimal("5.99"))
            #expect(renewal.offerType == nil)
            #expect(try await store.currentEntitlements().map(\.productID) == ["pro.monthly"])
        }
    }

    @Test("a crossgrade at the same level and period takes effect at once")
    func crossgradeSamePeriod() async throws {
        try await withLifecycleStore { fixture in
            let store = try fixture.open()
            let monthly = try await buy(store, "pro.monthly")
            fixture.clock.advance(by: day)
            let family = try await buy(store, "pro.family")
            #expect(family.productID == "pro.family")
            #expect(family.originalID == monthly.id)
            #expect(family.expirationDate == utc(2025, 2, 16, 12))
            #expect(try await store.transaction(id: monthly.id).isUpgraded)
            #expect(try await store.currentEntitlements().map(\.productID) == ["pro.family"])
        }
    }

    @Test("a crossgrade to another period waits for the renewal")
    func crossgradeOtherPeriod() async throws {
        try await withLifecycleStore { fixture in
            let store = try fixture.open()
            let monthly = try await buy(store, "pro.monthly")
            let purchase = try await store.purchaseAndFinish("pro.quarterly")
            #expect(try transaction(of: purchase.result).id == monthly.id)
            guard case .changeScheduled(let change) = purchase.outcome else {
                Issue.record("expected a scheduled change, got \(purchase.outcome.name)")
                return
            }
            #expect(change.kind == .crossgrade && change.effectiveDate == monthly.expirationDate)
            #expect(try await status(store, "pro").renewalInfo.autoRenewPreference == "pro.quarterly")
            fixture.clock.set(utc(2025, 2, 16))
            let renewal = try #require(try await store.transactions().first)
            #expect(renewal.productID == "pro.quarterly")
            #expect(renewal.purchaseDate == utc(2025, 2, 15, 12))
            #expect(renewal.expirationDate == utc(2025, 5, 15, 12))
        }
    }

    @Test("buying the current plan again cancels a waiting downgrade and turns auto-renew back on")
    func buyCurrentAgain() async throws {
        try await withLifecycleStore { fixture in
            let store = try fixture.open()
            let yearly = try await buy(store, "pro.yearly")
            _ = try await buy(store, "pro.monthly")
            #expect(try await status(store, "pro").renewalInfo.autoRenewPreference == "pro.monthly")
            let again = try await store.purchaseAndFinish("pro.yearly")
            #expect(again.alreadyOwned)
            #expect(try transaction(of: again.result).id == yearly.id)
            #expect(try await status(store, "pro").renewalInfo.autoRenewPreference == "pro.yearly")

            try await store.setAutoRenew(groupID: "pro", false)
            _ = try await buy(store, "pro.yearly")
            #expect(try await status(store, "pro").renewalInfo.willAutoRenew)
            fixture.clock.set(utc(2026, 1, 20))
            let renewal = try #require(try await store.transactions().first)
            #expect(renewal.productID == "pro.yearly")
            #expect(renewal.purchaseDate == utc(2026, 1, 15, 12))
        }
    }
}

// MARK: - Offers

@Suite("Subscriptions: introductory and promotional offers")
struct SubscriptionOfferTests {
    @Test("intro offer eligibility: once per group per account")
    func eligibility() async throws {
        try await withLifecycleStore { fixture in
            let store = try fixture.open()
            #expect(try await store.isEligibleForIntroOffer(groupID: "news"))
            #expect(try await store.isEligibleForIntroOffer(groupID: "pro"))
            let first = try await buy(store, "news.monthly")
            #expect(first.offerType == .introductory)
            #expect(try await !store.isEligibleForIntroOffer(groupID: "news"))
            #expect(try await store.isEligibleForIntroOffer(groupID: "pro"), "another group is untouched")
            // Lapsed: still not eligible; the next subscription in the group pays in full.
            try await store.expireSubscription(groupID: "news")
            #expect(try await !store.isEligibleForIntroOffer(groupID: "news"))
            let weekly = try await buy(store, "news.weekly")
            #expect(weekly.offerType == nil)
            #expect(weekly.price == decimal("0.99"))
            #expect(weekly.originalID == first.id, "a resubscription keeps the original id")
            #expect(try await fixture.open(account: "other@local").isEligibleForIntroOffer(groupID: "news"))
        }
    }

    @Test("a pay-as-you-go intro offer goes on at its price for its periods, then the regular price")
    func payAsYouGo() async throws {
        try await withLifecycleStore { fixture in
            let store = try fixture.open()
            let first = try await buy(store, "news.weekly")
            #expect(first.offerType == .introductory)
            #expect(first.price == decimal("0.49"))
            #expect(first.expirationDate == utc(2025, 1, 22, 12))
            fixture.clock.set(utc(2025, 2, 13))
            let history = try await store.transactions().reversed().map { $0 }
            #expect(history.map(\.purchaseDate) == [lifecycleStart, utc(2025, 1, 22, 12), utc(2025, 1, 29, 12),
                                                    utc(2025, 2, 5, 12), utc(2025, 2, 12, 12)])
            #expect(history.map(\.price) == ["0.49", "0.49", "0.49", "0.99", "0.99"].map(decimal))
            #expect(history.map(\.offerType) == [.introductory, .introductory, .introductory, nil, nil])
        }
    }

    @Test("a pay-up-front intro offer covers its whole period, then renews at the regular price")
    func payUpFront() async throws {
        try await withLifecycleStore { fixture in
            let store = try fixture.open()
            let first = try await buy(store, "news.monthly")
            #expect(first.offerType == .introductory)
            #expect(first.price == decimal("1.99"))
            #expect(first.expirationDate == utc(2025, 3, 15, 12))
            fixture.clock.set(utc(2025, 3, 16))
            let renewal = try #require(try await store.transactions().first)
            #expect(renewal.purchaseDate == utc(2025, 3, 15, 12))
            #expect(renewal.expirationDate == utc(2025, 4, 15, 12))
            #expect(renewal.price == decimal("2.99"))
            #expect(renewal.offerType == nil)
        }
    }

    @Test("a promotional offer: an unknown id is invalidOfferIdentifier; never subscribed is ineligibleForOffer")
    func promotionalRefused() async throws {
        try await withLifecycleStore { fixture in
            let store = try fixture.open()
            for id in ["nope", "a-code"] {  // an offer code is not a promotional offer
                #expect(await purchaseError { _ = try await store.purchase("pro.monthly", offerID: id) } == .invalidOfferIdentifier)
            }
            let signature = try await signedOffer(store, "pro.monthly", "comeback")
            #expect(await purchaseError {
                _ = try await store.purchase("pro.monthly", offerID: "comeback", offerSignature: signature)
            } == .ineligibleForOffer)
            #expect(try await store.transactions().isEmpty, "nothing is charged")
            #expect(try await store.events().last?.state == .failed)
        }
    }

    @Test("a lapsed subscriber redeems a promotional offer: offerType promotional, its id, signed, pay as you go for its periods")
    func promotionalRedeemed() async throws {
        try await withLifecycleStore { fixture in
            let store = try fixture.open()
            let first = try await buy(store, "pro.monthly")
            try await store.setAutoRenew(groupID: "pro", false)
            fixture.clock.set(utc(2025, 3, 1))
            #expect(try await status(store, "pro").state == .expired)
            let signature = try await signedOffer(store, "pro.monthly", "comeback")
            let promo = try transaction(of: try await store.purchase("pro.monthly", offerID: "comeback", offerSignature: signature))
            #expect(promo.offerType == .promotional)
            #expect(promo.offerID == "comeback")
            #expect(promo.price == decimal("2.99"))
            #expect(promo.originalID == first.id)
            #expect(promo.purchaseDate == utc(2025, 3, 1))
            #expect(promo.expirationDate == utc(2025, 4, 1))
            let payload = try await store.verify(jws: try #require(promo.jwsRepresentation)).payload
            #expect(payload["offerIdentifier"] == .string("comeback"))
            #expect(payload["offerType"] == .number("2"))
            #expect(try await status(store, "pro").renewalInfo.willAutoRenew, "resubscribing turns auto-renew on")
            fixture.clock.set(utc(2025, 5, 2))
            let history = try await store.transactions().prefix(3).reversed().map { $0 }
            #expect(history.map(\.price) == ["2.99", "2.99", "5.99"].map(decimal))
            #expect(history.map(\.offerID) == ["comeback", "comeback", nil])
            #expect(history.map(\.purchaseDate) == [utc(2025, 3, 1), utc(2025, 4, 1), utc(2025, 5, 1)])
        }
    }
}

// MARK: - Refunds

@Suite("Subscriptions: refunds")
struct SubscriptionRefundTests {
    @Test("a refunded subscription is revoked at once and never renews")
    func refund() async throws {
        try await withLifecycleStore { fixture in
            let store = try fixture.open()
            let bought = try await buy(store, "pro.monthly")
            fixture.clock.advance(by: 3 * day)
            try await store.refund(bought.id)
            #expect(try await !store.isEntitled(to: "pro.monthly"))
            let revoked = try await status(store, "pro")
            #expect(revoked.state == .revoked)
            #expect(revoked.renewalInfo.willAutoRenew == false)
            fixture.clock.set(utc(2025, 6, 1))
            #expect(try await store.transactions().map(\.id) == [bought.id])
            #expect(try await status(store, "pro").state == .revoked)
        }
    }
}
