import StorefrontKit
import StorefrontKitTest
import Synchronization
import Testing

/// Product.PurchaseOption's StoreKit 2 options, as a purchase takes them.
@Suite struct PurchaseOptionTests {
    @Test func simulatesAskToBuyMakesThePurchaseWaitForAParent() async throws {
        try await inSession { session in
            #expect(!session.askToBuyEnabled)
            guard case .pending = try await product(ID.goPro).purchase(options: [.simulatesAskToBuyInSandbox(true)]) else {
                Issue.record("expected pending"); return
            }
            #expect(try await firstPendingRequest() != nil)
            guard case .success = try await product(ID.coins).purchase(options: [.simulatesAskToBuyInSandbox(false)]) else {
                Issue.record("false follows the settings: bought"); return
            }
        }
    }

    @Test func customOptionsHaveNoEffect() async throws {
        try await inSession { _ in
            let options: Set<Product.PurchaseOption> = [.custom(key: "a", value: "x"), .custom(key: "a", value: "x"),
                                                        .custom(key: "b", value: 1.5), .custom(key: "c", value: true),
                                                        .custom(key: "d", value: Data([1]))]
            #expect(options.count == 4)
            let bought = try await buy(ID.coins, options: options)
            #expect(bought.productID == ID.coins && bought.purchasedQuantity == 1)
        }
    }

    @Test func onStorefrontChangeDecidesWhetherThePurchaseGoesOn() async throws {
        try await inSession { session in
            let loadedInUSA = try await product(ID.coins)
            session.storefront = "DEU"
            let asked = Mutex<[String]>([])
            await #expect(throws: Product.PurchaseError.productUnavailable) {
                _ = try await loadedInUSA.purchase(options: [.onStorefrontChange { storefront in
                    asked.withLock { $0.append(storefront.countryCode) }
                    return false
                }])
            }
            #expect(asked.withLock { $0 } == ["DEU"])
            guard case .success(let result) = try await loadedInUSA.purchase(options: [.onStorefrontChange { _ in true }]) else {
                Issue.record("expected success"); return
            }
            #expect(try result.payloadValue.storefront.countryCode == "DEU")
            let loadedInGermany = try await product(ID.coins)
            guard case .success = try await loadedInGermany.purchase(options: [.onStorefrontChange { _ in false }]) else {
                Issue.record("no change: not asked"); return
            }
        }
    }

    @Test func promotionalOfferWithASignatureValue() async throws {
        try await inSession { session in
            _ = try await store().appStore.createOfferKey(keyID: "KIT")
            try await buy(ID.monthly)
            try session.expireSubscription(productIdentifier: ID.monthly)
            let yearly = try await product(ID.yearly)
            let signed = try await store().appStore.signPromotionalOffer(productID: ID.yearly, offerID: "annual_comeback", form: .legacy)
            guard case .legacy(let keyID, let nonce, let timestamp, let base64) = signed else { Issue.record("form"); return }
            let bytes = try #require(Data(base64Encoded: base64))
            let wrong = Product.SubscriptionOffer.Signature(keyID: keyID, nonce: UUID(), timestamp: Int(timestamp), signature: bytes)
            await #expect(throws: Product.PurchaseError.invalidOfferSignature) {
                _ = try await yearly.purchase(options: [.promotionalOffer(offerID: "annual_comeback", signature: wrong)])
            }
            let right = Product.SubscriptionOffer.Signature(keyID: keyID, nonce: nonce, timestamp: Int(timestamp), signature: bytes)
            let bought = try await buy(ID.yearly, options: [.promotionalOffer(offerID: "annual_comeback", signature: right)])
            #expect(bought.offerID == "annual_comeback" && bought.offerType == .promotional)
        }
    }

    @Test func introductoryOfferEligibilityNeedsASignedJWSForTheProduct() async throws {
        try await inSession { _ in
            let monthly = try await product(ID.monthly)
            await #expect(throws: Product.PurchaseError.invalidOfferSignature) {
                _ = try await monthly.purchase(options: [.introductoryOfferEligibility(compactJWS: "not.a.jws")])
            }
            let forAnother = try await eligibilityJWS(productID: ID.yearly, allow: true)
            await #expect(throws: Product.PurchaseError.invalidOfferSignature) {
                _ = try await monthly.purchase(options: [.introductoryOfferEligibility(compactJWS: forAnother)])
            }
            #expect(await monthly.subscription?.isEligibleForIntroOffer == true, "never subscribed")
            let refused = try await eligibilityJWS(productID: ID.monthly, allow: false)
            let full = try await buy(ID.monthly, options: [.introductoryOfferEligibility(compactJWS: refused)])
            #expect(full.offerType == nil && full.price == Decimal(string: "4.99"), "the server said no free trial")
        }
    }

    @Test func introductoryOfferEligibilityCanGrantTheOfferAgain() async throws {
        try await inSession { session in
            try await buy(ID.monthly)
            try session.expireSubscription(productIdentifier: ID.monthly)
            let monthly = try await product(ID.monthly)
            #expect(await monthly.subscription?.isEligibleForIntroOffer == false, "subscribed before")
            let granted = try await eligibilityJWS(productID: ID.monthly, allow: true)
            let trial = try await buy(ID.monthly, options: [.introductoryOfferEligibility(compactJWS: granted)])
            #expect(trial.offerType == .introductory && trial.offer?.paymentMode == .freeTrial && trial.price == 0)
        }
    }
}
