import Foundation

/// Apple's minimum notice before a subscriber pays a higher price: 30 days for a yearly plan, 27 for a
/// monthly one (App Store Connect's table); shorter plans get the monthly plan's notice.
func priceIncreaseNotice(for period: ISODuration) -> ISODuration {
    let reference = Date(timeIntervalSince1970: 0)
    return period.after(reference) >= ISODuration(years: 1).after(reference) ? ISODuration(days: 30) : ISODuration(days: 27)
}

extension Store {
    // MARK: - Prices

    /// A product as the storefront sells it now: the catalog's, with the price a price change set.
    func priced(_ item: CatalogProduct, in storefront: Storefront) throws -> Product {
        catalog.product(from: try withChangedPrice(item, in: storefront), in: storefront)
    }

    /// The catalog product with its price in `storefront` replaced by the newest price change's.
    func withChangedPrice(_ item: CatalogProduct, in storefront: Storefront) throws -> CatalogProduct {
        guard item.subscription != nil, let price = try ledger.changedPrices(storefront: storefront.countryCode)[item.id] else { return item }
        var changed = item
        changed.prices[storefront.countryCode] = price
        return changed
    }

    /// The price a renewal of the account's subscription starting at `start` charges before any
    /// offer: the old price until its price increase's notice has run out, the price now after.
    func renewalBasePrice(_ item: CatalogProduct, groupID: String, account: String, at start: Date, in storefront: Storefront) throws -> Decimal {
        if let increase = try ledger.priceIncrease(account: account, groupID: groupID), increase.productID == item.id,
           increase.storefront == storefront.countryCode, start < increase.noticeEnds {
            return increase.oldPrice
        }
        return try priced(item, in: storefront).price
    }

    /// The subscription's waiting increase as its renewal info shows it: for the plan that renews next, in this storefront.
    func pendingIncrease(_ record: SubscriptionRecord, account: String) throws -> PriceIncrease? {
        let code = try storefront().countryCode
        guard let increase = try ledger.priceIncrease(account: account, groupID: record.groupID),
              increase.productID == record.autoRenewProductID, increase.storefront == code else { return nil }
        return increase
    }

    // MARK: - Changing a price

    /// Changes a subscription's price in the current storefront, as a developer does in App Store
    /// Connect: new subscribers pay it at once. For a higher price every current subscriber of the
    /// plan is told now (PRICE_INCREASE, PENDING when they must agree, ACCEPTED when not) and pays it
    /// from the first renewal after Apple's notice; one who must agree and has not by then is not
    /// renewed (EXPIRED PRICE_INCREASE). Consent is needed when `requireConsent`, beyond Apple's
    /// thresholds (more than 50% and more than $5 a period, $50 a year for yearly plans), or for a
    /// second increase without consent within a year. A lower price applies at the next renewals.
    /// `previous`: the price it had (for a catalog that changed it already); else the price now.
    func changePrice(_ productID: String, to price: Decimal, requireConsent: Bool, source: String = "command",
                     previous: Decimal? = nil) throws -> PriceChange {
        guard let item = catalog.product(id: productID), let terms = item.subscription else {
            throw StoreError.invalidPriceChange(productID: productID, reason: "only an auto-renewable subscription's price can increase for its subscribers")
        }
        guard price >= 0 else { throw StoreError.invalidPriceChange(productID: productID, reason: "a price is not negative") }
        try processRenewals()
        let date = try currentTime()
        let storefront = try storefront()
        return try ledger.write {
            let old = try previous ?? priced(item, in: storefront).price
            guard price != old else {
                throw StoreError.invalidPriceChange(productID: productID, reason: "it costs \(storefront.displayPrice(price)) already")
            }
            let increase = price > old
            let lastWithout = try ledger.lastIncreaseWithoutConsent(productID: productID, storefront: storefront.countryCode)
            let consent = increase && (requireConsent || exceedsThresholds(old, price, period: terms.period, currency: storefront.currency)
                || lastWithout.map { ISODuration(years: 1).after($0) > date } == true)
            var change = PriceChange(id: 0, productID: productID, storefront: storefront.countryCode, oldPrice: old, newPrice: price,
                                     requiresConsent: consent, date: date, source: source)
            change.id = try ledger.insertPriceChange(productID: productID, storefront: storefront.countryCode, old: old, new: price,
                                                     consentRequired: consent, at: date, source: source)
            guard increase else {
                // Existing subscriptions renew at the lower price: nothing waits any more.
                try ledger.deletePriceIncreases(productID: productID, storefront: storefront.countryCode)
                return change
            }
            for account in try ledger.subscribedAccounts() {
                for record in try ledger.subscriptionStates(account: account)
                where record.autoRenewProductID == productID && record.expirationReason == nil {
                    guard let latest = try ledger.latestTransaction(originalID: record.originalID), latest.revocationDate == nil,
                          let expiration = latest.expirationDate else { continue }
                    change.subscribers.append(try notifyIncrease(change, record: record, latest: latest, account: account,
                                                                 period: terms.period, expiration: expiration, at: date))
                }
            }
            return change
        }
    }

