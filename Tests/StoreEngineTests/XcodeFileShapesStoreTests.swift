import Foundation
import Testing
@testable import StoreEngine

// Stores on small .storekit files with the shapes a second corpus of real files showed,
// written for these tests: what the store sells, signs and redeems from them.

/// A version 5 file of one group whose subscriptions are `subscriptions` (JSON objects' members).
private func storeKitFile(_ subscriptions: [String], extra: String = "") -> String {
    let list = subscriptions.enumerated().map { index, members in
        """
        { "displayPrice" : "9.99", "familyShareable" : false, "groupNumber" : 1, "internalID" : "80\(index)",
          "localizations" : [ { "description" : "", "displayName" : "Plan \(index)", "locale" : "en_US" } ],
          "productID" : "plan.\(index)", "referenceName" : "Plan \(index)",
          "subscriptionGroupID" : "g\(index)", "type" : "RecurringSubscription", \(members) }
        """
    }
    // Each subscription in a group of its own, so one account can hold them all.
    let groups = list.enumerated().map { index, subscription in
        #"{ "id" : "g\#(index)", "localizations" : [], "name" : "Group \#(index)", "subscriptions" : [ \#(subscription) ] }"#
    }
    return """
        { "identifier" : "B1C2D3E4", "products" : [], "settings" : { "_storefront" : "USA" },
          "subscriptionGroups" : [ \(groups.joined(separator: ",\n")) ],\(extra)
          "version" : { "major" : 5, "minor" : 0 } }
        """
}

private func withShapeStore<T>(_ text: String, _ body: (StoreFixture) async throws -> T) async throws -> T {
    try await withStoreFixture(catalog: try Catalog.parse(Array(text.utf8), file: "Shapes.storekit"), at: utc(2025, 3, 1), body)
}

