import Foundation
import StorefrontKit
@testable import StorefrontKitTest
import Testing

/// `SKTestSession` with Xcode's declarations: `Int` identifiers, `clearTransactions()`, both
/// `buyProduct` forms, the billing settings and `setSimulatedError(_:forAPI:)` with `SKTestFailures`.
@Suite struct SKTestSessionTests {
    @Test func clearTransactionsLetsAOneTimePurchaseBeBoughtAgain() async throws {
        let session = try SKTestSession(contentsOf: catalogURL)
        try await session.run {
            let product = try #require(try await Product.products(for: [ID.goPro]).first)
            guard case .success(let first) = try await product.purchase() else { Issue.record("not bought"); return }
            await first.unsafePayloadValue.finish()
            session.clearTransactions()
            #expect(session.allTransactions().isEmpty)
            #expect(await Transaction.currentEntitlement(for: ID.goPro) == nil)
            guard case .success(let again) = try await product.purchase() else { Issue.record("not bought again"); return }
            #expect(again.unsafePayloadValue.id != first.unsafePayloadValue.id)
            #expect(session.allTransactions().map(\.identifier) == [Int(again.unsafePayloadValue.id)])
        }
    }

    @Test func intIdentifiersActOnTheirTransactions() async throws {
        let session = try SKTestSession(contentsOf: catalogURL)
        session.askToBuyEnabled = true
        try await session.run {
            let product = try #require(try await Product.products(for: [ID.goPro, ID.shopping]).first { $0.id == ID.goPro })
            guard case .pending = try await product.purchase() else { Issue.record("expected pending"); return }
            let request: SKTestTransaction = try #require(session.allTransactions().first)
            let identifier: Int = request.identifier
            #expect(request.pendingAskToBuyConfirmation)
            #expect(request.state == .deferred)
            try session.approveAskToBuyTransaction(identifier: identifier)
            let bought = try #require(session.allTransactions().first { $0.productIdentifier == ID.goPro && !$0.pendingAskToBuyConfirmation })
            #expect(bought.state == .purchased)
            try session.refundTransaction(identifier: bought.identifier)
            #expect(session.allTransactions().first { $0.identifier == bought.identifier }?.revocationDate != nil)
            let declined = try #require(try await Product.products(for: [ID.shopping]).first)
            guard case .pending = try await declined.purchase() else { Issue.record("expected pending"); return }
            let second = try #require(session.allTransactions().first { $0.pendingAskToBuyConfirmation })
            try session.declineAskToBuyTransaction(identifier: second.identifier)
            #expect(!session.allTransactions().contains { $0.pendingAskToBuyConfirmation })
            #expect(session.allTransactions().filter { $0.productIdentifier == ID.shopping }.map(\.state) == [.failed])
            #expect(await Transaction.currentEntitlement(for: ID.shopping) == nil)
        }
    }

    @Test func autoRenewingEnabledFollowsTheSubscription() async throws {
        let session = try SKTestSession(contentsOf: catalogURL)
        try await session.run {
            let product = try #require(try await Product.products(for: [ID.monthly]).first)
            guard case .success(let result) = try await product.purchase() else { Issue.record("not bought"); return }
            let id = Int(result.unsafePayloadValue.id)
            #expect(session.allTransactions().first { $0.identifier == id }?.autoRenewingEnabled == true)
            try session.disableAutoRenewForTransaction(identifier: id)
            #expect(session.allTransactions().first { $0.identifier == id }?.autoRenewingEnabled == false)
            try session.enableAutoRenewForTransaction(identifier: id)
            #expect(session.allTransactions().first { $0.identifier == id }?.autoRenewingEnabled == true)
            try session.expireSubscription(productIdentifier: ID.monthly)
            let status = try #require(try await product.subscription?.status.first)
            #expect(status.state == .expired)
        }
    }

    @Test func bothBuyProductFormsBuyOutsideTheApp() async throws {
        let session = try SKTestSession(contentsOf: catalogURL)
        try await session.run {
            let transaction = try await session.buyProduct(identifier: ID.shopping)
            #expect(transaction.productID == ID.shopping)
            try session.buyProduct(productIdentifier: ID.goPro)
            #expect(Set(session.allTransactions().map(\.productIdentifier)) == [ID.shopping, ID.goPro])
            await #expect(throws: (any Error).self) { try await session.buyProduct(identifier: "no.such.product") }
        }
    }

