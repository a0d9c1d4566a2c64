import Foundation
import StoreEngine

/// The words shown beside a product for what the account has of it, shared by
/// the paywall and the CLI so both say the same thing.
public enum ProductStatus {
    /// "Owned" ("Shared by family" when Family Sharing gave it), "Renews Dec 30, 2027", "Expires …",
    /// "Until …, then changes" (a downgrade waits),
    /// "Grace period until …", "Billing retry", "Expired Jan 7, 2027 · win-back offer" (one is eligible),
    /// "Bought Feb 28, 2027 · 3 months (app's count)" (a non-renewing subscription: the length is
    /// the app's own reckoning, the App Store keeps no end), "Balance: 300", an introductory offer ("1 week free,
    /// then $4.99/month") for an account that may take it, or "".
    /// - Parameters:
    ///   - subscription: the status of the product's subscription group, when the account has one.
    ///   - introEligible: whether the account may take the group's introductory offer.
    public static func text(for product: Product, owned: Transaction?, balance: Int?,
                            subscription: SubscriptionStatus? = nil, introEligible: Bool = false) -> String {
        switch product.type {
        case .consumable:
            return "Balance: \(balance ?? 0)"
        case .nonConsumable:
            return owned.map { $0.ownershipType == .familyShared ? "Shared by family" : "Owned" } ?? ""
        case .nonRenewable:
            // The App Store keeps no end date for it: the length is the app's own reckoning from the catalog.
            guard let owned else { return "" }
            let length = product.nonRenewingDuration.map { " · \($0.spelledOut) (app's count)" } ?? ""
            return "Bought \(shortDate(owned.purchaseDate))\(length)"
        case .autoRenewable:
            if let status = subscription, let text = subscriptionText(product, status) { return text }
            if let owned { return owned.expirationDate.map { "Renews \(shortDate($0))" } ?? "Active" }
            if introEligible, let offer = product.subscription?.introductoryOffer { return introText(offer, product) }
            return ""
        }
    }

    /// The subscription's state in words, on the row of the product it concerns.
    private static func subscriptionText(_ product: Product, _ status: SubscriptionStatus) -> String? {
        let info = status.renewalInfo
        let isCurrent = status.transaction.productID == product.id
        if !isCurrent {
            // A downgrade or crossgrade waiting for the renewal shows on the product it goes to.
            guard info.autoRenewPreference == product.id, info.willAutoRenew, status.state == .subscribed,
                  let date = status.transaction.expirationDate else { return nil }
            return "Starts \(shortDate(date))"
        }
        switch status.state {
        case .subscribed:
            guard let date = status.transaction.expirationDate else { return "Active" }
            if status.transaction.offerPaymentMode == .freeTrial {
                // A trial is a trial: when it ends, and what comes then.
                guard info.willAutoRenew else { return "Free trial until \(shortDate(date)), then ends" }
                return info.autoRenewPreference == product.id
                    ? "Free trial until \(shortDate(date)), then \(product.displayPrice)\(perPeriod(product.subscription?.subscriptionPeriod))"
                    : "Free trial until \(shortDate(date)), then changes"
            }
            guard info.willAutoRenew else { return "Expires \(shortDate(date))" }
            // A downgrade waits: this plan ends then, the other one starts.
            return info.autoRenewPreference == product.id ? "Renews \(shortDate(date))" : "Until \(shortDate(date)), then changes"
        case .inGracePeriod:
            return info.gracePeriodExpirationDate.map { "Grace period until \(shortDate($0))" } ?? "Grace period"
        case .inBillingRetryPeriod:
            return "Billing retry"
        case .expired:
            // A lapsed subscriber may come back with a win-back offer: the row says so.
            let winBack = info.eligibleWinBackOfferIDs.isEmpty ? "" : " · win-back offer"
            return (status.transaction.expirationDate.map { "Expired \(shortDate($0))" } ?? "Expired") + winBack
        case .revoked:
            return "Refunded"
        }
    }

    /// "1 week free, then $4.99/month", "$0.99/month for 3 months, then $4.99/month".
    static func introText(_ offer: Product.Offer, _ product: Product) -> String {
        let regular = "\(product.displayPrice)\(perPeriod(product.subscription?.subscriptionPeriod))"
        switch offer.paymentMode {
        case .freeTrial:
            return "\(offer.period.spelledOut) free, then \(regular)"
        case .payAsYouGo:
            let total = ISODuration(years: offer.period.years * offer.periodCount, months: offer.period.months * offer.periodCount,
                                    weeks: offer.period.weeks * offer.periodCount, days: offer.period.days * offer.periodCount)
            return "\(offer.displayPrice)\(perPeriod(offer.period)) for \(total.spelledOut), then \(regular)"
        case .payUpFront:
            return "\(offer.displayPrice) for \(offer.period.spelledOut), then \(regular)"
        }
    }

    /// "$9.99/month": a price for each period of a subscription.
    static func pricePerPeriod(_ price: String, _ period: ISODuration?) -> String { price + perPeriod(period) }

    /// "/month", "/year", or " every 3 months".
    private static func perPeriod(_ period: ISODuration?) -> String {
        guard let period else { return "" }
        let words = period.spelledOut
        return words.hasPrefix("1 ") ? "/" + words.dropFirst(2) : " every \(words)"
    }

    /// "Dec 30, 2027", in UTC so every terminal and test agrees.
    /// Worked out by arithmetic, not a date formatter: the table measures every product's status
    /// when a snapshot arrives, and formatting cost 1 ms a hundred subscription rows (ICU each time).
    public static func shortDate(_ date: Date) -> String {
        // Days since 1970-01-01 to a proleptic Gregorian civil date (Hinnant's civil_from_days).
        let days = Int((date.timeIntervalSince1970 / 86_400).rounded(.down))
        let era = (days >= -719_468 ? days + 719_468 : days + 719_468 - 146_096) / 146_097
        let dayOfEra = days + 719_468 - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shifted = (5 * dayOfYear + 2) / 153  // months from March
        let day = dayOfYear - (153 * shifted + 2) / 5 + 1
        let month = shifted < 10 ? shifted + 3 : shifted - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        // Before the Gregorian reform Foundation's calendar is the Julian one: let it say those.
        guard (1600...9999).contains(year) else { return formattedShortDate(date) }
        return "\(monthAbbreviations[month - 1]) \(day), \(year)"
    }

    private static let monthAbbreviations = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// `shortDate` as Foundation formats it (en_US, abbreviated, UTC): what the arithmetic must equal.
    static func formattedShortDate(_ date: Date) -> String {
        var style = Date.FormatStyle(date: .abbreviated, time: .omitted, locale: Locale(identifier: "en_US"))
        style.timeZone = TimeZone(identifier: "UTC")!
        return date.formatted(style)
    }
}
