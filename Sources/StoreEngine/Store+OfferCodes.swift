import Foundation

extension Store {
    /// Redeems an offer code (`AppStore.presentOfferCodeRedeemSheet`, `storefront redeem`):
    /// the App Store records a transaction with `offerType` code, which reaches the app as an
    /// update (unfinished, as a purchase made outside it). Unknown or expired codes are
    /// `invalidOfferIdentifier`; a one-time code used, the custom codes' limit reached, this
    /// customer's limit reached, or an account the offer is not for, `ineligibleForOffer`.
    func redeemOfferCode(_ code: String) async throws -> PurchaseOutcome {
        try processRenewals(onlyAccount: account)
        let date = try currentTime()
        let trimmed = code.trimmingCharacters(in: .whitespaces)
        let match = catalog.products.lazy.compactMap { item in
            item.subscription?.offers.first { $0.redeems(trimmed) }.map { (item, $0) }
        }.first
        let outcome: Result<PurchaseOutcome, StoreError> = try ledger.write {
            try ledger.ensureAccount(account, at: date)
            let productID = match?.0.id ?? "offer code"
            try ledger.log(.purchasing, account: account, productID: productID, detail: "redeeming offer code \(trimmed)", at: date)
            func fail(_ error: SimulatedError, _ reason: String) throws -> Result<PurchaseOutcome, StoreError> {
                let failure = StoreError.purchaseError(error, reason: reason)
                try ledger.log(.failed, account: account, productID: productID, detail: Self.logDetail(failure), at: date)
                return .failure(failure)
            }
            guard let (item, offer) = match, let terms = item.subscription, let offerID = offer.codeOfferID else {
                return try fail(.invalidOfferIdentifier, "no offer code \"\(trimmed)\" in the catalog")
            }
            guard try value(.canMakePayments) else { return .failure(.purchaseNotAllowed) }
            if try value(.offline) { return .failure(.simulated(.networkError, cause: "offline is true")) }
            let rules = offer.codes ?? OfferCodes()
            if let expires = rules.expires, date >= expires {
                return try fail(.invalidOfferIdentifier, "the offer code \(trimmed) expired on \(expires.formatted(.iso8601))")
            }
            let used = try ledger.codeRedemptions(codes: [trimmed.uppercased()])
            if offer.isOneTime(trimmed), used.total > 0 {
                return try fail(.ineligibleForOffer, "the one-time code \(trimmed) was redeemed already")
            }
            if !offer.isOneTime(trimmed), let limit = rules.redemptionLimit,
               try ledger.codeRedemptions(codes: rules.customCodes.map { $0.uppercased() }).total >= limit {
                return try fail(.ineligibleForOffer, "the custom codes of \(offerID) reached their limit of \(limit) redemptions")
            }
            if try ledger.offerRedemptions(offerID: offerID, account: account) >= rules.perCustomerLimit {
                return try fail(.ineligibleForOffer, "\(account) redeemed \(offerID) already (\(rules.perCustomerLimit) per customer)")
            }
            let relation = try groupRelation(terms.groupID, at: date)
            guard rules.eligibility.contains(relation) else {
                return try fail(.ineligibleForOffer, "\(offerID) is for \(rules.eligibility.map(\.rawValue).sorted().joined(separator: ", ")) subscribers; \(account) is \(relation.rawValue)")
            }
            let outcome = try commitPurchase(item, quantity: 1, appAccountToken: nil, offerID: offerID, pending: nil,
                                             outside: true, at: date)
            if let transaction = outcome.transaction {
                try ledger.recordCodeRedemption(code: trimmed.uppercased(), offerID: offerID, account: account,
                                                transactionID: transaction.id, at: date)
            }
            return .success(outcome)
        }
        return try outcome.get()
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
