import Foundation

import StorefrontKit
import StorefrontKitTest
import Testing

/// `AppTransaction.shared` and signed promotional offers, on the StoreKit-shaped API.
@Suite struct OfferTests {
    @Test func appTransactionIsVerifiedAndCarriesTheTransactionsID() async throws {
        let session = try SKTestSession(contentsOf: catalogURL)
        try await session.run {
            let result = try await AppTransaction.shared
            guard case .verified(let app) = result else { Issue.record("unverified"); return }
            #expect(app.originalAppVersion == "1.0" && app.environment == .xcode && !app.bundleID.isEmpty)
            let product = try #require(try await Product.products(for: [ID.goPro]).first)
            guard case .success(let bought) = try await product.purchase() else { Issue.record("expected success"); return }
            let json = try JSONSerialization.jsonObject(with: try bought.payloadValue.jsonRepresentation) as? [String: Any]
            #expect(json?["appTransactionId"] as? String == app.appTransactionID)
            #expect(!result.jwsRepresentation.isEmpty)
        }
    }

    @Test func promotionalOfferNeedsAValidSignature() async throws {
        let session = try SKTestSession(contentsOf: catalogURL)
        try await session.run {
            let store = try StoreContext.resolve().store
            _ = try await store.appStore.createOfferKey(keyID: "KIT")
            let monthly = try #require(try await Product.products(for: [ID.monthly]).first)
            _ = try await monthly.purchase()
            try session.expireSubscription(productIdentifier: ID.monthly)
            let yearly = try #require(try await Product.products(for: [ID.yearly]).first)
            let signed = try await store.appStore.signPromotionalOffer(productID: ID.yearly, offerID: "annual_comeback", form: .legacy)
            guard case .legacy(let keyID, let nonce, let timestamp, let signature) = signed else { Issue.record("form"); return }
            let bytes = try #require(Data(base64Encoded: signature))
            await #expect(throws: Product.PurchaseError.invalidOfferSignature) {
                _ = try await yearly.purchase(options: [.promotionalOffer(offerID: "annual_comeback", keyID: keyID, nonce: UUID(),
                                                                          signature: bytes, timestamp: Int(timestamp))])
            }
            let result = try await yearly.purchase(options: [.promotionalOffer(offerID: "annual_comeback", keyID: keyID, nonce: nonce,
                                                                               signature: bytes, timestamp: Int(timestamp))])
            guard case .success(let verification) = result else { Issue.record("expected success"); return }
            #expect(try verification.payloadValue.offerID == "annual_comeback")
        }
    }

    @Test func aCodeToRedeemSetInASessionIsThatSessionsOwn() async throws {
        let (first, second) = (try SKTestSession(contentsOf: catalogURL), try SKTestSession(contentsOf: catalogURL))
        await first.run { AppStore.offerCodeToRedeem = "FREE3B" }
        await second.run {
            #expect(AppStore.offerCodeToRedeem == nil, "another session's code")
            AppStore.offerCodeToRedeem = "NOSUCHCODE"
        }
        await first.run { #expect(AppStore.offerCodeToRedeem == "FREE3B") }
    }

    @Test func redeemSheetRedeemsTheConfiguredCodeAsAnUpdate() async throws {
        let session = try SKTestSession(contentsOf: catalogURL)
        try await session.run {
            let updates = Transaction.updates
            AppStore.offerCodeToRedeem = "NOSUCHCODE"
            await #expect(throws: Product.PurchaseError.invalidOfferIdentifier) { try await AppStore.presentOfferCodeRedeemSheet() }
            AppStore.offerCodeToRedeem = "FREE3B"
            try await AppStore.presentOfferCodeRedeemSheet()
            AppStore.offerCodeToRedeem = nil
            let update = await first(of: updates, within: 20) { $0.productID == ID.yearly }
            let transaction = try #require(update).unsafePayloadValue
            #expect(transaction.offerType == .code && transaction.offerID == "Three months free")
            await transaction.finish()
        }
    }

    @Test func aConsumablesOfferCodeArrivesAsAOneTimeOffer() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("kit-codes-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("products.json")
        try Data(#"""
            { "storefront": "USA", "products": [ { "id": "coins.100", "type": "consumable", "displayName": "100 Coins", "price": "0.99",
              "offers": [ { "type": "code", "id": "coins.half", "referenceName": "Half coins", "price": "0.49", "customCodes": ["COINS50"] } ] } ] }
            """#.utf8).write(to: file)
        let session = try SKTestSession(contentsOf: file)
        try await session.run {
            let updates = Transaction.updates
            AppStore.offerCodeToRedeem = "COINS50"
            try await AppStore.presentOfferCodeRedeemSheet()
            AppStore.offerCodeToRedeem = nil
            let transaction = try #require(await first(of: updates, within: 20) { $0.productID == "coins.100" }).unsafePayloadValue
            #expect(transaction.offer?.type == .code && transaction.offer?.id == "Half coins")
            #expect(transaction.offer?.paymentMode == .oneTime && transaction.offer?.period == nil)
            #expect(transaction.price == Decimal(string: "0.49"))
            await transaction.finish()
        }
    }
}
