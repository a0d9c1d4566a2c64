import Foundation

/// What an `SKProductsRequest` found, as Apple's `SKProductsResponse`.
open class SKProductsResponse: NSObject, @unchecked Sendable {
    // @unchecked: immutable after init.

    /// The products the store sells in the current storefront, of those asked for.
    open private(set) var products: [SKProduct]
    /// The identifiers asked for that the store does not sell here (unknown, or not in this storefront).
    open private(set) var invalidProductIdentifiers: [String]

    package init(products: [SKProduct], invalidProductIdentifiers: [String]) {
        self.products = products
        self.invalidProductIdentifiers = invalidProductIdentifiers
        super.init()
    }
}
