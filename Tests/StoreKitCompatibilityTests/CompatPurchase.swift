import StorefrontKit

// PurchaseIntent.intents; Product.PurchaseOption.simulatesAskToBuyInSandbox, custom(key:value:),
// onStorefrontChange, promotionalOffer(offerID:signature:), introductoryOfferEligibility(compactJWS:).
enum PromotedPurchases {
    static func listen() async {
        for await purchaseIntent in PurchaseIntent.intents {
            _ = try? await purchaseIntent.product.purchase()
            if let offer = purchaseIntent.offer { _ = try? await purchaseIntent.product.purchase(options: [.winBackOffer(offer)]) }
        }
    }

    static func buy(_ product: Product, signature: Product.SubscriptionOffer.Signature, eligibility: String) async throws
        -> Product.PurchaseResult {
        var options: Set<Product.PurchaseOption> = [
            .simulatesAskToBuyInSandbox(true),
            .custom(key: "campaign", value: "spring"),
            .custom(key: "score", value: 4.5),
            .custom(key: "returning", value: true),
            .custom(key: "payload", value: Data([1, 2, 3])),
            .onStorefrontChange { storefront in storefront.countryCode == "USA" },
            .introductoryOfferEligibility(compactJWS: eligibility),
        ]
        options.insert(.promotionalOffer(offerID: "annual_comeback", signature: signature))
        return try await product.purchase(options: options)
    }

    static func signature(keyID: String, nonce: UUID, timestamp: Int, base64: String) -> Product.SubscriptionOffer.Signature? {
        guard let bytes = Data(base64Encoded: base64) else { return nil }
        return Product.SubscriptionOffer.Signature(keyID: keyID, nonce: nonce, timestamp: timestamp, signature: bytes)
    }
}
