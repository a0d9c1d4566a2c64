import Foundation

/// A price in its own currency, written as its storefront writes it: the one price policy of every face.
///
/// Apple's: a transaction carries its `price` and `currency`; it is shown in that currency, in the
/// locale of the storefront it was bought in — a DEU purchase is `0,99 €` whatever storefront the
/// account is in now and whether or not a catalog is loaded (the locale comes from the App Store's
/// storefronts, not from the catalog).
public enum PriceText {
    /// `price` in `currency` as storefront `countryCode` writes it ("$0.99", "0,99 €", "¥160").
    /// A code the App Store has no storefront for is written in `en_US`.
    public static func display(_ price: Decimal, currency: String, storefront countryCode: String) -> String {
        let locale = AppStoreStorefront.named(countryCode)?.locale ?? Storefront.unitedStates.locale
        return Storefront(countryCode: countryCode, currency: currency, locale: locale).displayPrice(price)
    }

    /// `price` in the currency App Store Connect prices storefront `countryCode` in (a price change's,
    /// a waiting increase's): "renews at 9.99" in a euro storefront said nothing of the currency.
    public static func display(_ price: Decimal, storefront countryCode: String) -> String {
        display(price, currency: AppStoreStorefront.named(countryCode)?.currency ?? Storefront.unitedStates.currency, storefront: countryCode)
    }
}

extension Transaction {
    /// What was charged, in the transaction's own currency, as its storefront writes it (``PriceText``).
    public var displayPrice: String { PriceText.display(price, currency: currency, storefront: storefront) }
}
