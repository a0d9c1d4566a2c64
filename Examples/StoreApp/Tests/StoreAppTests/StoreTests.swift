#if canImport(StoreKitTest)
import StoreKit
import StoreKitTest
#else
import StorefrontKit
import StorefrontKitTest
#endif
import XCTest
@testable import StoreApp

enum ProductID {
    static let hints = "com.example.storeapp.hints"
    static let lifetime = "com.example.storeapp.lifetime"
    static let season = "com.example.storeapp.season"
    static let monthly = "com.example.storeapp.plus.monthly"
    static let yearly = "com.example.storeapp.plus.yearly"
    static let all = [hints, lifetime, season, monthly, yearly]
}

@MainActor
final class StoreTests: XCTestCase {
    private var session: SKTestSession!
    private var store: Store!

    #if !canImport(StoreKitTest)
    override class func setUp() {
        super.setUp()
        try? DeveloperStore.configure()  // Storefront's: a stand-in for the developer's own store
    }
    #endif

    override func setUp() async throws {
        // As at launch, the app's store loads its products and starts listening before the test's session exists.
        store = Store(productIDs: ProductID.all)
        session = try SKTestSession(configurationFileNamed: "Products")
        session.resetToDefaultState()
        session.disableDialogs = true
        session.clearTransactions()
        await store.requestProducts()
    }

    override func tearDown() async throws {
        store.stop()
        store = nil
        session = nil
    }

    /// Waits up to `timeout` seconds for `condition`, as the app's screen would update.
    private func waitUntil(timeout: TimeInterval = 10, _ condition: () -> Bool) async {
        let deadline = Date().addingTimeInterval(timeout)
        while !condition() && Date() < deadline { try? await Task.sleep(nanoseconds: 50_000_000) }
    }

    private func product(_ id: String) throws -> Product {
        let all = store.consumables + store.nonConsumables + store.nonRenewables + store.subscriptions
        return try XCTUnwrap(all.first { $0.id == id })
    }

    func testProductsAreSortedByType() throws {
        XCTAssertEqual(store.consumables.map(\.id), [ProductID.hints])
        XCTAssertEqual(store.nonConsumables.map(\.id), [ProductID.lifetime])
        XCTAssertEqual(store.nonRenewables.map(\.id), [ProductID.season])
        XCTAssertEqual(store.subscriptions.map(\.id), [ProductID.monthly, ProductID.yearly])
        XCTAssertEqual(try product(ProductID.lifetime).displayPrice, "$9.99")
    }

    func testPurchaseUnlocksTheProductInTheSessionsStore() async throws {
        let lifetime = try product(ProductID.lifetime)
        let transaction = try await store.purchase(lifetime)
        XCTAssertEqual(transaction?.productID, ProductID.lifetime)
        XCTAssertTrue(store.isPurchased(lifetime))
        XCTAssertEqual(session.allTransactions().map(\.productIdentifier), [ProductID.lifetime])
    }

    func testConsumablesAddUp() async throws {
        let hints = try product(ProductID.hints)
        try await store.purchase(hints)
        try await store.purchase(hints)
        XCTAssertEqual(store.hints, 20)
        store.useHint()
        XCTAssertEqual(store.hints, 19)
    }

    func testClearTransactionsLetsTheTestBuyAgain() async throws {
        let lifetime = try product(ProductID.lifetime)
        try await store.purchase(lifetime)
        session.clearTransactions()
        await store.updateCustomerProductStatus()
        XCTAssertFalse(store.isPurchased(lifetime))
        let again = try await store.purchase(lifetime)
        XCTAssertNotNil(again)
        XCTAssertEqual(session.allTransactions().count, 1)
    }

    func testAskToBuyApproved() async throws {
        session.askToBuyEnabled = true
        let lifetime = try product(ProductID.lifetime)
        let transaction = try await store.purchase(lifetime)
        XCTAssertNil(transaction)
        XCTAssertEqual(store.alert?.title, "Waiting for approval")
        XCTAssertFalse(store.isPurchased(lifetime))

        let request = try XCTUnwrap(session.allTransactions().first)
        XCTAssertTrue(request.pendingAskToBuyConfirmation)
        try session.approveAskToBuyTransaction(identifier: request.identifier)
        await waitUntil { self.store.isPurchased(lifetime) }
        XCTAssertTrue(store.isPurchased(lifetime))
    }

