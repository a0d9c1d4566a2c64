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

    /// Apple's numeric id of this storefront (`"143441"` for USA), as StoreKit's
    /// `Storefront.id` and the signed payloads' `storefrontId`; nil for a code the App
    /// Store has no storefront for.
    public var storefrontID: String? { AppStoreStorefront.named(countryCode)?.id }

    /// The storefront used when a catalog names none.
    public static let unitedStates = Storefront(countryCode: "USA", currency: "USD", locale: "en_US")

    /// The price as the storefront's locale writes it: "$0.99", "0,99 €", "¥160".
    /// Right-to-left locales (`ar_SA`, `he_IL`) get their digits and symbol without the
    /// invisible direction marks the formatter adds, which a terminal would show as escapes.
    public func displayPrice(_ price: Decimal) -> String {
        let text = price.formatted(.currency(code: currency).locale(Locale(identifier: locale)))
        guard text.unicodeScalars.contains(where: Self.isDirectionMark) else { return text }
        return String(String.UnicodeScalarView(text.unicodeScalars.filter { !Self.isDirectionMark($0) }))
    }

    /// The marks a currency formatter inserts for right-to-left text: LRM, RLM, ALM.
    private static func isDirectionMark(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value == 0x200E || scalar.value == 0x200F || scalar.value == 0x061C
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
        var negative = false
        var significand: UInt64 = 0
        for (offset, byte) in text.utf8.enumerated() {
            switch byte {
            case UInt8(ascii: "-") where offset == 0: negative = true
            case UInt8(ascii: ".") where !seenPoint: seenPoint = true
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                if seenPoint { digitsAfter += 1 } else { digitsBefore += 1 }
                if digitsBefore + digitsAfter <= 18 { significand = significand * 10 + UInt64(byte - UInt8(ascii: "0")) }
            default: return nil
            }
        }
        guard digitsBefore > 0, !seenPoint || digitsAfter > 0, digitsBefore + digitsAfter <= 30 else { return nil }
        // Every price: built from its digits, as Decimal(string:) would (which was most of reading a row).
        if digitsBefore + digitsAfter <= 18 {
            guard significand != 0 else { return 0 }
            return Decimal(sign: negative ? .minus : .plus, exponent: -digitsAfter, significand: Decimal(significand))
        }
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
