import Foundation
import StoreEngine

/// The App Store country the account buys in, as Apple's `SKStorefront`.
open class SKStorefront: NSObject, @unchecked Sendable {
    // @unchecked: immutable after init.

    /// ISO 3166-1 alpha-3 code (`USA`, `DEU`).
    open private(set) var countryCode: String
    /// Apple's numeric storefront id (`143441` for the USA).
    open private(set) var identifier: String

    package init(_ storefront: StoreEngine.Storefront) {
        countryCode = storefront.countryCode
        identifier = storefront.storefrontID ?? storefront.countryCode
        super.init()
    }

    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? SKStorefront else { return false }
        return countryCode == other.countryCode && identifier == other.identifier
    }
    open override var hash: Int { countryCode.hashValue }
    open override var description: String { "<SKStorefront \(countryCode) \(identifier)>" }
}