    /// Tells one subscriber of an increase: their increase row, PRICE_INCREASE, and the consent message.
    private func notifyIncrease(_ change: PriceChange, record: SubscriptionRecord, latest: Transaction, account: String,
                                period: ISODuration, expiration: Date, at date: Date) throws -> PriceIncrease {
        var noticeEnds = priceIncreaseNotice(for: period).after(date)
        // Apple: a free trial renews once more at the price shown when it began.
        if latest.offerType == .introductory, latest.price == 0 { noticeEnds = max(noticeEnds, expiration.addingTimeInterval(0.001)) }
        // A subscriber already waiting for an earlier increase still pays what they pay now until this one's notice ends.
        let earlier = try ledger.priceIncrease(account: account, groupID: record.groupID)
        let paying = earlier.map { $0.productID == change.productID && expiration < $0.noticeEnds ? $0.oldPrice : change.oldPrice }
            ?? change.oldPrice
        var increase = PriceIncrease(
            account: account, groupID: record.groupID, originalTransactionID: record.originalID, changeID: change.id,
            productID: change.productID, storefront: change.storefront, oldPrice: paying, newPrice: change.newPrice,
            requiresConsent: change.requiresConsent, notified: date, noticeEnds: noticeEnds,
            status: change.requiresConsent ? .pending : .agreed)
        try ledger.savePriceIncrease(increase)
        try notify(.priceIncrease, change.requiresConsent ? .pending : .accepted, transaction: latest, record: record,
                   account: account, at: date)
        if change.requiresConsent {
            try ledger.queueMessage(account: account, reason: .priceIncreaseConsent, productID: change.productID,
                                    key: "priceIncrease:\(change.id):\(record.originalID)", at: date)
        }
        increase.effectiveDate = effectiveRenewal(after: expiration, period: period, noticeEnds: noticeEnds,
                                                  offer: try renewalOffer(after: latest, record: record))
        return increase
    }

    /// The renewal date on or after `noticeEnds`, stepping the plan's periods from the current one's end —
    /// after the renewals still inside `offer`, the offer the next renewal takes: those charge the offer's price.
    func effectiveRenewal(after expiration: Date, period: ISODuration, noticeEnds: Date, offer: RenewalOffer? = nil) -> Date {
        var date = expiration
        for _ in 0..<(offer?.left ?? 0) { date = offer!.period.after(date) }
        for _ in 0..<1_000 where date < noticeEnds { date = period.after(date) }
        return date
    }

    /// Apple's thresholds for an increase the subscriber must agree to: more than 50% and more than
    /// US$5 a period (US$50 a year for yearly plans). Apple converts the dollar amounts to each
    /// currency; the store compares them in US dollars only, and elsewhere asks at 50% alone.
    func exceedsThresholds(_ old: Decimal, _ new: Decimal, period: ISODuration, currency: String) -> Bool {
        guard new - old > old / 2 else { return false }
        guard currency == "USD" else { return true }
        let reference = Date(timeIntervalSince1970: 0)
        let yearly = period.after(reference) >= ISODuration(years: 1).after(reference)
        return new - old > (yearly ? 50 : 5)
    }

    /// The price changes made so far, and the increases the account's subscriptions wait for.
    func priceIncreases() throws -> (changes: [PriceChange], waiting: [PriceIncrease]) {
        try processRenewals(onlyAccount: account)
        return (try ledger.priceChanges(), try waitingIncreases())
    }

    /// The increases the account's subscriptions wait for, as their renewal info says (``pendingIncrease(_:account:)``:
    /// in this storefront; after a storefront change `price-increase` listed one `status` said was not pending).
    func waitingIncreases() throws -> [PriceIncrease] {
        let code = try storefront().countryCode
        return try ledger.priceIncreases(account: account).filter { $0.storefront == code }.map(withEffectiveDate)
    }

    /// The increase with the renewal that takes it, as the subscription's schedule stands now.
    func withEffectiveDate(_ increase: PriceIncrease) throws -> PriceIncrease {
        var increase = increase
        if let latest = try ledger.latestTransaction(originalID: increase.originalTransactionID), let end = latest.expirationDate,
           let period = catalog.product(id: increase.productID)?.subscription?.period {
            let record = try ledger.subscriptionStates(account: increase.account).first { $0.originalID == increase.originalTransactionID }
            increase.effectiveDate = effectiveRenewal(after: end, period: period, noticeEnds: increase.noticeEnds,
                                                      offer: try record.flatMap { try renewalOffer(after: latest, record: $0) })
        }
        return increase
    }

