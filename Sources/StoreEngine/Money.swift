import Foundation

/// A storefront: an App Store country with its currency and the locale its prices are written in.
public struct Storefront: Sendable, Hashable {
    /// ISO 3166-1 alpha-3 code, as StoreKit's `Storefront.countryCode` (`USA`, `GBR`, `DEU`, `JPN`).
    public var countryCode: String
    /// ISO 4217 currency code (`USD`, `GBP`, `EUR`, `JPY`).
    public var currency: String
    /// The locale prices and text are shown in (`en_US`, `de_DE`).
    public var locale: String

    public init(countryCode: String, currency: String, locale: String) {
        self.countryCode = countryCode
        self.currency = currency
        self.locale = locale
    }

    /// The storefront used when a catalog names none.
    public static let unitedStates = Storefront(countryCode: "USA", currency: "USD", locale: "en_US")

    /// The price as the storefront's locale writes it: "$0.99", "0,99 €", "¥160".
    public func displayPrice(_ price: Decimal) -> String {
        price.formatted(.currency(code: currency).locale(Locale(identifier: locale)))
    }
}

/// Decimal prices from text, never through binary floating point.
public enum DecimalText {
    /// Parses a plain decimal such as `0.99`, `160` or `-1` (no exponent, no grouping);
    /// nil when the text is anything else.
    public static func parse(_ text: String) -> Decimal? {
        var digitsBefore = 0
        var digitsAfter = 0
        var seenPoint = false
        for (offset, character) in text.enumerated() {
            switch character {
            case "-" where offset == 0: continue
            case "." where !seenPoint: seenPoint = true
            case "0"..."9": if seenPoint { digitsAfter += 1 } else { digitsBefore += 1 }
            default: return nil
            }
        }
        guard digitsBefore > 0, !seenPoint || digitsAfter > 0, digitsBefore + digitsAfter <= 30 else { return nil }
        return Decimal(string: text, locale: posix)
    }

    /// The canonical text of a decimal: `0.99`, `160`.
    public static func format(_ value: Decimal) -> String {
        var value = value
        return NSDecimalString(&value, posix)
    }

    /// Made once: a catalog of thousands of prices would otherwise make a locale for each.
    private static let posix = Locale(identifier: "en_US_POSIX")
}
