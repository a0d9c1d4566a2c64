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
    static let keys = ["customerEligibilityPaidSubscriptionDurationInMonths", "customerEligibilityTimeSinceLastSubscribedInMonths",
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

extension Store {
    /// The win-back offer ids the account may redeem in the group now, best first (`RenewalInfo.eligibleWinBackOfferIDs`).
    /// `record`: the subscription as it stands in the write under way (else as the file has it).
    func eligibleWinBackOfferIDs(groupID: String, account: String? = nil, at date: Date,
                                 record: SubscriptionRecord? = nil) throws -> [String] {
        try winBackVerdicts(groupID: groupID, account: account ?? self.account, at: date, record: record)
            .filter { $0.fault == nil }.map(\.id)
    }

    /// Each win-back offer of the product the account last subscribed to in the group, best first, with
    /// why it may not redeem it (nil: eligible). Apple's rules: the subscription churned (expired, and
    /// not in billing retry or grace; a refund is not a lapse), and each offer's own rules.
    func winBackVerdicts(groupID: String, account: String, at date: Date,
                         record: SubscriptionRecord? = nil) throws -> [(id: String, fault: String?)] {
        guard let record = try record ?? ledger.subscriptionStates(account: account).first(where: { $0.groupID == groupID }),
              let latest = try ledger.latestTransaction(originalID: record.originalID),
              let item = catalog.product(id: latest.productID) else { return [] }
        let offers = (item.subscription?.offers ?? []).enumerated()
            .filter { $0.element.kind == .winBack && $0.element.id != nil }
            .sorted { ($0.element.winBack?.priority == .high ? 0 : 1, $0.offset) < ($1.element.winBack?.priority == .high ? 0 : 1, $1.offset) }
            .map(\.element)
        guard !offers.isEmpty else { return [] }
        let lapse = latest.expirationDate ?? latest.purchaseDate
        let churned: String? = if latest.revocationDate != nil { "the subscription was refunded, not lapsed" }
            else if record.billingRetrySince != nil { "the subscription is in billing retry, not lapsed" }
            else if record.expirationReason == nil || lapse > date { "the subscription is active, not lapsed" }
            else { nil }
        let paid = try paidMonths(originalID: record.originalID)
        let lastWinBack = try ledger.latestOfferPurchase(account: account, groupID: groupID, offerType: .winBack)
        return offers.map { offer in
            let rules = offer.winBack ?? WinBackRules()
            let fault: String?
            if let churned {
                fault = churned
            } else if let start = rules.startDate, date < start {
                fault = "the offer starts \(start.formatted(.iso8601))"
            } else if let end = rules.endDate, date >= end {
                fault = "the offer ended \(end.formatted(.iso8601))"
            } else if paid + 1e-9 < Double(rules.paidSubscriptionDurationInMonths) {
                fault = "it needs \(rules.paidSubscriptionDurationInMonths) paid months; \(account) paid \(String(format: "%.1f", paid))"
            } else if ISODuration(months: rules.minimumMonthsSinceLastSubscribed).after(lapse) > date {
                fault = "it is for subscribers lapsed \(rules.minimumMonthsSinceLastSubscribed) months or more (lapsed \(lapse.formatted(.iso8601)))"
            } else if let maximum = rules.maximumMonthsSinceLastSubscribed, ISODuration(months: maximum).after(lapse) < date {
                fault = "it is for subscribers lapsed at most \(maximum) months (lapsed \(lapse.formatted(.iso8601)))"
            } else if let wait = rules.waitBetweenOffersInMonths, let last = lastWinBack, ISODuration(months: wait).after(last) > date {
                fault = "\(wait) months must pass after the win-back offer redeemed \(last.formatted(.iso8601))"
            } else {
                fault = nil
            }
            return (offer.id!, fault)
        }
    }

    /// How long the subscription was paid for, in months: each paid period's calendar months, and a
    /// shorter remainder as a fraction of 30 days (free trials and free offers do not count).
    func paidMonths(originalID: Int64) throws -> Double {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return try ledger.paidPeriods(originalID: originalID).reduce(0) { total, period in
            let parts = calendar.dateComponents([.month, .second], from: period.start, to: period.end)
            return total + Double(parts.month ?? 0) + Double(parts.second ?? 0) / (30 * 86_400)
        }
    }

    /// Why a purchase with the win-back offer `offerID` may not go ahead; nil when it may.
    func winBackFault(_ item: CatalogProduct, offerID: String, at date: Date) throws -> StoreError? {
        guard let terms = item.subscription, terms.offers.contains(where: { $0.kind == .winBack && $0.id == offerID }) else {
            return .purchaseError(.invalidOfferIdentifier, reason: "\(item.id) has no win-back offer \"\(offerID)\"")
        }
        let verdicts = try winBackVerdicts(groupID: terms.groupID, account: account, at: date)
        guard let verdict = verdicts.first(where: { $0.id == offerID }) else {
            return .purchaseError(.ineligibleForOffer, reason: verdicts.isEmpty
                ? "win-back offers are for lapsed subscribers of the group"
                : "win-back offers go with the product the account last subscribed to in the group")
        }
        return verdict.fault.map { .purchaseError(.ineligibleForOffer, reason: $0) }
    }

    /// Queues a win-back message for each group whose lapsed subscription has an eligible offer now,
    /// once per lapse (StoreKit shows it when the app launches). Writes only when one is due.
    func queueWinBackMessages(at date: Date) throws {
        var due: [(productID: String, offerID: String, key: String)] = []
        for record in try ledger.subscriptionStates(account: account) where record.expirationReason != nil {
            guard let offerID = try eligibleWinBackOfferIDs(groupID: record.groupID, at: date).first,
                  let latest = try ledger.latestTransaction(originalID: record.originalID) else { continue }
            let key = "winBack:\(record.groupID):\((latest.expirationDate ?? latest.purchaseDate).milliseconds)"
            if try !ledger.hasMessage(account: account, key: key) { due.append((latest.productID, offerID, key)) }
        }
        guard !due.isEmpty else { return }
        try ledger.db.transaction {
            for message in due {
                try ledger.queueMessage(account: account, reason: .winBackOffer, productID: message.productID,
                                        offerID: message.offerID, key: message.key, at: date)
            }
        }
    }
}

extension AppFace {
    /// The win-back offers the account may redeem for a subscription group now, best first (StoreKit's
    /// `RenewalInfo.eligibleWinBackOfferIDs`); empty unless its subscription lapsed.
    public func eligibleWinBackOfferIDs(groupID: String) async throws -> [String] {
        try await store.eligibleWinBackOffers(groupID: groupID)
    }
}

extension Store {
    func eligibleWinBackOffers(groupID: String) throws -> [String] {
        try processRenewals(onlyAccount: account)
        let groupID = catalog.product(id: groupID)?.subscription?.groupID ?? groupID
        return try eligibleWinBackOfferIDs(groupID: groupID, at: try currentTime())
    }
}
