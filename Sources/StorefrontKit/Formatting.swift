import Foundation

// StoreKit's format styles and localized descriptions. Words are English: Storefront has no
// localized strings of its own (prices, which Foundation formats, follow the storefront's locale).

extension Product {
    /// The format style of the product's price, in the storefront's currency and locale
    /// (StoreKit's `priceFormatStyle`): `product.price.formatted(product.priceFormatStyle)` is `displayPrice`.
    public var priceFormatStyle: Decimal.FormatStyle.Currency {
        Decimal.FormatStyle.Currency(code: engine.currencyCode, locale: Locale(identifier: locale))
    }

    /// The format style of a subscription period ("1 month", "2 weeks"), for
    /// ``SubscriptionPeriod/formatted(_:referenceDate:)-(_,Date)`` (StoreKit's `subscriptionPeriodFormatStyle`).
    /// StoreKit's is a `Date.ComponentsFormatStyle`, which this toolchain's Foundation cannot create:
    /// this one has its name's shape, a format style of a date range.
    public var subscriptionPeriodFormatStyle: SubscriptionPeriodFormatStyle { SubscriptionPeriodFormatStyle() }

    /// The format style of a period's unit ("month"), for ``SubscriptionPeriod/Unit/formatted(_:)``
    /// (StoreKit's `subscriptionPeriodUnitFormatStyle`).
    public var subscriptionPeriodUnitFormatStyle: SubscriptionPeriod.Unit.FormatStyle { SubscriptionPeriod.Unit.FormatStyle() }

    /// Formats a subscription period's date range as its length in the largest whole units:
    /// "1 month", "2 weeks", "1 year" (StoreKit's `subscriptionPeriodFormatStyle` returns a
    /// `Date.ComponentsFormatStyle`, which this toolchain's Foundation cannot create).
    public struct SubscriptionPeriodFormatStyle: FormatStyle, Sendable, Hashable, Codable {
        /// Unit names in full ("2 weeks"), or abbreviated ("2 wk").
        public var width: Width
        /// The calendar the range is measured in (Gregorian, as the App Store bills).
        public var calendar: Calendar

        /// How unit names are written.
        public enum Width: String, Sendable, Hashable, Codable {
            case wide, abbreviated
        }

        /// The style with full unit names.
        public init(width: Width = .wide, calendar: Calendar = Calendar(identifier: .gregorian)) {
            self.width = width
            var calendar = calendar
            calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
            self.calendar = calendar
        }

        /// The range's length: "1 month", "3 days".
        public func format(_ value: Range<Date>) -> String {
            let parts = calendar.dateComponents([.year, .month, .day], from: value.lowerBound, to: value.upperBound)
            let (years, months, days) = (parts.year ?? 0, parts.month ?? 0, parts.day ?? 0)
            if years > 0 && months == 0 && days == 0 { return SubscriptionPeriod.Unit.year.counted(years, width) }
            if years > 0 || months > 0, days == 0 { return SubscriptionPeriod.Unit.month.counted(years * 12 + months, width) }
            if years == 0 && months == 0 && days > 0 && days % 7 == 0 { return SubscriptionPeriod.Unit.week.counted(days / 7, width) }
            var words: [String] = []
            if years > 0 { words.append(SubscriptionPeriod.Unit.year.counted(years, width)) }
            if months > 0 { words.append(SubscriptionPeriod.Unit.month.counted(months, width)) }
            if days > 0 || words.isEmpty { words.append(SubscriptionPeriod.Unit.day.counted(days, width)) }
            return words.joined(separator: ", ")
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

    /// `count` of this unit: "1 month", "3 days" (abbreviated: "3 d").
    func counted(_ count: Int, _ width: Product.SubscriptionPeriodFormatStyle.Width) -> String {
        switch width {
        case .wide: "\(count) \(localizedDescription)\(count == 1 ? "" : "s")"
        case .abbreviated: "\(count) \(abbreviation)"
        }
    }

    /// The unit's short name: "d", "wk", "mo", "yr".
    private var abbreviation: String {
        switch self {
        case .day: "d"
        case .week: "wk"
        case .month: "mo"
        case .year: "yr"
        }
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
    switch rawValue {
    case "FREE_TRIAL": "Free Trial"
    case "PAY_AS_YOU_GO": "Pay As You Go"
    case "PAY_UP_FRONT": "Pay Up Front"
    default: rawValue
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
