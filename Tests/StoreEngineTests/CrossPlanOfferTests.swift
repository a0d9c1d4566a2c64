import Foundation
import Testing
@testable import StoreEngine

/// Offers for another plan of the group than the one the customer is on: an offer code and a
/// promotional offer for the lower, monthly plan, redeemed while on the yearly one.
@Suite("offers for another plan of the group, redeemed while subscribed")
struct CrossPlanOfferTests {
    static let catalogText = """
        {
          "storefront": "USA",
          "subscriptionGroups": [
            { "id": "pro", "displayName": "Pro", "subscriptions": [
              { "id": "pro.yearly", "displayName": "Yearly", "price": "49.99", "period": "P1Y", "level": 1 },
              { "id": "pro.monthly", "displayName": "Monthly", "price": "5.99", "period": "P1M", "level": 2,
                "offers": [
                  { "type": "code", "id": "half", "referenceName": "Half price", "paymentMode": "payAsYouGo", "period": "P1M",
                    "periodCount": 2, "price": "2.99", "customCodes": ["HALF"], "eligibility": ["existing"] },
                  { "type": "promotional", "id": "stay", "paymentMode": "payAsYouGo", "period": "P1M", "periodCount": 2, "price": "1.99" }
                ] } ] }
          ]
        }
        """

    func withPlans<T>(_ body: (StoreFixture) async throws -> T) async throws -> T {
        try await withTemporaryFolder { folder in
            let catalog = try Catalog.parse(Array(Self.catalogText.utf8), file: "plans.json")
            return try await body(StoreFixture(folder: folder, path: folder + "/store.sqlite", catalog: catalog,
                                               clock: TestClock(utc(2025, 3, 10, 12))))
        }
    }

    /// The renewals after the year: the plan and price of each.
    func renewals(_ store: Store, _ fixture: StoreFixture, through date: Date) async throws -> [String] {
        fixture.clock.set(date)
        return try await store.app.transactions().reversed().dropFirst().map { "\($0.productID) \($0.price) \($0.offerType?.rawValue ?? "-")" }
    }

    @Test("an offer code for the lower plan: OFFER_REDEEMED DOWNGRADE, the year runs out, the monthly plan renews at the code's price")
    func offerCodeForLowerPlan() async throws {
        try await withPlans { fixture in
            let store = try fixture.open()
            let yearly = try await buy(store, "pro.yearly")
            fixture.clock.advance(by: 3600)
            let since = fixture.clock.now
            let outcome = try await store.appStore.redeemOfferCode("half")
            guard case .changeScheduled(let change) = outcome else {
                Issue.record("expected a scheduled change, got \(outcome.name)")
                return
            }
            #expect(change.toProductID == "pro.monthly" && change.offerID == "Half price")
            #expect(change.current.id == yearly.id)
            #expect(change.summary.contains("pro.monthly with offer Half price"))
            #expect(try await notificationNames(store, since: since) == ["OFFER_REDEEMED DOWNGRADE"])
            let info = try await status(store, "pro").renewalInfo
            #expect(info.autoRenewPreference == "pro.monthly")
            #expect(info.offerType == .code && info.offerID == "Half price" && info.renewalPrice == decimal("2.99"))
            #expect(try await renewals(store, fixture, through: utc(2026, 5, 11)) == [
                "pro.monthly 2.99 code", "pro.monthly 2.99 code", "pro.monthly 5.99 -",
            ])
            // Used once: the customer's limit (one) is reached.
            #expect(await purchaseError { _ = try await store.appStore.redeemOfferCode("HALF") } == .ineligibleForOffer)
        }
    }

    @Test("a promotional offer for the lower plan is applied at the renewal into it, and its nonce is used once")
    func promotionalOfferForLowerPlan() async throws {
        try await withPlans { fixture in
            let store = try fixture.open()
            _ = try await buy(store, "pro.yearly")
            fixture.clock.advance(by: 3600)
            let signature = try await signedOffer(store, "pro.monthly", "stay")
            let since = fixture.clock.now
            let outcome = try await store.purchase("pro.monthly", offerID: "stay", offerSignature: signature)
            #expect(outcome.name == "changeScheduled")
            #expect(try await notificationNames(store, since: since) == ["OFFER_REDEEMED DOWNGRADE"])
            #expect(try await renewals(store, fixture, through: utc(2026, 4, 11)) == ["pro.monthly 1.99 promotional", "pro.monthly 1.99 promotional"])
            #expect(await purchaseError { _ = try await store.purchase("pro.monthly", offerID: "stay", offerSignature: signature) }
                    == .invalidOfferSignature)
        }
    }

    @Test("a refused purchase does not use up the promotional offer's nonce: the same signature works once it is accepted")
    func refusedKeepsNonce() async throws {
        try await withPlans { fixture in
            let store = try fixture.open()
            _ = try await buy(store, "pro.yearly")
            let signature = try await signedOffer(store, "pro.monthly", "stay")
            try await store.setSetting("purchaseError", to: "unknown")
            await #expect(throws: StoreError.self, "refused with the simulated StoreKit error") {
                _ = try await store.purchase("pro.monthly", offerID: "stay", offerSignature: signature)
            }
            try await store.setSetting("purchaseError", to: "none")
            let outcome = try await store.purchase("pro.monthly", offerID: "stay", offerSignature: signature)
            #expect(outcome.name == "changeScheduled")
            #expect(try await status(store, "pro").renewalInfo.offerID == "stay")
        }
    }
}