    /// Whether a waiting increase still concerns the subscription it was told to: still live, and
    /// renewing to the plan whose price went up. One that expired or changed plan since has nothing to agree to.
    func stillConcerns(_ increase: PriceIncrease, _ record: SubscriptionRecord?) -> Bool {
        guard let record else { return false }
        return record.originalID == increase.originalTransactionID && record.expirationReason == nil
            && record.autoRenewProductID == increase.productID
    }

    /// Drops the increases (and settles their consent messages) of subscriptions they no longer concern:
    /// `status` said no increase waits while `price-increase`, `messages` and the paywall's sheet still
    /// asked for consent that every answer then refused (`noPriceIncrease`). `scope`: these accounts only.
    func dropStaleIncreases(scope: Set<String>? = nil) throws {
        let stale = { [self] () throws -> [PriceIncrease] in
            try ledger.priceIncreases().filter { increase in
                guard scope?.contains(increase.account) ?? true else { return false }
                let record = try ledger.subscriptionStates(account: increase.account).first { $0.groupID == increase.groupID }
                return !stillConcerns(increase, record)
            }
        }
        // Cheap check first: most calls find none and take no write lock.
        guard try !stale().isEmpty else { return }
        try ledger.write {
            for increase in try stale() {
                try ledger.deletePriceIncrease(account: increase.account, groupID: increase.groupID)
                try ledger.settleMessages(account: increase.account, reason: .priceIncreaseConsent, productID: increase.productID)
            }
        }
    }

    // MARK: - Renewals

    /// What a renewal at `expiration` does about a waiting increase: nil to renew (at the old price
    /// while the notice runs, the new one after), or true when the subscription ends because the
    /// subscriber had to agree and did not (expired with `didNotConsentToPriceIncrease`).
    func priceIncreaseEnds(_ record: inout SubscriptionRecord, latest: Transaction, account: String, at expiration: Date) throws -> Bool {
        // The increase of the plan that renews, in this storefront: what status and renewal info say waits.
        guard let increase = try pendingIncrease(record, account: account), expiration >= increase.noticeEnds else { return false }
        // A renewal still inside an offer charges the offer's price: the increase, and the consent it
        // needs, wait for the first renewal after the offer (as a free trial's first paid renewal does).
        if try renewalOffer(after: latest, record: record) != nil { return false }
        try ledger.deletePriceIncrease(account: account, groupID: record.groupID)
        guard increase.requiresConsent, increase.status == .pending else { return false }
        record.expirationReason = .didNotConsentToPriceIncrease
        try ledger.settleMessages(account: account, reason: .priceIncreaseConsent, productID: increase.productID)
        try ledger.log(.expired, account: account, productID: latest.productID, transactionID: latest.id,
                       detail: "expired: the price increase to \(DecimalText.format(increase.newPrice)) was not agreed to (didNotConsentToPriceIncrease)",
                       at: expiration)
        try notify(.expired, .priceIncrease, transaction: latest, record: record, account: account, at: expiration)
        return true
    }

    /// A price change noticed between runs: a subscription's price in the catalog (this storefront)
    /// differs from the one this store file saw last. It is made as `price-increase` would, once.
    func noticeCatalogPriceChanges() throws {
        guard !catalog.isAbsent, !catalogPricesNoticed else { return }
        catalogPricesNoticed = true
        let storefront = try storefront()
        let seen = try ledger.catalogPrices(storefront: storefront.countryCode)
        let current = catalog.products.filter { $0.subscription != nil && $0.isAvailable(in: storefront.countryCode) }
            .map { ($0.id, $0.prices[storefront.countryCode] ?? $0.price) }
        let unseen = current.filter { seen[$0.0] != $0.1 }
        guard !unseen.isEmpty else { return }
        try ledger.write {
            // Read again under the write lock (another process may have noticed them meanwhile), once:
            // read for each product, a new store file's first purchase read 1,000 prices 1,000 times.
            let noticed = try ledger.catalogPrices(storefront: storefront.countryCode)
            for (id, price) in unseen {
                guard let before = noticed[id], before != price else {
                    try ledger.saveCatalogPrice(productID: id, storefront: storefront.countryCode, price: price)
                    continue
                }
                try ledger.saveCatalogPrice(productID: id, storefront: storefront.countryCode, price: price)
                // From what subscribers pay now: the catalog's old price, or a later price change's.
                let old = try ledger.changedPrices(storefront: storefront.countryCode)[id] ?? before
                if old != price { _ = try changePrice(id, to: price, requireConsent: false, source: "catalog", previous: old) }
            }
        }
    }
}
