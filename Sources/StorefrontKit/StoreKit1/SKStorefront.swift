import Foundation
import StoreEngine

/// The App Store country the account buys in, as Apple's `SKStorefront`. Open with a public `init()`,
/// as Apple's: a mock subclass overrides the getters.
open class SKStorefront: NSObject, @unchecked Sendable {
    // @unchecked: immutable after init.

    private let storedCountryCode: String
    private let storedIdentifier: String

    /// ISO 3166-1 alpha-3 code (`USA`, `DEU`).
    open var countryCode: String { storedCountryCode }
    /// Apple's numeric storefront id (`143441` for the USA).
    open var identifier: String { storedIdentifier }

    /// An empty storefront, as Apple's `SKStorefront()`: no country code, no identifier.
    public override init() {
        storedCountryCode = ""
        storedIdentifier = ""
        super.init()
    }

    init(_ storefront: StoreEngine.Storefront) {
        storedCountryCode = storefront.countryCode
        storedIdentifier = storefront.storefrontID ?? storefront.countryCode
        super.init()
    }

    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? SKStorefront else { return false }
        return countryCode == other.countryCode && identifier == other.identifier
    }
    open override var hash: Int { countryCode.hashValue }
    open override var description: String { "<SKStorefront \(countryCode) \(identifier)>" }
}