@Suite("Stores on Xcode's newer file shapes")
struct XcodeFileShapesStoreTests {
    @Test("a monthly plan turned off (isEnabled false) is not bought: the purchase on it is productUnavailable; up front sells")
    func disabledMonthlyPlan() async throws {
        let text = storeKitFile([#"""
            "recurringSubscriptionPeriod" : "P1Y",
            "billingPlans" : [ { "billingPlanType" : "BILLED_UPFRONT", "displayPrice" : "9.99", "isEnabled" : true },
                               { "billingPlanType" : "MONTHLY", "commitmentDisplayPrice" : "11.88", "displayPrice" : "0.99", "isEnabled" : false } ]
            """#])
        try await withShapeStore(text) { fixture in
            let store = try fixture.open()
            #expect(await purchaseError { _ = try await store.app.purchase("plan.0", billingPlanType: .monthly) } == .productUnavailable)
            #expect(try await store.transactions().isEmpty)
            #expect(try await store.app.products().first?.subscription?.pricingTerms.map(\.billingPlanType) == [.billedUpfront])
            let bought = try await buy(store, "plan.0")
            #expect(bought.price == decimal("9.99") && bought.commitment == nil)
        }
    }

    @Test("the up-front plan turned off (isEnabled false) is not bought: a purchase billed up front is productUnavailable; the monthly plan sells")
    func disabledUpfrontPlan() async throws {
        let text = storeKitFile([#"""
            "recurringSubscriptionPeriod" : "P1Y",
            "billingPlans" : [ { "billingPlanType" : "BILLED_UPFRONT", "displayPrice" : "9.99", "isEnabled" : false },
                               { "billingPlanType" : "MONTHLY", "commitmentDisplayPrice" : "11.88", "displayPrice" : "0.99", "isEnabled" : true } ]
            """#])
        let catalog = try Catalog.parse(Array(text.utf8), file: "Shapes.storekit")
        #expect(catalog.product(id: "plan.0")?.subscription?.isBilledUpfrontOnSale == false)
        // Written as products.json and read again, the plan stays off.
        let converted = try Catalog.parse(Array(catalog.productsJSON().document.serialized(pretty: false).utf8), file: "converted.json")
        #expect(converted.product(id: "plan.0")?.subscription?.isBilledUpfrontOnSale == false)
        try await withShapeStore(text) { fixture in
            let store = try fixture.open()
            #expect(await purchaseError { _ = try await store.app.purchase("plan.0") } == .productUnavailable)
            #expect(try await store.transactions().isEmpty)
            #expect(try await store.app.products().first?.subscription?.pricingTerms.map(\.billingPlanType) == [.monthly])
            let bought = try #require(try await store.app.purchase("plan.0", billingPlanType: .monthly).transaction)
            #expect(bought.price == decimal("0.99") && bought.commitment?.billingPeriodNumber == 1)
        }
    }

    @Test("a monthly plan's own introductory offer (introductoryOffers, one per plan) is applied, priced and signed when bought monthly; up front keeps its own")
    func monthlyPlanIntroductoryOffer() async throws {
        let text = storeKitFile([#"""
            "recurringSubscriptionPeriod" : "P1Y",
            "billingPlans" : [ { "billingPlanType" : "BILLED_UPFRONT", "displayPrice" : "99.99", "isEnabled" : true },
                               { "billingPlanType" : "MONTHLY", "commitmentDisplayPrice" : "119.88", "displayPrice" : "9.99", "isEnabled" : true } ],
            "introductoryOffers" : [
              { "billingPlanType" : "BILLED_UPFRONT", "paymentMode" : "free", "subscriptionPeriod" : "P2W" },
              { "billingPlanType" : "MONTHLY", "displayPrice" : "4.99", "numberOfPeriods" : 2, "paymentMode" : "payAsYouGo", "subscriptionPeriod" : "P1M" } ]
            """#])
        try await withShapeStore(text) { fixture in
            let store = try fixture.open()
            let first = try #require(try await store.app.purchase("plan.0", billingPlanType: .monthly).transaction)
            #expect(first.price == decimal("4.99") && first.offerType == .introductory && first.offerPaymentMode == .payAsYouGo)
            #expect(first.offerPeriod == ISODuration(months: 2), "the offer's whole length")
            #expect(first.expirationDate == utc(2025, 4, 1) && first.commitment?.billingPeriodNumber == 1)
            #expect(first.commitment?.commitmentPrice == decimal("119.88"))
            let payload = try await store.verify(jws: try #require(first.jwsRepresentation)).payload
            #expect(payload["offerType"] == .integer(1) && payload["offerDiscountType"] == .string("PAY_AS_YOU_GO"))
            #expect(payload["price"] == .integer(4_990) && payload["billingPlanType"] == .string("MONTHLY"))
            // The renewal info says the next month is the offer's too; after it, the commitment's price.
            var info = try await renewalPayload(store, "g0")
            #expect(info["renewalPrice"] == .integer(4_990) && info["offerType"] == .integer(1))
            fixture.clock.set(utc(2025, 4, 15))
            info = try await renewalPayload(store, "g0")
            #expect(info["renewalPrice"] == .integer(9_990) && info["offerType"] == nil)
            // The offer's second period, then the commitment's own price for the rest of it.
            fixture.clock.set(utc(2025, 5, 15))
            let months = try await store.transactions().reversed().map { $0 }
            #expect(months.map { $0.commitment?.billingPeriodNumber } == [1, 2, 3])
            #expect(months.map(\.price) == [decimal("4.99"), decimal("4.99"), decimal("9.99")])
            #expect(months.map(\.offerType) == [.introductory, .introductory, nil])
            // Bought up front by another customer: the up-front plan's own offer, a two-week free trial.
            let other = try fixture.open(account: "other")
            let upFront = try #require(try await other.app.purchase("plan.0").transaction)
            #expect(upFront.price == 0 && upFront.offerPaymentMode == .freeTrial && upFront.commitment == nil)
            #expect(upFront.expirationDate == utc(2025, 5, 29))
        }
    }

    @Test("subscriptionOffersKeyPair signs and checks promotional offers with no offer-keys add; it is listed as the catalog's")
    func catalogOfferKey() async throws {
        let key = try SigningKey.generate().privateKeyPEM.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()
        let text = storeKitFile([#"""
            "recurringSubscriptionPeriod" : "P1M",
            "adHocOffers" : [ { "displayPrice" : "1.99", "offerID" : "comeback", "paymentMode" : "payUpFront", "subscriptionPeriod" : "P1M" } ]
            """#], extra: #" "subscriptionOffersKeyPair" : { "id" : "5C6D7E8F", "privateKey" : "\#(key)" },"#)
        try await withShapeStore(text) { fixture in
            let store = try fixture.open()
            let keys = try await store.appStore.offerKeys()
            #expect(keys.map(\.keyID) == ["5C6D7E8F"] && keys.allSatisfy { $0.isFromCatalog && $0.canSign })
            _ = try await buy(store, "plan.0")
            try await store.setAutoRenew(groupID: "g0", false)
            fixture.clock.set(utc(2025, 4, 15))
            let signature = try await store.appStore.signPromotionalOffer(productID: "plan.0", offerID: "comeback", keyID: nil,
                                                                          appAccountToken: nil, form: .legacy)
            let promo = try transaction(of: try await store.purchase("plan.0", offerID: "comeback", offerSignature: signature))
            #expect(promo.offerType == .promotional && promo.price == decimal("1.99"))
            // Nothing was written into the store file: without the catalog's key, the key is unknown.
            #expect(try await fixture.open().appStore.offerKeys().count == 1)
            await #expect(throws: OfferKeyError.self) { _ = try await store.appStore.removeOfferKey("5C6D7E8F") }
        }
    }

    @Test("a catalog key that is no P-256 key is named in the error of signing")
    func badCatalogOfferKey() async throws {
        let text = storeKitFile([#""recurringSubscriptionPeriod" : "P1M""#],
                                extra: #" "subscriptionOffersKeyPair" : { "id" : "BAD1", "privateKey" : "AAAA" },"#)
        try await withShapeStore(text) { fixture in
            let store = try fixture.open()
            do {
                _ = try await store.appStore.signPromotionalOffer(productID: "plan.0", offerID: "x", keyID: nil,
                                                                  appAccountToken: nil, form: .compactJWS)
                Issue.record("signed with a bad key")
            } catch let error as OfferKeyError {
                #expect(error.description.contains("subscriptionOffersKeyPair BAD1"))
            }
        }
    }

    @Test("codes differing only by case each redeem their own offer; a shared code goes to the first offer the customer may redeem")
    func ambiguousCodes() async throws {
        let text = storeKitFile([
            #""recurringSubscriptionPeriod" : "P1M", "codeOffers" : [ { "offerID" : "a", "paymentMode" : "free", "referenceName" : "SPRING", "subscriptionPeriod" : "P1M" } ]"#,
            #""recurringSubscriptionPeriod" : "P1M", "codeOffers" : [ { "offerID" : "b", "paymentMode" : "free", "referenceName" : "spring", "subscriptionPeriod" : "P2M" } ]"#,
            #""recurringSubscriptionPeriod" : "P1M", "codeOffers" : [ { "offerID" : "shared", "paymentMode" : "free", "referenceName" : "Press C", "subscriptionPeriod" : "P1M" } ]"#,
            #""recurringSubscriptionPeriod" : "P1M", "codeOffers" : [ { "offerID" : "shared", "paymentMode" : "free", "referenceName" : "Press D", "subscriptionPeriod" : "P1M" } ]"#,
        ])
        try await withShapeStore(text) { fixture in
            #expect(fixture.catalog.notes.filter { $0.contains("is ambiguous") }.count == 2)
            let store = try fixture.open()
            #expect(try transaction(of: try await store.appStore.redeemOfferCode("spring")).productID == "plan.1")
            #expect(try transaction(of: try await store.appStore.redeemOfferCode("SPRING")).productID == "plan.0")
            // "shared" (the id of plan.2's and plan.3's offers): once per customer each, so the second goes to plan.3.
            #expect(try transaction(of: try await store.appStore.redeemOfferCode("shared")).productID == "plan.2")
            #expect(try transaction(of: try await store.appStore.redeemOfferCode("shared")).productID == "plan.3")
            #expect(await purchaseError { _ = try await store.appStore.redeemOfferCode("shared") } == .ineligibleForOffer)
        }
    }
}
