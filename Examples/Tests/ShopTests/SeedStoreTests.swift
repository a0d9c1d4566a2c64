import Foundation
@testable import SeedStore
import StorefrontKit
import StorefrontKitTest
import Testing

/// Every suite of the examples, run one test at a time: the seed's `Store` listens for updates
/// in a `Task.detached`, which sees no task-local session and so watches the most recently
/// created one — beside another test it would take (and finish) that test's updates.
@Suite(.serialized) enum Examples {}

extension Examples {
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
            #expect(store.purchasedIdentifiers.contains(goPro))
            #expect(try await store.isPurchased(goPro))
            #expect(try await !store.isPurchased(monthly))
        }
    }
}
}