    @Test func theBillingSettingsReadBackAndMakeRenewalsFail() async throws {
        let session = try SKTestSession(contentsOf: catalogURL)
        #expect(!session.shouldEnterBillingRetryOnRenewal && !session.billingGracePeriodIsEnabled)
        session.shouldEnterBillingRetryOnRenewal = true
        #expect(session.shouldEnterBillingRetryOnRenewal && !session.billingGracePeriodIsEnabled)
        try await session.run {
            let product = try #require(try await Product.products(for: [ID.monthly]).first)
            guard case .success = try await product.purchase() else { Issue.record("not bought"); return }
            try session.advanceClock(by: "P1M1D")
            #expect(try await product.subscription?.status.first?.state == .inBillingRetryPeriod)
            session.shouldEnterBillingRetryOnRenewal = false
            try session.advanceClock(by: "P1D")
            #expect(try await product.subscription?.status.first?.state == .subscribed)
        }
        session.billingGracePeriodIsEnabled = true
        #expect(session.billingGracePeriodIsEnabled)
    }

    @Test func simulatedErrorsAreStoreKitTestFailures() async throws {
        let session = try SKTestSession(contentsOf: catalogURL)
        try await session.setSimulatedError(.generic(.networkError(URLError(.notConnectedToInternet))), forAPI: .loadProducts)
        try await session.setSimulatedError(.purchase(.purchaseNotAllowed), forAPI: .purchase)
        #expect(await session.simulatedError(forAPI: .purchase) == .purchase(.purchaseNotAllowed))
        #expect(await session.simulatedError(forAPI: .loadProducts) == .generic(.networkError(URLError(.notConnectedToInternet))))
        #expect(await session.simulatedError(forAPI: .appStoreSync) == nil)
        try await session.run {
            await #expect {
                _ = try await Product.products(for: [ID.goPro])
            } throws: { error in
                if case StoreKitError.networkError = error { return true }
                return false
            }
            try await session.setSimulatedError(nil, forAPI: .loadProducts)
            let product = try #require(try await Product.products(for: [ID.goPro]).first)
            await #expect(throws: Product.PurchaseError.purchaseNotAllowed) { try await product.purchase() }
            // A cancel on the sheet is a result, as StoreKit reports it, not an error.
            try await session.setSimulatedError(.generic(.userCancelled), forAPI: .purchase)
            guard case .userCancelled = try await product.purchase() else { Issue.record("expected userCancelled"); return }
            try await session.setSimulatedError(.generic(.networkError(URLError(.notConnectedToInternet))), forAPI: .purchase)
            await #expect { try await product.purchase() } throws: { error in
                if case StoreKitError.networkError = error { return true }
                return false
            }
            try await session.setSimulatedError(.verification(.invalidSignature), forAPI: .verification)
            try await session.setSimulatedError(nil, forAPI: .purchase)
            guard case .success(let result) = try await product.purchase() else { Issue.record("not bought"); return }
            guard case .unverified(_, .invalidSignature) = result else { Issue.record("expected unverified"); return }
        }
        try await session.setSimulatedError(.generic(.unknown), forAPI: .subscriptionStatus)
        #expect(await session.simulatedError(forAPI: .subscriptionStatus) == .generic(.unknown))
    }

    /// A session's store is in a folder of its own under `SessionFolder.parent` (memory where the
    /// machine has a roomy tmpfs, unless TMPDIR chooses), and the folder goes with the session.
    @Test func aSessionsStoreIsInAFolderOfItsOwnGoneAtItsEnd() throws {
        var session: SKTestSession? = try SKTestSession(contentsOf: catalogURL)
        let path = try #require(session?.storePath)
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent()
        #expect(folder.deletingLastPathComponent().standardizedFileURL.path == SessionFolder.parent.standardizedFileURL.path)
        #expect(folder.lastPathComponent.hasPrefix("sktestsession-") && FileManager.default.fileExists(atPath: path))
        session = nil
        #expect(!FileManager.default.fileExists(atPath: folder.path))
    }

    /// Memory is a tmpfs with room: never /proc or a missing folder; /dev/shm where it is one.
    @Test func memoryIsATmpfsWithRoom() {
        #expect(!SessionFolder.isRoomyMemory("/proc"))
        #expect(!SessionFolder.isRoomyMemory("/no/such/folder"))
        if ProcessInfo.processInfo.environment["TMPDIR"] == nil, SessionFolder.isRoomyMemory("/dev/shm") {
            #expect(SessionFolder.parent.path == "/dev/shm")
        }
    }
}
