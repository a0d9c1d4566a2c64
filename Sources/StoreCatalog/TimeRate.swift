import Foundation

/// How fast the store's clock runs, with the names of Xcode's `SKTestSession.TimeRate`.
public enum TimeRate: String, Sendable, Hashable, CaseIterable {
    case realTime
    case monthlyRenewalEveryHour
    case monthlyRenewalEveryThirtyMinutes
    case monthlyRenewalEveryFifteenMinutes
    case monthlyRenewalEveryFiveMinutes
    case monthlyRenewalEveryThirtySeconds
    case oneRenewalEveryFifteenMinutes
    case oneRenewalEveryFiveMinutes
    case oneRenewalEveryMinute
    case oneRenewalEveryThirtySeconds
    case oneRenewalEveryTenSeconds
    case oneRenewalEveryTwoSeconds

    /// The real seconds one renewal takes: of a monthly subscription (`monthlyRenewalEvery…`),
    /// or of the catalog's shortest subscription period (`oneRenewalEvery…`); nil for real time.
    var realSecondsPerRenewal: Double? {
        switch self {
        case .realTime: nil
        case .monthlyRenewalEveryHour: 3600
        case .monthlyRenewalEveryThirtyMinutes: 1800
        case .monthlyRenewalEveryFifteenMinutes, .oneRenewalEveryFifteenMinutes: 900
        case .monthlyRenewalEveryFiveMinutes, .oneRenewalEveryFiveMinutes: 300
        case .oneRenewalEveryMinute: 60
        case .monthlyRenewalEveryThirtySeconds, .oneRenewalEveryThirtySeconds: 30
        case .oneRenewalEveryTenSeconds: 10
        case .oneRenewalEveryTwoSeconds: 2
        }
    }

    /// Store seconds per real second. One clock serves the whole store, so dates stay
    /// calendar dates: a week, a month and a year scale together. `oneRenewalEvery…`
    /// makes the catalog's shortest subscription period pass in that time (Xcode renews
    /// every subscription at that pace; here a yearly one beside a weekly one takes 52 times as long).
    package func speed(shortestPeriod: ISODuration?) -> Double {
        guard let seconds = realSecondsPerRenewal else { return 1 }
        let reference = Date(timeIntervalSince1970: 0)
        let period = rawValue.hasPrefix("monthly") ? ISODuration(months: 1) : (shortestPeriod ?? ISODuration(months: 1))
        return period.after(reference).timeIntervalSince(reference) / seconds
    }
}
