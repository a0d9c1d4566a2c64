import Foundation
import StorefrontKit
import StorefrontKitTest
import Testing

/// The test session's controls that act as Xcode's do at run time: a simulated error for every
/// failable API, `buyProduct(identifier:options:)` with its options, and
/// `resolveIssueForTransaction(identifier:)` ending a billing retry.
@Suite struct SKTestSessionControlsTests {
    // MARK: - setSimulatedError for every API

    @Test func appTransactionThrowsTheSimulatedErrorUntilCleared() async throws {
        let session = try SKTestSession(contentsOf: catalogURL)
        try await session.setSimulatedError(.generic(.networkError(URLError(.notConnectedToInternet))), forAPI: .appTransaction)
        #expect(await session.simulatedError(forAPI: .appTransaction) == .generic(.networkError(URLError(.notConnectedToInternet))))
        try await session.run {
            await #expect { _ = try await AppTransaction.shared } throws: { error in
                if case StoreKitError.networkError = error { true } else { false }
            }
            await #expect { _ = try await AppTransaction.refresh() } throws: { error in
                if case StoreKitError.networkError = error { true } else { false }
            }
            try await session.setSimulatedError(nil, forAPI: .appTransaction)
            #expect(await session.simulatedError(forAPI: .appTransaction) == nil)
            guard case .verified = try await AppTransaction.shared else { Issue.record("not verified"); return }
        }
    }

    @Test func manageSubscriptionsThrowsTheSimulatedError() async throws {
        let session = try SKTestSession(contentsOf: catalogURL)
        try await session.setSimulatedError(.generic(.systemError(URLError(.unknown))), forAPI: .manageSubscriptions)
        try await session.run {
            await #expect { try await AppStore.showManageSubscriptions(in: nil) } throws: { error in
                if case StoreKitError.systemError = error { true } else { false }
            }
            await #expect { try await AppStore.showManageSubscriptions(in: nil, subscriptionGroupID: "21430340") } throws: { error in
                if case StoreKitError.systemError = error { true } else { false }
            }
            try await session.setSimulatedError(nil, forAPI: .manageSubscriptions)
            try await AppStore.showManageSubscriptions(in: nil)
        }
    }

    @Test func offerCodeRedeemThrowsTheSimulatedErrorFromEverySheet() async throws {
        let session = try SKTestSession(contentsOf: catalogURL)
        try await session.setSimulatedError(.generic(.notAvailableInStorefront), forAPI: .offerCodeRedeem)
        #expect(await session.simulatedError(forAPI: .offerCodeRedeem) == .generic(.notAvailableInStorefront))
        await session.run {
            let notAvailable: @Sendable (any Error) -> Bool = { if case StoreKitError.notAvailableInStorefront = $0 { true } else { false } }
            await #expect(performing: { try await AppStore.presentOfferCodeRedeemSheet() }, throws: notAvailable)
            await #expect(performing: { try await AppStore.presentOfferCodeRedeemSheet(in: nil) }, throws: notAvailable)
            await #expect(performing: { try await AppStore.presentOfferCodeRedeemSheet(from: nil, options: []) }, throws: notAvailable)
        }
    }

    @Test func refundRequestThrowsBothKindsOfSimulatedError() async throws {
        let session = try SKTestSession(contentsOf: catalogURL)
        let bought = try await session.buyProduct(identifier: ID.goPro)
        try await session.setSimulatedError(.refundRequest(.duplicateRequest), forAPI: .refundRequest)
        #expect(await session.simulatedError(forAPI: .refundRequest) == .refundRequest(.duplicateRequest))
        try await session.run {
            await #expect(throws: Transaction.RefundRequestError.duplicateRequest) { try await bought.beginRefundRequest(in: nil) }
            try await session.setSimulatedError(.generic(.notEntitled), forAPI: .refundRequest)
            await #expect { try await Transaction.beginRefundRequest(for: bought.id, in: nil) } throws: { error in
                if case StoreKitError.notEntitled = error { true } else { false }
            }
            try await session.setSimulatedError(nil, forAPI: .refundRequest)
            #expect(try await bought.beginRefundRequest(in: nil) == .success)
        }
    }

    @Test func subscriptionStatusThrowsTheSimulatedError() async throws {
        let session = try SKTestSession(contentsOf: catalogURL)
        _ = try await session.buyProduct(identifier: ID.monthly)
        try await session.setSimulatedError(.generic(.unknown), forAPI: .subscriptionStatus)
        try await session.run {
            let product = try #require(try await Product.products(for: [ID.monthly]).first)
            let subscription = try #require(product.subscription)
            let unknown: @Sendable (any Error) -> Bool = { if case StoreKitError.unknown = $0 { true } else { false } }
            await #expect(performing: { _ = try await subscription.status }, throws: unknown)
            await #expect(performing: { _ = try await Product.SubscriptionInfo.status(for: subscription.subscriptionGroupID) }, throws: unknown)
            try await session.setSimulatedError(nil, forAPI: .subscriptionStatus)
            #expect(try await subscription.status.first?.state == .subscribed)
        }
    }

    // MARK: - buyProduct with options

    @Test func buyProductAppliesItsPurchaseOptions() async throws {
        let session = try SKTestSession(contentsOf: catalogURL)
        let token = UUID()
        let coins = try await session.buyProduct(identifier: ID.coins, options: [.quantity(3), .appAccountToken(token)])
        #expect(coins.purchasedQuantity == 3)
        #expect(coins.appAccountToken == token)
        let listed = try #require(session.allTransactions().first { $0.identifier == Int(coins.id) })
        #expect(listed.productIdentifier == ID.coins)
        await #expect(throws: Product.PurchaseError.invalidQuantity) {
            try await session.buyProduct(identifier: ID.coins, options: [.quantity(11)])
        }
        // An offer the options name is checked as a purchase's is: a promotional offer needs its signature.
        await #expect(throws: Product.PurchaseError.self) {
            try await session.buyProduct(identifier: ID.yearly, options: [.promotionalOffer(offerID: "annual_comeback", keyID: "none",
                                                                                         nonce: UUID(), signature: Data(), timestamp: 0)])
        }
        let plain = try await session.buyProduct(identifier: ID.goPro)
        #expect(plain.purchasedQuantity == 1 && plain.appAccountToken == nil)
    }

    // MARK: - resolveIssueForTransaction

    @Test func resolveIssueForTransactionEndsABillingRetry() async throws {
        let session = try SKTestSession(contentsOf: catalogURL)
        session.shouldEnterBillingRetryOnRenewal = true
        try await session.run {
            let product = try #require(try await Product.products(for: [ID.monthly]).first)
            guard case .success(let result) = try await product.purchase() else { Issue.record("not bought"); return }
            let bought = result.unsafePayloadValue
            await bought.finish()
            try session.advanceClock(by: "P1M1D")
            #expect(try await product.subscription?.status.first?.state == .inBillingRetryPeriod)
            try session.resolveIssueForTransaction(identifier: Int(bought.id))
            let status = try #require(try await product.subscription?.status.first)
            #expect(status.state == .subscribed)
            let renewal = status.transaction.unsafePayloadValue
            #expect(renewal.id != bought.id && renewal.originalID == bought.originalID)
            #expect(renewal.expirationDate.map { $0 > session.now } == true)
            // A transaction with no issue has nothing to resolve.
            #expect(throws: (any Error).self) { try session.resolveIssueForTransaction(identifier: Int(renewal.id)) }
        }
    }
}
