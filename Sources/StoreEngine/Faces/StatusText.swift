import Foundation

/// The pieces every status is written with, once for the CLI and the paywall: a date, a price
/// for each period of a subscription, an offer's terms.
public enum StatusText {
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
    public static func formattedShortDate(_ date: Date) -> String {
        var style = Date.FormatStyle(date: .abbreviated, time: .omitted, locale: Locale(identifier: "en_US"))
        style.timeZone = TimeZone(identifier: "UTC")!
        return date.formatted(style)
    }

    /// "$9.99/month": a price for each period of a subscription.
    public static func pricePerPeriod(_ price: String, _ period: ISODuration?) -> String { price + perPeriod(period) }

    /// "/month", "/year", or " every 3 months".
    static func perPeriod(_ period: ISODuration?) -> String {
        guard let period else { return "" }
        let words = period.spelledOut
        return words.hasPrefix("1 ") ? "/" + words.dropFirst(2) : " every \(words)"
    }

    /// An offer's terms: "1 week free, then $4.99/month", "$0.99/month for 3 months, then $4.99/month".
    public static func offerTerms(_ offer: Product.Offer, _ product: Product) -> String {
        let regular = pricePerPeriod(product.displayPrice, product.subscription?.subscriptionPeriod)
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
}
