import Foundation
@testable import SeedStore
import StorefrontKit
import StorefrontKitTest
import Testing

/// The seed's own `Store` class, compiled unchanged but for its imports, working on a test session.
@Suite struct SeedStoreTests {
    @Test func theSeedStoreBuysAndSeesItsPurchase() async throws {
        let session = try SKTestSession(contentsOf: catalog)
        try await session.run {
            let store = Store(productIds: [goPro, monthly])
            await store.requestProducts()
            #expect(store.nonConsumables.map(\.id) == [goPro])
            #expect(store.subscriptions.map(\.id) == [monthly])
            let transaction = try await store.purchase(store.nonConsumables.first)
            #expect(transaction?.productID == goPro)
            #expect(store.purchasedIdentifiers.contains(goPro))  // the seed's detached listener may watch another session
            #expect(try await store.isPurchased(goPro))
            #expect(try await !store.isPurchased(monthly))
        }
    }
}
