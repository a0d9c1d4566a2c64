import Foundation

/// Which renewals App Store Connect's Billing Grace Period covers (`renewalType` of its
/// `subscriptionGracePeriods` resource).
public enum GracePeriodRenewalType: String, Sendable, Hashable, CaseIterable {
    /// Every renewal: paid ones, and a free introductory or other free offer turning into a paid one.
    case allRenewals = "ALL_RENEWALS"
    /// Only a paid period renewing into another paid one: a free offer's end gets no grace period.
    case paidToPaidOnly = "PAID_TO_PAID_ONLY"

    /// App Store Connect's durations (`SubscriptionGracePeriodDuration`) in days, by their names.
    static let durations = ["THREE_DAYS": 3, "SIXTEEN_DAYS": 16, "TWENTY_EIGHT_DAYS": 28]

    /// The days a duration names (`16`, `SIXTEEN_DAYS`); nil for anything App Store Connect does not offer.
    static func durationDays(_ text: String) -> Int? {
        if let days = Int(text), durations.values.contains(days) { return days }
        return durations[text.uppercased()]
    }
}

/// The Billing Grace Period as the settings configure it.
struct GracePeriodRule: Sendable {
    var days: Int
    var renewalType: GracePeriodRenewalType

    /// A weekly (or shorter) plan's grace period is at most 6 days, whatever the duration chosen.
    static let weeklyCapDays = 6

    /// The grace period a failed renewal of `period` gets after `latest`, the period that ended; nil when
    /// none (a free offer's end under ``GracePeriodRenewalType/paidToPaidOnly``).
    func gracePeriod(for period: ISODuration, after latest: Transaction) -> ISODuration? {
        if renewalType == .paidToPaidOnly, latest.price == 0 { return nil }
        let reference = Date(timeIntervalSince1970: 0)
        let weekly = period.after(reference) <= ISODuration(weeks: 1).after(reference)
        return ISODuration(days: weekly ? min(days, Self.weeklyCapDays) : days)
    }
}
