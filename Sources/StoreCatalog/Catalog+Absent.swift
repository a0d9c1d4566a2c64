import Foundation

// MARK: - Working without a catalog
//
// Commands that act on the history, the settings or the accounts (`transactions`, `approve`,
// `refund`, `settings`, `log`, …) need no product file: they run on an absent catalog, and
// name products by id where the catalog would give their names.

extension Catalog {
    /// The bundle id that marks a catalog standing in for none.
    static let absentMarker = "\u{0}absent"

    /// A catalog with no products, for commands run without a catalog file: the United States
    /// storefront, and the bundle id of the store file's own transactions (see ``Store``).
    public static var absent: Catalog {
        var catalog = Catalog(paywall: Paywall(), defaultStorefront: Storefront.unitedStates.countryCode,
                              storefronts: [.unitedStates], products: [], subscriptionGroups: [])
        catalog.bundleID = absentMarker
        return catalog
    }

    /// Whether this is ``absent``: no catalog file was read.
    public var isAbsent: Bool { bundleID == Self.absentMarker }
}
