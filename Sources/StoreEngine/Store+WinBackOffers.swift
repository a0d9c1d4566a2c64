import Foundation

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
        try ledger.write {
            for message in due {
                try ledger.queueMessage(account: account, reason: .winBackOffer, productID: message.productID,
                                        offerID: message.offerID, key: message.key, at: date)
            }
        }
    }
}

extension Store {
    func eligibleWinBackOffers(groupID: String) throws -> [String] {
        try processRenewals(onlyAccount: account)
        let groupID = catalog.product(id: groupID)?.subscription?.groupID ?? groupID
        return try eligibleWinBackOfferIDs(groupID: groupID, at: try currentTime())
    }
}
