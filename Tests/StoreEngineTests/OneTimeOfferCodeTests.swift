import Foundation
import Testing
@testable import StoreEngine

/// Offer codes for consumables and non-consumables (Apple's offer codes for In-App Purchases):
/// redeemed at the offer's price, signed with `offerType` 3 and `offerDiscountType` `ONE_TIME`.
@Suite("offer codes for one-time products")
struct OneTimeOfferCodeTests {
    static let catalogText = """
        {
          "storefront": "USA",
          "products": [
            { "id": "coins.100", "type": "consumable", "displayName": "100 Coins", "price": "0.99",
              "offers": [ { "type": "code", "id": "coins.half", "referenceName": "Half coins", "price": "0.49",
                            "customCodes": ["COINS50"], "eligibility": ["new"] } ] },
            { "id": "pro.lifetime", "type": "nonConsumable", "displayName": "Pro", "price": "19.99",
              "offers": [ { "type": "code", "id": "pro.free", "price": "0", "oneTimeCodes": ["PROFREE1", "PROFREE2"] } ] }
          ]
        }
        """

    static let storeKitText = """
        { "identifier" : "C0DE0FF1", "nonRenewingSubscriptions" : [], "settings" : { "_storefront" : "USA" },
          "products" : [
            { "codeOffers" : [ { "displayPrice" : "0.49", "eligibility" : [ "new" ], "internalID" : "7F00AA01",
                                 "offerID" : "COINS50", "referenceName" : "Half coins" } ],
              "displayPrice" : "0.99", "familyShareable" : false, "internalID" : "7F00AA00",
              "localizations" : [ { "description" : "", "displayName" : "100 Coins", "locale" : "en_US" } ],
              "productID" : "coins.100", "referenceName" : "Coins", "type" : "Consumable" } ],
          "subscriptionGroups" : [], "version" : { "major" : 4, "minor" : 0 } }
        """

    @Test("a consumable's and a non-consumable's codes are read from products.json and .storekit, kept by convert; other offers refused")
    func catalog() throws {
        let catalog = try Catalog.parse(Array(Self.catalogText.utf8), file: "codes.json")
        let coins = try #require(catalog.product(id: "coins.100"))
        #expect(coins.offerCodes.map(\.codeOfferID) == ["Half coins"] && coins.offerCodes.first?.price == decimal("0.49"))
        #expect(catalog.product(id: "pro.lifetime")?.codeOffers.first?.redemptionCodes == ["PROFREE1", "PROFREE2"])
        let back = try Catalog.parse(Array(catalog.productsJSON().document.serialized().utf8), file: "converted.json")
        #expect(back == catalog)
        let storeKit = try Catalog.parse(Array(Self.storeKitText.utf8), file: "Codes.storekit")
        let read = try #require(storeKit.product(id: "coins.100")?.offerCodes.first)
        #expect(read.codeOfferID == "Half coins" && read.price == decimal("0.49") && read.paymentMode == nil && read.redeems("coins50"))
        #expect(read.codes?.eligibility == [.new])
        // A promotional offer, or a period, on a one-time product is refused, naming the place.
        for (offer, words) in [(#"{ "type": "promotional", "id": "p", "price": "0.49" }"#, "offers are offer codes"),
                               (#"{ "type": "code", "id": "c", "price": "0.49", "period": "P1M" }"#, "price only"),
                               (#"{ "type": "code", "id": "c", "customCodes": ["C"] }"#, "needs its \"price\"")] {
            let text = #"{ "storefront": "USA", "products": [ { "id": "c", "type": "consumable", "displayName": "C", "price": "1", "offers": [ \#(offer) ] } ] }"#
            #expect(throws: (any Error).self) { try Catalog.parse(Array(text.utf8), file: "bad.json") }
            do { _ = try Catalog.parse(Array(text.utf8), file: "bad.json") } catch {
                #expect("\(error)".contains("bad.json") && "\(error)".contains(words), "\(error)")
            }
        }
    }

    @Test("redeemed: a code transaction at the offer's price, offerType 3 and ONE_TIME; eligibility by purchases in the app; an owned non-consumable is refused")
    func redeem() async throws {
        try await withStoreFixture(catalogText: Self.catalogText, file: "codes.json", at: utc(2025, 3, 1)) { fixture in
            let store = try fixture.open()
            let coins = try transaction(of: try await store.appStore.redeemOfferCode("coins50"))
            #expect(coins.productID == "coins.100" && coins.offerType == .code && coins.offerID == "Half coins")
            #expect(coins.price == decimal("0.49") && coins.offerPaymentMode == nil && coins.offerDiscountType == "ONE_TIME")
            let payload = try await store.app.verify(jws: try #require(coins.jwsRepresentation)).payload
            #expect(payload["offerType"] == .integer(3) && payload["offerIdentifier"] == .string("Half coins"))
            #expect(payload["offerDiscountType"] == .string("ONE_TIME") && payload["offerPeriod"] == nil)
            #expect(payload["price"] == .integer(490))
            // COINS50 is for customers who never bought in the app: this one has now.
            let other = try fixture.open(account: "other@local")
            #expect(await purchaseError { _ = try await store.appStore.redeemOfferCode("COINS50") } == .ineligibleForOffer)
            let pro = try transaction(of: try await other.appStore.redeemOfferCode("PROFREE1"))
            #expect(pro.productID == "pro.lifetime" && pro.price == 0 && pro.offerID == "pro.free")
            // A customer who owns the non-consumable cannot spend a code on it.
            let owner = try fixture.open(account: "owner@local")
            _ = try transaction(of: try await owner.app.purchase("pro.lifetime"))
            #expect(await purchaseError { _ = try await owner.appStore.redeemOfferCode("PROFREE2") } == .ineligibleForOffer)
            #expect(try await owner.transactions().count == 1)
        }
    }
}