    func testAskToBuyDeclined() async throws {
        session.askToBuyEnabled = true
        let lifetime = try product(ProductID.lifetime)
        try await store.purchase(lifetime)
        let request = try XCTUnwrap(session.allTransactions().first)
        try session.declineAskToBuyTransaction(identifier: request.identifier)
        try await Task.sleep(nanoseconds: 500_000_000)
        XCTAssertFalse(store.isPurchased(lifetime))
        XCTAssertTrue(store.updatesReceived.isEmpty)
    }

    func testRefundRevokesTheEntitlement() async throws {
        let lifetime = try product(ProductID.lifetime)
        let bought = try await store.purchase(lifetime)
        let transaction = try XCTUnwrap(bought)
        try session.refundTransaction(identifier: Int(transaction.id))
        await waitUntil { !self.store.isPurchased(lifetime) }
        XCTAssertFalse(store.isPurchased(lifetime))
        XCTAssertNotNil(store.updatesReceived.last?.revocationDate)
    }

    func testRenewalArrivesAsAnUpdate() async throws {
        let monthly = try product(ProductID.monthly)
        let bought = try await store.purchase(monthly)
        let first = try XCTUnwrap(bought)
        XCTAssertEqual(store.subscriptionGroupStatus, .subscribed)
        try session.forceRenewalOfSubscription(productIdentifier: ProductID.monthly)
        await waitUntil { self.store.updatesReceived.contains { $0.reason == .renewal } }
        let renewal = try XCTUnwrap(store.updatesReceived.first { $0.reason == .renewal })
        XCTAssertEqual(renewal.originalID, first.originalID)
        XCTAssertNotEqual(renewal.id, first.id)
        XCTAssertTrue(store.isPurchased(monthly))
    }

    func testExpiryArrivesAsAStatusUpdate() async throws {
        let monthly = try product(ProductID.monthly)
        try await store.purchase(monthly)
        XCTAssertTrue(store.isPurchased(monthly))
        try session.expireSubscription(productIdentifier: ProductID.monthly)
        await waitUntil { self.store.statusHistory.contains(.expired) }
        XCTAssertEqual(store.statusHistory.last, .expired)
        XCTAssertEqual(store.subscriptionGroupStatus, .expired)
        XCTAssertFalse(store.isPurchased(monthly))
    }

    func testAutoRenewOffArrivesAsAStatusUpdate() async throws {
        let monthly = try product(ProductID.monthly)
        let bought = try await store.purchase(monthly)
        let transaction = try XCTUnwrap(bought)
        let before = store.statusHistory.count
        try session.disableAutoRenewForTransaction(identifier: Int(transaction.id))
        await waitUntil { self.store.statusHistory.count > before }
        XCTAssertEqual(store.statusHistory.last, .subscribed)
        let statuses = try await monthly.subscription?.status
        let status = try XCTUnwrap(statuses?.first)
        XCTAssertFalse(try status.renewalInfo.payloadValue.willAutoRenew)
    }

    func testPurchaseErrorIsShownToTheUser() async throws {
        try await session.setSimulatedError(.purchase(.purchaseNotAllowed), forAPI: .purchase)
        let lifetime = try product(ProductID.lifetime)
        await store.buy(lifetime)
        XCTAssertEqual(store.alert, StoreAlert(title: "Purchase failed", message: "Purchases are not allowed on this device."))
        XCTAssertFalse(store.isPurchased(lifetime))
        XCTAssertTrue(session.allTransactions().isEmpty)
    }

    func testRestoreFindsAPurchaseMadeElsewhere() async throws {
        try session.buyProduct(productIdentifier: ProductID.lifetime)
        await store.restore()
        XCTAssertNil(store.alert)
        XCTAssertTrue(store.isPurchased(try product(ProductID.lifetime)))
    }

    func testRestoreErrorIsShownToTheUser() async throws {
        try await session.setSimulatedError(.generic(.networkError(URLError(.notConnectedToInternet))), forAPI: .appStoreSync)
        await store.restore()
        XCTAssertEqual(store.alert?.title, "Restore failed")
    }

    func testAPurchaseMadeOutsideTheAppReachesTheListenerStartedBeforeTheSession() async throws {
        try session.buyProduct(productIdentifier: ProductID.season)
        await waitUntil { !self.store.updatesReceived.isEmpty }
        XCTAssertEqual(store.updatesReceived.map(\.productID), [ProductID.season])
        XCTAssertTrue(store.isPurchased(try product(ProductID.season)))
    }
}
