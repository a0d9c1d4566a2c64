import Foundation
import StorefrontKit
import StorefrontKitTest
import Testing

/// The flow of the seed's `Store` class, on the StoreKit-shaped API.
@Suite struct SeedFlowTests {
    @Test func productsLoadWithStoreKitShapes() async throws {
        let session = try SKTestSession(contentsOf: catalogURL)
        try await session.run {
            let products = try await Product.products(for: [ID.goPro, ID.coins, ID.monthly, "no.such.product"])
            #expect(Set(products.map(\.id)) == [ID.goPro, ID.coins, ID.monthly])
            let goPro = try #require(products.first { $0.id == ID.goPro })
            #expect(goPro.type == .nonConsumable && goPro.price == Decimal(string: "0.99") && goPro.displayPrice == "$0.99")
            #expect(goPro.subscription == nil)
            let monthly = try #require(products.first { $0.id == ID.monthly })
            let info = try #require(monthly.subscription)
            #expect(monthly.type == .autoRenewable && info.subscriptionGroupID == "premium")
            #expect(info.subscriptionPeriod.unit == .month && info.subscriptionPeriod.value == 1)
            #expect(await info.isEligibleForIntroOffer == (info.introductoryOffer != nil))
            let yearly = try #require(try await Product.products(for: [ID.yearly]).first?.subscription)
            #expect(yearly.promotionalOffers.map(\.id) == ["annual_comeback"])
            #expect(yearly.promotionalOffers.first?.paymentMode == .payUpFront)
        }
    }

    @Test func purchaseIsVerifiedFinishedAndLatestSeesIt() async throws {
        let session = try SKTestSession(contentsOf: catalogURL)
        try await session.run {
            let product = try #require(try await Product.products(for: [ID.goPro]).first)
            #expect(await Transaction.latest(for: ID.goPro) == nil)
            let token = UUID()
            guard case .success(let verification) = try await product.purchase(options: [.appAccountToken(token)]) else {
                Issue.record("expected success"); return
            }
            guard case .verified(let transaction) = verification else { Issue.record("unverified"); return }
            #expect(transaction.productID == ID.goPro && transaction.productType == .nonConsumable)
            #expect(transaction.appAccountToken == token && transaction.purchasedQuantity == 1)
            #expect(transaction.revocationDate == nil && !transaction.isUpgraded && transaction.ownershipType == .purchased)
            #expect(!verification.jwsRepresentation.isEmpty)
            let json = try JSONSerialization.jsonObject(with: transaction.jsonRepresentation) as? [String: Any]
            #expect(json?["productId"] as? String == ID.goPro)
            #expect(await Array(Transaction.unfinished).map(\.unsafePayloadValue.id) == [transaction.id])
            await transaction.finish()
            #expect(await Array(Transaction.unfinished).isEmpty)
            let latest = try #require(await Transaction.latest(for: ID.goPro))
            #expect(try latest.payloadValue.id == transaction.id)
            #expect(await Array(Transaction.currentEntitlements).map(\.unsafePayloadValue.productID) == [ID.goPro])
            try await AppStore.sync()
            #expect(await Transaction.currentEntitlement(for: ID.goPro)?.unsafePayloadValue.id == transaction.id)
            #expect(await Transaction.currentEntitlement(for: ID.shopping) == nil)
        }
    }

    @Test func simulatedErrorsAreStoreKitErrors() async throws {
        let session = try SKTestSession(contentsOf: catalogURL)
        try await session.run {
            let product = try #require(try await Product.products(for: [ID.goPro]).first)
            try await session.setSimulatedError(.purchase(.purchaseNotAllowed), forAPI: .purchase)
            await #expect(throws: Product.PurchaseError.purchaseNotAllowed) { try await product.purchase() }
            try await session.setSimulatedError(nil, forAPI: .purchase)
            try await session.setSimulatedError(.generic(.networkError(URLError(.notConnectedToInternet))), forAPI: .appStoreSync)
            await #expect {
                try await AppStore.sync()
            } throws: { error in
                if case .networkError = error as? StoreKitError { true } else { false }
            }
            session.failTransactionsEnabled = true
            #expect(session.failTransactionsEnabled)
            await #expect(throws: StoreKitError.self) { try await product.purchase() }
        }
    }

    @Test func subscriptionStatusFollowsTheClock() async throws {
        let session = try SKTestSession(contentsOf: catalogURL)
        try await session.run {
            let product = try #require(try await Product.products(for: [ID.monthly]).first)
            guard case .success(let result) = try await product.purchase() else { Issue.record("not bought"); return }
            let first = try result.payloadValue
            await first.finish()
            let status = try #require(try await product.subscription?.status.first)
            #expect(status.state == .subscribed && status.renewalInfo.unsafePayloadValue.willAutoRenew)
            try session.disableAutoRenewForTransaction(identifier: Int(first.id))
            try session.advanceClock(by: "P2M")
            #expect(try await product.subscription?.status.first?.state == .expired)
        }
    }
}
