import Foundation

/// What an `SKProductsRequest` found, as Apple's `SKProductsResponse`. Open with a public `init()`,
/// as Apple's: a mock subclass overrides the getters.
open class SKProductsResponse: NSObject, @unchecked Sendable {
    // @unchecked: immutable after init.

    private let storedProducts: [SKProduct]
    private let storedInvalidProductIdentifiers: [String]

    /// The products the store sells in the current storefront, of those asked for.
    open var products: [SKProduct] { storedProducts }
    /// The identifiers asked for that the store does not sell here (unknown, or not in this storefront).
    open var invalidProductIdentifiers: [String] { storedInvalidProductIdentifiers }

    /// An empty response, as Apple's `SKProductsResponse()`.
    public override init() {
        storedProducts = []
        storedInvalidProductIdentifiers = []
        super.init()
    }

    init(products: [SKProduct], invalidProductIdentifiers: [String]) {
        storedProducts = products
        storedInvalidProductIdentifiers = invalidProductIdentifiers
        super.init()
    }
}
