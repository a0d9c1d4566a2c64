import Foundation
import StoreEngine

// StoreKit's format styles and localized descriptions. Words are English: Storefront has no
// localized strings of its own (prices, which Foundation formats, follow the storefront's locale).

extension Product {
    /// The format style of the product's price, in the storefront's currency and locale
    /// (StoreKit's `priceFormatStyle`): `product.price.formatted(product.priceFormatStyle)` is `displayPrice`.
    public var priceFormatStyle: Decimal.FormatStyle.Currency {
        Decimal.FormatStyle.Currency(code: engine.currencyCode, locale: Locale(identifier: locale))
    }

    /// The format style of a subscription period ("1 month", "2 weeks"), for
    /// ``SubscriptionPeriod/formatted(_:referenceDate:)-(_,Date)`` (StoreKit's `subscriptionPeriodFormatStyle`):
    /// wide, in the storefront's locale. StoreKit's is a `Date.ComponentsFormatStyle`, which this
    /// toolchain's Foundation cannot create: this one has its shape (`style`, `locale`, `calendar`, `fields`).
    public var subscriptionPeriodFormatStyle: SubscriptionPeriodFormatStyle {
        SubscriptionPeriodFormatStyle(style: .wide, locale: Locale(identifier: locale))
    }

    /// The format style of a period's unit ("month"), for ``SubscriptionPeriod/Unit/formatted(_:)``
    /// (StoreKit's `subscriptionPeriodUnitFormatStyle`).
    public var subscriptionPeriodUnitFormatStyle: SubscriptionPeriod.Unit.FormatStyle { SubscriptionPeriod.Unit.FormatStyle() }

    /// Formats a subscription period's date range as its length: "1 month", "2 weeks", "1 year", with
    /// the members of Apple's `Date.ComponentsFormatStyle` (which this toolchain's Foundation declares
    /// but cannot create), each settable: ``style``, ``locale``, ``calendar``, ``fields``.
    ///
    /// Weeks, days and smaller units are written by Foundation's unit formatter, in ``locale``'s
    /// language; months and years have no localized names in this toolchain's Foundation, so they are
    /// English words, in ICU's English forms for each style ("1 month", "1 mth", "1m"), as is the
    /// whole of `spellOut` ("one month").
    public struct SubscriptionPeriodFormatStyle: FormatStyle, Sendable, Hashable, Codable {
        /// How unit names are written, as `Date.ComponentsFormatStyle.Style`.
        public struct Style: Sendable, Hashable, Codable {
            let rawValue: Int
            /// "1 month, 2 days"
            public static let wide = Style(rawValue: 0)
            /// "1 mth, 2 days"
            public static let abbreviated = Style(rawValue: 1)
            /// "1 mth, 2 days" (ICU's English writes it as `abbreviated`)
            public static let condensedAbbreviated = Style(rawValue: 2)
            /// "1m 2d"
            public static let narrow = Style(rawValue: 3)
            /// "one month, two days" (English)
            public static let spellOut = Style(rawValue: 4)
        }

        /// A unit the length may be written in, as `Date.ComponentsFormatStyle.Field`.
        public struct Field: Sendable, Hashable, Codable {
            let rawValue: Int
            public static let year = Field(rawValue: 0)
            public static let month = Field(rawValue: 1)
            public static let week = Field(rawValue: 2)
            public static let day = Field(rawValue: 3)
            public static let hour = Field(rawValue: 4)
            public static let minute = Field(rawValue: 5)
            public static let second = Field(rawValue: 6)
        }

        /// How unit names are written.
        public var style: Style
        /// The language of the words (see the type's note: weeks, days and smaller units follow it).
        public var locale: Locale
        /// The calendar the range is measured in (StoreKit's: Gregorian, as the App Store bills).
        public var calendar: Calendar
        /// The units to write the length in; nil: the largest whole unit (years, months, weeks or days),
        /// else years, months and days, as StoreKit writes a period.
        public var fields: Set<Field>?

        /// A style, as `Date.ComponentsFormatStyle(style:locale:calendar:fields:)`. The calendar is
        /// Gregorian in UTC unless given (the periods' ranges are measured so).
        public init(style: Style = .wide, locale: Locale = .autoupdatingCurrent, calendar: Calendar? = nil,
                    fields: Set<Field>? = nil) {
            self.style = style
            self.locale = locale
            if let calendar {
                self.calendar = calendar
            } else {
                var gregorian = Calendar(identifier: .gregorian)
                gregorian.timeZone = TimeZone(identifier: "UTC") ?? gregorian.timeZone
                self.calendar = gregorian
            }
            self.fields = fields
        }

        /// This style in `locale`.
        public func locale(_ locale: Locale) -> Self {
            var style = self
            style.locale = locale
            return style
        }

        /// This style measuring in `calendar`.
        public func calendar(_ calendar: Calendar) -> Self {
            var style = self
            style.calendar = calendar
            return style
        }

