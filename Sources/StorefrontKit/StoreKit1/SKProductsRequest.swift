import Foundation
import StoreEngine
import Synchronization

/// Asks the store for products by identifier, as Apple's `SKProductsRequest`: set ``delegate``
/// (an `SKProductsRequestDelegate`), call `start()`; the response comes on the main queue.
///
/// The store's conditions apply as to `Product.products(for:)`: latency, `offline` and
/// `loadProductsError` (the request fails with the matching `SKError`). Open with a public `init()`,
/// as Apple's: a mock subclass overrides `start()` and calls its delegate itself.
open class SKProductsRequest: SKRequest, @unchecked Sendable {
    // @unchecked: `response` is behind its lock.

    private let identifiers: Set<String>
    private let response = Mutex<SKProductsResponse?>(nil)

    /// A request for the products with these identifiers.
    public init(productIdentifiers: Set<String>) {
        identifiers = productIdentifiers
        super.init()
    }

    /// A request for no products, as Apple's `SKProductsRequest()`: its response is empty.
    public override init() {
        identifiers = []
        super.init()
    }

    override package func perform(in context: StoreContext) async throws {
        let storefront = try await context.store.app.storefront()
        let all = try await context.store.app.products()
        let found = all.filter { identifiers.contains($0.id) }.map { SKProduct($0, storefront: storefront) }
        let known = Set(found.map(\.productIdentifier))
        let invalid = identifiers.filter { !known.contains($0) }.sorted()
        response.withLock { $0 = SKProductsResponse(products: found, invalidProductIdentifiers: invalid) }
    }

    override package func deliverResponse() {
        guard let response = response.withLock({ $0 }) else { return }
        (delegate as? any SKProductsRequestDelegate)?.productsRequest(self, didReceive: response)
    }
}
