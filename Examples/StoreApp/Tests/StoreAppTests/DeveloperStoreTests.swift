#if !canImport(StoreKitTest)
import Foundation
import StorefrontKit
import StorefrontKitTest
import XCTest
@testable import StoreApp

/// Storefront's own check of test isolation: with no session, StorefrontKit uses the developer's
/// store (here a temporary one standing for it); a store layer made before the test's session
/// must still buy and listen in the session's store, and leave the developer's untouched.
enum DeveloperStore {
    static let path = FileManager.default.temporaryDirectory
        .appendingPathComponent("storeapp-developer-\(ProcessInfo.processInfo.processIdentifier).sqlite").path

    /// Points StorefrontKit's default store at the stand-in (once per process).
    static func configure() throws {
        let catalog = try XCTUnwrap(Bundle.module.url(forResource: "Products", withExtension: "storekit"))
        try StorefrontKit.configure(catalog: catalog.path, store: path)
    }
}

@MainActor
final class DeveloperStoreTests: XCTestCase {
    override class func setUp() {
        super.setUp()
        try? DeveloperStore.configure()
    }

    func testAStoreMadeBeforeTheSessionBuysInTheSessionNeverInTheDevelopersStore() async throws {
        let store = Store(productIDs: ProductID.all)
        await store.requestProducts()  // no session yet: the developer's store sells them
        XCTAssertEqual(try StorefrontKit.storePath, DeveloperStore.path)
        let lifetime = try XCTUnwrap(store.nonConsumables.first)

        var session: SKTestSession? = try SKTestSession(configurationFileNamed: "Products")
        try await store.purchase(lifetime)
        XCTAssertEqual(session?.allTransactions().map(\.productIdentifier), [ProductID.lifetime])
        try session?.buyProduct(productIdentifier: ProductID.season)
        let deadline = Date().addingTimeInterval(10)
        while store.updatesReceived.isEmpty && Date() < deadline { try await Task.sleep(nanoseconds: 50_000_000) }
        XCTAssertEqual(store.updatesReceived.map(\.productID), [ProductID.season])
        store.stop()

        session = nil  // no session again: StorefrontKit is back on the developer's store
        XCTAssertEqual(try StorefrontKit.storePath, DeveloperStore.path)
        var bought: [String] = []
        for await result in Transaction.all { bought.append(result.unsafePayloadValue.productID) }
        XCTAssertEqual(bought, [])
    }
}
#endif