        /// The range's length: "1 month", "3 days".
        public func format(_ value: Range<Date>) -> String {
            parts(of: value).map { word($0.count, $0.field) }.joined(separator: style == .narrow ? " " : ", ")
        }

        /// The range's length as counts of units, largest first.
        private func parts(of range: Range<Date>) -> [(count: Int, field: Field)] {
            guard let fields else {
                let parts = calendar.dateComponents([.year, .month, .day], from: range.lowerBound, to: range.upperBound)
                let (years, months, days) = (parts.year ?? 0, parts.month ?? 0, parts.day ?? 0)
                if years > 0 && months == 0 && days == 0 { return [(years, .year)] }
                if years > 0 || months > 0, days == 0 { return [(years * 12 + months, .month)] }
                if years == 0 && months == 0 && days > 0 && days % 7 == 0 { return [(days / 7, .week)] }
                var found: [(count: Int, field: Field)] = []
                if years > 0 { found.append((years, .year)) }
                if months > 0 { found.append((months, .month)) }
                if days > 0 || found.isEmpty { found.append((days, .day)) }
                return found
            }
            let order: [(Field, Calendar.Component)] = [(.year, .year), (.month, .month), (.week, .weekOfMonth), (.day, .day),
                                                        (.hour, .hour), (.minute, .minute), (.second, .second)]
            let allowed = order.filter { fields.contains($0.0) }
            guard let smallest = allowed.last else { return [] }
            let parts = calendar.dateComponents(Set(allowed.map(\.1)), from: range.lowerBound, to: range.upperBound)
            let found = allowed.compactMap { field, component -> (count: Int, field: Field)? in
                let count = parts.value(for: component) ?? 0
                return count == 0 ? nil : (count, field)
            }
            return found.isEmpty ? [(0, smallest.0)] : found
        }

        /// `count` of `field` in ``style`` and ``locale``.
        private func word(_ count: Int, _ field: Field) -> String {
            if style == .spellOut {
                let speller = NumberFormatter()
                speller.numberStyle = .spellOut
                speller.locale = Locale(identifier: "en_US")
                let number = speller.string(from: NSNumber(value: count)) ?? "\(count)"
                return "\(number) \(Self.englishName(field, count: count, style: .wide))"
            }
            if let unit = Self.durationUnit(field) {
                let width: Duration.UnitsFormatStyle.UnitWidth = switch style {
                case .abbreviated: .abbreviated
                case .condensedAbbreviated: .condensedAbbreviated
                case .narrow: .narrow
                default: .wide
                }
                let formatter = Duration.UnitsFormatStyle(allowedUnits: [unit.unit], width: width).locale(locale)
                return Duration.seconds(Int64(count) * unit.seconds).formatted(formatter)
            }
            let name = Self.englishName(field, count: count, style: style)
            return style == .narrow ? "\(count)\(name)" : "\(count) \(name)"
        }

        /// The unit of Foundation's unit formatter for `field`, and its length in seconds; nil for months and years.
        private static func durationUnit(_ field: Field) -> (unit: Duration.UnitsFormatStyle.Unit, seconds: Int64)? {
            switch field {
            case .week: (.weeks, 7 * 86_400)
            case .day: (.days, 86_400)
            case .hour: (.hours, 3_600)
            case .minute: (.minutes, 60)
            case .second: (.seconds, 1)
            default: nil
            }
        }

        /// The English name of `field` for `count`, as ICU's English writes it in `style`.
        private static func englishName(_ field: Field, count: Int, style: Style) -> String {
            let (wide, short, narrow): (String, String, String) = switch field {
            case .year: ("year", "yr", "y")
            case .month: ("month", "mth", "m")
            case .week: ("week", "wk", "w")
            case .day: ("day", "day", "d")
            case .hour: ("hour", "hr", "h")
            case .minute: ("minute", "min", "m")
            default: ("second", "sec", "s")
            }
            let plural = count == 1 ? "" : "s"
            switch style {
            case .narrow: return narrow
            case .abbreviated, .condensedAbbreviated: return field == .hour || field == .minute || field == .second ? short : short + plural
            default: return wide + plural
            }
        }
    }
}

extension Product.SubscriptionPeriod {
    /// The period starting at `referenceDate`, by the Gregorian calendar (StoreKit's `dateRange(referenceDate:)`).
    public func dateRange(referenceDate: Date = .now) -> Range<Date> {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        let component: Calendar.Component = switch unit {
        case .day: .day
        case .week: .weekOfYear
        case .month: .month
        case .year: .year
        }
        let end = calendar.date(byAdding: component, value: value, to: referenceDate) ?? referenceDate
        return referenceDate..<max(end, referenceDate)
    }

    /// The period written by a format style of date ranges, such as the product's
    /// `subscriptionPeriodFormatStyle`: "1 month".
    public func formatted<S>(_ format: S, referenceDate: Date = .now) -> S.FormatOutput
    where S: FormatStyle, S.FormatInput == Range<Date> {
        format.format(dateRange(referenceDate: referenceDate))
    }

