import Foundation

/// The offer the next renewal of a subscription takes: a pay-as-you-go offer still
/// running, or a promotional offer bought while subscribed (`scheduled`).
struct RenewalOffer: Equatable {
    var type: Transaction.OfferType
    var id: String?
    var mode: PaymentMode
    var period: ISODuration
    var count: Int
    var price: Decimal
    var scheduled: Bool
    /// The renewals that take it, the next one included: what is left of a running offer's periods,
    /// a scheduled offer's periods (one for a free or pay-up-front offer).
    var left: Int
}

/// What each renewal brings: the offer it takes and the date it ends.
extension Store {
    /// The offer the subscription's next renewal takes, if any: a promotional offer bought
    /// while subscribed to the product that renews, else a pay-as-you-go offer of the current
    /// product with periods left.
    func renewalOffer(after latest: Transaction, record: SubscriptionRecord) throws -> RenewalOffer? {
        guard let item = catalog.product(id: record.autoRenewProductID) else { return nil }
        if let id = record.renewalOfferID, let terms = offerTerms(item, type: offerKind(item, id: id), id: id) {
            return RenewalOffer(type: offerKind(item, id: id), id: id, mode: terms.mode, period: terms.period, count: terms.count,
                                price: terms.price, scheduled: true, left: terms.mode == .payAsYouGo ? max(terms.count, 1) : 1)
        }
        guard item.id == latest.productID, let type = latest.offerType,
              let terms = offerTerms(item, type: type, id: latest.offerID, monthly: latest.commitment != nil),
              terms.mode == .payAsYouGo else { return nil }
        // The periods of this offer so far: the run of transactions with it, back to the purchase that began it.
        var used = 0
        for link in try ledger.subscriptionLinks(originalID: latest.originalID, limit: terms.count + 1) {
            guard link.offerType == type, link.offerID == latest.offerID else { break }
            used += 1
            if link.isPurchase { break }
        }
        guard used < terms.count else { return nil }
        return RenewalOffer(type: type, id: latest.offerID, mode: terms.mode, period: terms.period, count: terms.count,
                            price: terms.price, scheduled: false, left: terms.count - used)
    }

    /// The end of a renewal period starting at `start`, right after `latest`. The App Store
    /// keeps a subscription's day of the month: bought on the 31st, it renews on the last day
    /// of shorter months and on the 31st again after them (Jan 31 → Feb 28 → Mar 31), not on
    /// the 28th for good — through offer periods and changes of plan alike, for as long as
    /// whole-month periods follow each other without a break.
    func renewalEnd(after start: Date, period: ISODuration, latest: Transaction) throws -> Date {
        let nominal = period.after(start)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        // Only a whole-month period, starting on a month's last day, right where the last one ended, can have been cut short.
        guard period.isWholeMonths, latest.expirationDate == start,
              let days = calendar.range(of: .day, in: .month, for: start),
              calendar.component(.day, from: start) == days.upperBound - 1 else { return nominal }
        // The day the run keeps is the largest day among its periods' starts (the first period's, never cut short);
        // a year of periods back is enough to meet a month long enough.
        var wanted = calendar.component(.day, from: start)
        var next = start
        for link in try ledger.subscriptionLinks(originalID: latest.originalID, limit: 24) {
            guard link.expirationDate == next, let item = catalog.product(id: link.productID),
                  let length = link.offerType.flatMap({ offerTerms(item, type: $0, id: link.offerID)?.period })
                      ?? item.subscription?.period,
                  length.isWholeMonths else { break }
            wanted = max(wanted, calendar.component(.day, from: link.purchaseDate))
            if link.isPurchase { break }
            next = link.purchaseDate
        }
        guard let nominalDays = calendar.range(of: .day, in: .month, for: nominal) else { return nominal }
        var components = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second, .nanosecond], from: nominal)
        components.day = min(wanted, nominalDays.upperBound - 1)
        return calendar.date(from: components) ?? nominal
    }

    /// An introductory or promotional offer's terms, as one shape. `monthly`: bought on the monthly
    /// plan, whose introductory offer is its own (`BillingPlan.introductoryOffer`).
    func offerTerms(_ item: CatalogProduct, type: Transaction.OfferType, id: String?, monthly: Bool = false)
        -> (mode: PaymentMode, period: ISODuration, count: Int, price: Decimal)? {
        guard let terms = item.subscription else { return nil }
        switch type {
        case .introductory:
            let offer = monthly ? terms.monthlyPlan?.introductoryOffer : terms.introductoryOffer
            return offer.map { ($0.paymentMode, $0.period, $0.periodCount, $0.price) }
        case .promotional:
            guard let offer = terms.offers.first(where: { $0.kind == .promotional && $0.id == id }) else { return nil }
            return (offer.paymentMode ?? .payAsYouGo, offer.period ?? terms.period, offer.periodCount, offer.price ?? 0)
        case .code:
            guard let offer = terms.offers.first(where: { $0.kind == .code && $0.codeOfferID == id }) else { return nil }
            return (offer.paymentMode ?? .payAsYouGo, offer.period ?? terms.period, offer.periodCount, offer.price ?? 0)
        case .winBack:
            guard let offer = terms.offers.first(where: { $0.kind == .winBack && $0.id == id }) else { return nil }
            return (offer.paymentMode ?? .payAsYouGo, offer.period ?? terms.period, offer.periodCount, offer.price ?? 0)
        }
    }

    /// Whether the offer `id` of a subscription is a promotional offer, an offer code's (by its
    /// reference name, as Apple's `offerIdentifier` names a code offer) or a win-back offer.
    func offerKind(_ item: CatalogProduct, id: String) -> Transaction.OfferType {
        let offers = item.subscription?.offers ?? []
        if offers.contains(where: { $0.kind == .promotional && $0.id == id }) { return .promotional }
        if offers.contains(where: { $0.kind == .code && $0.codeOfferID == id }) { return .code }
        return offers.contains(where: { $0.kind == .winBack && $0.id == id }) ? .winBack : .promotional
    }
}
