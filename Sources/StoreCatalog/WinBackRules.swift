import Foundation

/// Who may redeem a win-back offer, as App Store Connect sets it up (the `customerEligibility…`
/// attributes of a `WinBackOffer`): customers whose subscription lapsed (expired, not renewing),
/// who paid for it long enough, within a window of time since it lapsed, not too soon after
/// their last win-back offer, while the offer runs. `priority` orders the eligible offers.
public struct WinBackRules: Sendable, Hashable {
    /// App Store Connect's `priority`: HIGH offers come before NORMAL ones.
    public enum Priority: String, Sendable, Hashable, CaseIterable {
        case high = "HIGH"
        case normal = "NORMAL"
    }

    /// `customerEligibilityPaidSubscriptionDurationInMonths`: at least this many months paid (0: any).
    public var paidSubscriptionDurationInMonths = 0
    /// `customerEligibilityTimeSinceLastSubscribedInMonths.minimum`: months since the lapse, at least.
    public var minimumMonthsSinceLastSubscribed = 0
    /// `customerEligibilityTimeSinceLastSubscribedInMonths.maximum`: months since the lapse, at most (nil: no limit).
    public var maximumMonthsSinceLastSubscribed: Int?
    /// `customerEligibilityWaitBetweenOffersInMonths`: months after redeeming a win-back offer before another.
    public var waitBetweenOffersInMonths: Int?
    /// `startDate`: the offer runs from then (nil: always did).
    public var startDate: Date?
    /// `endDate`: the offer runs until then (a date alone: to the end of that day, UTC).
    public var endDate: Date?
    public var priority = Priority.normal

    public init() {}

    /// The keys read from a products.json or `.storekit` win-back offer: App Store Connect's attribute names.
    package static let keys = ["customerEligibilityPaidSubscriptionDurationInMonths", "customerEligibilityTimeSinceLastSubscribedInMonths",
                       "customerEligibilityWaitBetweenOffersInMonths", "startDate", "endDate", "priority"]
}

extension Node {
    /// A win-back offer's rules, from App Store Connect's attribute names; nil when it carries none.
    /// `null` counts as absent (Xcode writes nulls for unset fields).
    func winBackRules() throws -> WinBackRules? {
        let present = WinBackRules.keys.compactMap { key in child(key).flatMap { $0.isNull ? nil : ($0, key) } }
        guard !present.isEmpty else { return nil }
        var rules = WinBackRules()
        for (node, key) in present {
            switch key {
            case "customerEligibilityPaidSubscriptionDurationInMonths":
                rules.paidSubscriptionDurationInMonths = try node.months()
            case "customerEligibilityWaitBetweenOffersInMonths":
                rules.waitBetweenOffersInMonths = try node.months()
            case "customerEligibilityTimeSinceLastSubscribedInMonths":
                _ = try node.members()
                if let minimum = node.child("minimum"), !minimum.isNull {
                    rules.minimumMonthsSinceLastSubscribed = try minimum.months()
                }
                if let maximum = node.child("maximum"), !maximum.isNull {
                    let months = try maximum.months()
                    guard months >= rules.minimumMonthsSinceLastSubscribed else {
                        throw maximum.fail("maximum \(months) is below the minimum \(rules.minimumMonthsSinceLastSubscribed)")
                    }
                    rules.maximumMonthsSinceLastSubscribed = months
                }
            case "priority":
                let text = try node.string()
                guard let priority = WinBackRules.Priority(rawValue: text.uppercased()) else {
                    throw node.fail("unknown priority \(node.describe()); expected \"HIGH\" or \"NORMAL\"")
                }
                rules.priority = priority
            default:
                let (date, dayOnly) = try node.offerDate()
                rules.startDate = key == "startDate" ? date : rules.startDate
                // An end date alone means the whole of that day, as App Store Connect's dates do.
                if key == "endDate" { rules.endDate = dayOnly ? date.addingTimeInterval(86_400) : date }
            }
        }
        if let start = rules.startDate, let end = rules.endDate, end <= start {
            throw fail("endDate is not after startDate")
        }
        return rules
    }

    private func months() throws -> Int {
        let months = try integer()
        guard months >= 0 else { throw fail("a number of months must not be negative") }
        return months
    }

    /// `2026-07-01` (midnight UTC; `dayOnly`) or an ISO-8601 date and time.
    private func offerDate() throws -> (Date, dayOnly: Bool) {
        let text = try string()
        if let date = try? Date(text, strategy: .iso8601) { return (date, false) }
        if let day = try? Date(text + "T00:00:00Z", strategy: .iso8601) { return (day, true) }
        throw fail("\(describe()) is not a date such as \"2026-07-01\" or \"2026-07-01T00:00:00Z\"")
    }
}