    /// The period written by a format style of durations (`.units(allowed: [.weeks, .days])`).
    public func formatted<S>(_ format: S, referenceDate: Date = .now) -> S.FormatOutput
    where S: FormatStyle, S.FormatInput == Duration {
        let range = dateRange(referenceDate: referenceDate)
        return format.format(.seconds(Int64(range.upperBound.timeIntervalSince(range.lowerBound).rounded())))
    }
}

extension Product.SubscriptionPeriod.Unit {
    /// The unit's name: "day", "week", "month", "year".
    public var localizedDescription: String {
        switch self {
        case .day: "day"
        case .week: "week"
        case .month: "month"
        case .year: "year"
        }
    }

    /// The unit written by a format style of units, such as the product's `subscriptionPeriodUnitFormatStyle`.
    public func formatted<S>(_ format: S) -> S.FormatOutput
    where S: Foundation.FormatStyle, S.FormatInput == Product.SubscriptionPeriod.Unit {
        format.format(self)
    }

    /// Writes a period's unit by its name ("month"), as StoreKit's `Product.SubscriptionPeriod.Unit.FormatStyle`.
    public struct FormatStyle: Foundation.FormatStyle, Sendable, Hashable, Codable {
        /// The style StoreKit's `subscriptionPeriodUnitFormatStyle` returns.
        public init() {}
        /// The unit's name.
        public func format(_ value: Product.SubscriptionPeriod.Unit) -> String { value.localizedDescription }
    }
}

extension Product.ProductType {
    /// The type as the App Store names it: "Consumable", "Non-Consumable", "Non-Renewing Subscription",
    /// "Auto-Renewable Subscription".
    public var localizedDescription: String {
        switch self {
        case .consumable: "Consumable"
        case .nonConsumable: "Non-Consumable"
        case .nonRenewable: "Non-Renewing Subscription"
        case .autoRenewable: "Auto-Renewable Subscription"
        default: rawValue
        }
    }
}

extension Product.SubscriptionOffer.OfferType {
    /// "Introductory Offer", "Promotional Offer", "Win-Back Offer".
    public var localizedDescription: String {
        switch self {
        case .introductory: "Introductory Offer"
        case .promotional: "Promotional Offer"
        case .winBack: "Win-Back Offer"
        default: rawValue
        }
    }
}

extension Product.SubscriptionOffer.PaymentMode {
    /// "Free Trial", "Pay As You Go", "Pay Up Front".
    public var localizedDescription: String { paymentModeName(rawValue) }
}

extension Transaction.Offer.PaymentMode {
    /// "Free Trial", "Pay As You Go", "Pay Up Front".
    public var localizedDescription: String { paymentModeName(rawValue) }
}

/// The words for a payment mode's raw value (both of StoreKit's payment mode types use the same).
private func paymentModeName(_ rawValue: String) -> String {
    switch StoreEngine.PaymentMode.allCases.first(where: { $0.offerDiscountType == rawValue }) {
    case .freeTrial?: "Free Trial"
    case .payAsYouGo?: "Pay As You Go"
    case .payUpFront?: "Pay Up Front"
    case nil: rawValue
    }
}

extension Transaction.OfferType {
    /// "Introductory Offer", "Promotional Offer", "Offer Code", "Win-Back Offer".
    public var localizedDescription: String {
        switch self {
        case .introductory: "Introductory Offer"
        case .promotional: "Promotional Offer"
        case .code: "Offer Code"
        case .winBack: "Win-Back Offer"
        default: "\(rawValue)"
        }
    }
}

extension Product.SubscriptionInfo.RenewalState {
    /// "Subscribed", "Expired", "In Billing Retry Period", "In Grace Period", "Revoked".
    public var localizedDescription: String {
        switch self {
        case .subscribed: "Subscribed"
        case .expired: "Expired"
        case .inBillingRetryPeriod: "In Billing Retry Period"
        case .inGracePeriod: "In Grace Period"
        case .revoked: "Revoked"
        default: "\(rawValue)"
        }
    }
}

extension Transaction.RevocationReason {
    /// "Developer Issue", "Other".
    public var localizedDescription: String { self == .developerIssue ? "Developer Issue" : "Other" }
}

extension Transaction.OwnershipType {
    /// "Purchased", "Family Shared".
    public var localizedDescription: String { self == .familyShared ? "Family Shared" : "Purchased" }
}

extension Product.SubscriptionInfo.RenewalInfo.ExpirationReason {
    /// "Auto-Renew Disabled", "Billing Error", "Did Not Consent To Price Increase", "Product Unavailable", "Unknown".
    public var localizedDescription: String {
        switch self {
        case .autoRenewDisabled: "Auto-Renew Disabled"
        case .billingError: "Billing Error"
        case .didNotConsentToPriceIncrease: "Did Not Consent To Price Increase"
        case .productUnavailable: "Product Unavailable"
        default: "Unknown"
        }
    }
}
