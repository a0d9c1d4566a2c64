import StorefrontKit
import StorefrontKitTest
import Testing

/// Transaction's and Product's StoreKit 2 fields, as the store fills them.
@Suite struct TransactionTests {
    @Test func offerTypeOfferAndIdentifiersOfASubscription() async throws {
        try await inSession { _ in
            let bought = try await buy(ID.monthly)
            #expect(bought.offerType == .introductory && bought.offerType?.rawValue == 1 && Transaction.OfferType.winBack.rawValue == 4)
            let offer = try #require(bought.offer)
            #expect(offer.type == .introductory && offer.id == nil && offer.paymentMode == .freeTrial)
            #expect(offer.period?.unit == .week && offer.period?.value == 1)
            #expect(bought.appBundleID == (try store().catalog.bundleID) && !bought.appBundleID.isEmpty)
            let lineItem = try #require(bought.webOrderLineItemID)
            #expect(!lineItem.isEmpty)
            #expect(try await buy(ID.goPro).webOrderLineItemID == nil, "only auto-renewable subscriptions have one")
            guard case .verified(let app) = try await AppTransaction.shared else { Issue.record("unverified"); return }
            #expect(bought.appTransactionID == app.appTransactionID)
            #expect(bought.currency == Locale.Currency("USD"))
        }
    }

    @Test func currencyIsTheStorefrontsAtPurchase() async throws {
        try await inSession { session in
            session.storefront = "DEU"
            let bought = try await buy(ID.coins)
            #expect(bought.currency?.identifier == "EUR" && bought.storefront.countryCode == "DEU")
        }
    }

    @Test func winBackOfferIsRecordedWithItsPaymentModeAndWholeLength() async throws {
        try await inSession { session in
            try await buy(ID.monthly)
            try session.advanceClock(by: "P1W")
            try await store().appStore.setAutoRenew(groupID: "premium", false)
            try session.advanceClock(by: "P2M")
            let offer = try #require(try await product(ID.monthly).subscription?.winBackOffers.first)
            let back = try await buy(ID.monthly, options: [.winBackOffer(offer)])
            #expect(back.offerType == .winBack && back.offer?.id == "monthly_winback" && back.offer?.paymentMode == .payAsYouGo)
            #expect(back.offer?.period?.unit == .month && back.offer?.period?.value == 3, "three months at the offer price")
        }
    }

    @Test func deviceVerificationHashesTheNonceAndThisDevicesID() async throws {
        try await inSession { _ in
            let bought = try await buy(ID.goPro)
            let device = try #require(AppStore.deviceVerificationID)
            let expected = sha384(bought.deviceVerificationNonce.uuidString.lowercased() + device.uuidString.lowercased())
            #expect(bought.deviceVerification == expected && expected.count == 48)
            let again = try #require(await Transaction.latest(for: ID.goPro)).unsafePayloadValue
            #expect(again.deviceVerificationNonce == bought.deviceVerificationNonce, "the same at every read")
            let other = try #require(await Transaction.latest(for: ID.goPro)).unsafePayloadValue
            #expect(try await buy(ID.coins).deviceVerificationNonce != other.deviceVerificationNonce, "one nonce per transaction")
        }
        let elsewhere = try await inSession { _ in try #require(AppStore.deviceVerificationID) }
        let here = try await inSession { _ in try #require(AppStore.deviceVerificationID) }
        #expect(elsewhere != here, "another store file is another device")
    }

    @Test func productsLatestTransactionCurrentEntitlementAndJSON() async throws {
        try await inSession { _ in
            let goPro = try await product(ID.goPro)
            let (neverBought, neverEntitled) = (await goPro.latestTransaction, await goPro.currentEntitlement)
            #expect(neverBought == nil && neverEntitled == nil)
            let bought = try await buy(ID.goPro)
            let (latest, entitlement) = (await goPro.latestTransaction, await goPro.currentEntitlement)
            #expect(latest?.unsafePayloadValue.id == bought.id && entitlement?.unsafePayloadValue.id == bought.id)
            _ = try await store().appStore.refund(Int64(bought.id))
            let (afterRefund, refunded) = (await goPro.currentEntitlement, await goPro.latestTransaction)
            #expect(afterRefund == nil, "a refund ends the entitlement")
            #expect(refunded?.unsafePayloadValue.revocationDate != nil)
            let json = try #require(try JSONSerialization.jsonObject(with: goPro.jsonRepresentation) as? [String: Any])
            #expect(json["offerName"] as? String == ID.goPro && json["name"] as? String == goPro.displayName)
            #expect(json["kind"] as? String == "Non-Consumable")
            let offers = try #require(json["offers"] as? [[String: Any]])
            #expect(offers.first?["priceFormatted"] as? String == goPro.displayPrice)
        }
    }
}
