import StorefrontKit
import StorefrontKitTest
import Testing

/// Purchases started outside the app, as PurchaseIntent.intents hands them to the app.
@Suite(.serialized) struct PurchaseIntentTests {
    @Test func aPromotedPurchaseArrivesAndTheAppCompletesIt() async throws {
        try await inSession { _ in
            let intents = PurchaseIntent.intents
            async let first = firstElement(of: intents, within: 120)
            try await Task.sleep(for: .milliseconds(300))
            PurchaseIntent.send(productID: "no.such.product")
            PurchaseIntent.send(productID: ID.goPro)
            let intent = try #require(await first)
            #expect(intent.id == ID.goPro && intent.product.id == ID.goPro && intent.offer == nil, "an unknown product is dropped")
            guard case .success(let result) = try await intent.product.purchase() else { Issue.record("not bought"); return }
            #expect(try result.payloadValue.productID == ID.goPro)
        }
    }

    @Test func aWinBackOfferComesWithItsOffer() async throws {
        try await inSession { _ in
            let intents = PurchaseIntent.intents
            async let first = firstElement(of: intents, within: 120)
            try await Task.sleep(for: .milliseconds(300))
            PurchaseIntent.send(productID: ID.monthly, offerID: "monthly_winback")
            let intent = try #require(await first)
            #expect(intent.offer?.id == "monthly_winback" && intent.offer?.type == .winBack)
        }
    }
}
