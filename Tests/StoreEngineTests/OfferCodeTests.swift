import Foundation
import Testing
@testable import StoreEngine

/// Offer codes: one-time and custom codes, limits, eligibility and expiry, redeemed as the
/// App Store's sheet does.
@Suite("offer codes")
struct OfferCodeTests {
    static let catalogText = """
        {
          "storefront": "USA",
          "subscriptionGroups": [
            { "id": "pro", "displayName": "Pro", "subscriptions": [
              { "id": "pro.monthly", "displayName": "Monthly", "price": "5.99", "period": "P1M", "level": 1,
                "offers": [
                  { "type": "code", "id": "spring", "referenceName": "Spring 2025", "paymentMode": "freeTrial", "period": "P1M",
                    "oneTimeCodes": ["ONE1", "ONE2"], "customCodes": ["SPRING"], "redemptionLimit": 2,
                    "eligibility": ["new", "expired"], "expires": "2025-06-01T00:00:00Z" },
                  { "type": "code", "id": "loyal", "paymentMode": "payAsYouGo", "period": "P1M", "periodCount": 2, "price": "1.99",
                    "customCodes": ["LOYAL"], "eligibility": ["existing"] },
                  { "type": "code", "id": "plain", "paymentMode": "payUpFront", "period": "P3M", "price": "9.99" }
                ] } ] }
          ]
        }
        """

    func withCodeStore<T>(_ body: (StoreFixture) async throws -> T) async throws -> T {
        try await withStoreFixture(catalogText: Self.catalogText, file: "codes.json", at: utc(2025, 3, 1), body)
    }

    func redeemError(_ store: Store, _ code: String) async -> SimulatedError? {
        await purchaseError { _ = try await store.appStore.redeemOfferCode(code) }
    }

    @Test("a one-time code makes a code transaction, reaching the app as an update; used twice it fails")
    func oneTime() async throws {
        try await withCodeStore { fixture in
            let store = try fixture.open()
            let transaction = try transaction(of: try await store.appStore.redeemOfferCode("one1"))
            #expect(transaction.offerType == .code && transaction.offerID == "Spring 2025")
            #expect(transaction.offerPaymentMode == .freeTrial && transaction.offerPeriod == ISODuration(months: 1))
            #expect(transaction.price == 0 && transaction.expirationDate == utc(2025, 4, 1))
            #expect(!transaction.isFinished, "the app gets it as an update")
            let payload = try await store.app.verify(jws: try #require(transaction.jwsRepresentation)).payload
            #expect(payload["offerType"] == .integer(3) && payload["offerIdentifier"] == .string("Spring 2025"))
            #expect(payload["offerDiscountType"] == .string("FREE_TRIAL"))
            #expect(try await store.app.unfinished().map(\.id) == [transaction.id])
            let other = try fixture.open(account: "other@local")
            #expect(await redeemError(other, "ONE1") == .ineligibleForOffer, "a one-time code is used up")
            #expect(try await store.notifications(NotificationFilter(type: "OFFER_REDEEMED"), after: nil, limit: 10).count == 1)
        }
    }

    @Test("unknown and expired codes are invalidOfferIdentifier; per-customer and custom limits, eligibility: ineligibleForOffer")
    func refusals() async throws {
        try await withCodeStore { fixture in
            let store = try fixture.open()
            #expect(await redeemError(store, "NOPE") == .invalidOfferIdentifier)
            #expect(await redeemError(store, "LOYAL") == .ineligibleForOffer, "for existing subscribers only")
            _ = try await store.appStore.redeemOfferCode("SPRING")
            #expect(await redeemError(store, "ONE2") == .ineligibleForOffer, "once per customer")
            _ = try await fixture.open(account: "b@local").appStore.redeemOfferCode("spring")
            #expect(await redeemError(try fixture.open(account: "c@local"), "SPRING") == .ineligibleForOffer, "limit of 2")
            fixture.clock.set(utc(2025, 6, 1))
            #expect(await redeemError(try fixture.open(account: "d@local"), "ONE2") == .invalidOfferIdentifier, "expired")
            #expect(try await store.transactions().filter { $0.offerType == .code }.count == 1, "nothing else redeemed")
        }
    }

    @Test("an existing subscriber's code applies at the next renewal; codes without a list redeem by id")
    func existingAtRenewal() async throws {
        try await withCodeStore { fixture in
            let store = try fixture.open()
            _ = try await store.appStore.redeemOfferCode("PLAIN")
            let outcome = try await store.appStore.redeemOfferCode("loyal")
            guard case .changeScheduled = outcome else { Issue.record("expected scheduled, got \(outcome.name)"); return }
            fixture.clock.set(utc(2025, 6, 2))
            let renewal = try #require(try await store.transactions().first)
            #expect(renewal.offerType == .code && renewal.offerID == "loyal" && renewal.price == decimal("1.99"))
        }
    }

    @Test("products.json keeps the codes through catalog convert")
    func roundTrip() throws {
        let catalog = try Catalog.parse(Array(Self.catalogText.utf8), file: "codes.json")
        let again = try Catalog.parse(Array(catalog.productsJSON().document.serialized().utf8), file: "again.json")
        #expect(again == catalog)
        let codes = try #require(catalog.products.first?.subscription?.offers.first?.codes)
        #expect(codes.oneTimeCodes == ["ONE1", "ONE2"] && codes.redemptionLimit == 2 && codes.eligibility == [.new, .expired])
    }
}
