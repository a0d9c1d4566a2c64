import Foundation

extension Store {
    /// Redeems an offer code (`AppStore.presentOfferCodeRedeemSheet`, `storefront redeem`):
    /// the App Store records a transaction with `offerType` code, which reaches the app as an
    /// update (unfinished, as a purchase made outside it). Unknown or expired codes are
    /// `invalidOfferIdentifier`; a one-time code used, the custom codes' limit reached, this
    /// customer's limit reached, or an account the offer is not for, `ineligibleForOffer`.
    ///
    /// A code several offers answer to (a catalog may have that; App Store Connect names each code
    /// once in an app, and `catalog check` notes it) goes to the offer whose code has the exact
    /// case typed, then to the first in file order this customer may redeem; when none may, the
    /// first one's refusal is the answer.
    func redeemOfferCode(_ code: String) async throws -> PurchaseOutcome {
        try processRenewals(onlyAccount: account)
        let date = try currentTime()
        let trimmed = code.trimmingCharacters(in: .whitespaces)
        var matches: [(item: CatalogProduct, offer: SubscriptionOffer)] = []
        for index in catalog.products.indices {
            let offers = catalog.products[index].codeOffers
            guard offers.contains(where: { $0.redeems(trimmed) }) else { continue }
            let item = catalog.products[index]
            matches += offers.filter { $0.redeems(trimmed) }.map { (item, $0) }
        }
        let exact = matches.filter { $0.offer.redemptionCodes.contains(trimmed) }
        let candidates = exact + matches.filter { !$0.offer.redemptionCodes.contains(trimmed) }
        let outcome: Result<PurchaseOutcome, StoreError> = try ledger.write {
            try ledger.ensureAccount(account, at: date)
            let productID = candidates.first?.item.id ?? "offer code"
            try ledger.log(.purchasing, account: account, productID: productID, detail: "redeeming offer code \(trimmed)", at: date)
            func fail(_ error: SimulatedError, _ reason: String) throws -> Result<PurchaseOutcome, StoreError> {
                let failure = StoreError.purchaseError(error, reason: reason)
                try ledger.log(.failed, account: account, productID: productID, detail: Self.logDetail(failure), at: date)
                return .failure(failure)
            }
            guard !candidates.isEmpty else {
                return try fail(.invalidOfferIdentifier, "no offer code \"\(trimmed)\" in the catalog")
            }
            guard try value(.canMakePayments) else { return .failure(.purchaseNotAllowed) }
            if try value(.offline) { return .failure(.simulated(.networkError, cause: "offline is true")) }
            var firstRefusal: (error: SimulatedError, reason: String)?
            for (item, offer) in candidates {
                guard let offerID = offer.codeOfferID else { continue }
                if let refusal = try codeRefusal(trimmed, offer: offer, offerID: offerID, item: item, at: date) {
                    firstRefusal = firstRefusal ?? refusal
                    continue
                }
                let outcome = try commitPurchase(item, quantity: 1, appAccountToken: nil, offerID: offerID, pending: nil,
                                                 outside: true, at: date)
                if let transaction = outcome.transaction {
                    try ledger.recordCodeRedemption(code: trimmed.uppercased(), offerID: offerID, account: account,
                                                    transactionID: transaction.id, at: date)
                }
                return .success(outcome)
            }
            let refusal = firstRefusal ?? (.invalidOfferIdentifier, "no offer code \"\(trimmed)\" in the catalog")
            return try fail(refusal.error, refusal.reason)
        }
        return try outcome.get()
    }

    /// "3 months free, then $39.99/year": a code offer's terms in the storefront, from the catalog;
    /// nil when the catalog no longer has the offer.
    func codeOfferTerms(_ offerID: String?, productID: String) throws -> String? {
        guard let terms = catalog.product(id: productID)?.subscription,
              let offer = terms.offers.first(where: { $0.kind == .code && $0.codeOfferID == offerID }),
              let product = try product(id: productID) else { return nil }
        return StatusText.offerTerms(catalog.productOffer(offer, of: terms, in: try storefront()), product)
    }

    /// Why this account cannot redeem `code` for `offer` now, if it cannot: expired, a one-time
    /// code used, the custom codes' limit or this customer's reached, or not for this customer.
    private func codeRefusal(_ code: String, offer: SubscriptionOffer, offerID: String, item: CatalogProduct,
                             at date: Date) throws -> (error: SimulatedError, reason: String)? {
        let rules = offer.codes ?? OfferCodes()
        if let expires = rules.expires, date >= expires {
            return (.invalidOfferIdentifier, "the offer code \(code) expired on \(expires.formatted(.iso8601))")
        }
        if offer.isOneTime(code), try ledger.codeRedemptions(codes: [code.uppercased()]).total > 0 {
            return (.ineligibleForOffer, "the one-time code \(code) was redeemed already")
        }
        if !offer.isOneTime(code), let limit = rules.redemptionLimit,
           try ledger.codeRedemptions(codes: rules.customCodes.map { $0.uppercased() }).total >= limit {
            return (.ineligibleForOffer, "the custom codes of \(offerID) reached their limit of \(limit) redemptions")
        }
        if try ledger.offerRedemptions(offerID: offerID, account: account) >= rules.perCustomerLimit {
            return (.ineligibleForOffer, "\(account) redeemed \(offerID) already (\(rules.perCustomerLimit) per customer)")
        }
        if item.type == .nonConsumable,
           try ledger.transactions(account: account, productID: item.id).contains(where: { $0.isActive(at: date) }) {
            return (.ineligibleForOffer, "\(account) owns \(item.id) already")
        }
        let relation = try item.subscription.map { try groupRelation($0.groupID, at: date) } ?? appPurchaseRelation(at: date)
        guard rules.eligibility.contains(relation) else {
            let whom = item.subscription == nil ? "customers" : "subscribers"
            return (.ineligibleForOffer, "\(offerID) is for \(rules.eligibility.map(\.rawValue).sorted().joined(separator: ", ")) \(whom); \(account) is \(relation.rawValue)")
        }
        return nil
    }

    /// The account's relation to the app, for a one-time product's offer code, as App Store Connect
    /// asks it: never purchased in the app (new), purchased in the last 30 days (existing), or
    /// purchased more than 30 days ago (expired).
    func appPurchaseRelation(at date: Date) throws -> OfferCodes.Eligibility {
        guard let latest = try ledger.transactions(account: account).filter({ $0.status == .purchased })
            .map(\.purchaseDate).max() else { return .new }
        return date.timeIntervalSince(latest) <= 30 * 86_400 ? .existing : .expired
    }

    /// The account's relation to a subscription group now: subscribed, lapsed, or never.
    func groupRelation(_ groupID: String, at date: Date) throws -> OfferCodes.Eligibility {
        if try isEligibleForIntroOffer(groupID: groupID) { return .new }
        let inGrace = try transactionsInGrace(at: date)
        for item in catalog.products where item.subscription?.groupID == groupID {
            if try ledger.transactions(account: account, productID: item.id).contains(where: { $0.isActive(at: date) })
                || inGrace.contains(where: { $0.productID == item.id }) {
                return .existing
            }
        }
        return .expired
    }
}
