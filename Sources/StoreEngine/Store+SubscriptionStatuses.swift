import Foundation

/// Each subscription group's status and renewal information, as StoreKit 2 reports them.
extension Store {
    /// Each subscription group the account has subscribed to: its renewal state and
    /// renewal info (`Product.SubscriptionInfo.status`). Renewals due are made first.
    func subscriptionStatuses() throws -> [SubscriptionStatus] {
        try processRenewals()
        return try statuses(at: try currentTime())
    }

    /// Each subscription group's first status (the account's own before one its family shares),
    /// only where that one is in billing retry, its renewal info unsigned: the only statuses whose
    /// state can be `inGracePeriod`, for a reader that marks grace periods and nothing else
    /// (`transactions`, whose rows say "expired" or "grace period"). Each as
    /// ``subscriptionStatuses()`` gives it, without a signature and a seal check for every group
    /// of the account (a hundred groups: a third of a `transactions` process's work).
    func billingRetryStatuses() throws -> [SubscriptionStatus] {
        try processRenewals()
        var groups = Set<String>()
        return try statuses(at: try currentTime(), signed: false) { record in
            groups.insert(record.groupID).inserted && record.billingRetrySince != nil
        }
    }

    /// The statuses at `date`, renewals due already made.
    ///
    /// As Apple's renewal info: `renewalDate` is the newest period's end in every state
    /// (expired, billing retry and revoked too); `recentSubscriptionStartDate` ignores
    /// upgrades and lapses of 60 days or less; `renewalPrice` and the `offer…` fields are
    /// what the next renewal charges, an offer still running or scheduled included.
    /// Of this store's account, or another's (the server answers for every account): its own
    /// subscriptions first, then those its family shares with it (a group may have both, as Apple's).
    /// `signed` false leaves the renewal info's `jwsRepresentation` nil (a P-256 signature each): for
    /// a reader that never shows or hands it on (the paywall's snapshot).
    /// `including`: which groups' records to make a status of (every one by default).
    func statuses(at date: Date, account: String? = nil, signed: Bool = true,
                  including: (SubscriptionRecord) -> Bool = { _ in true }) throws -> [SubscriptionStatus] {
        let account = account ?? self.account
        let records = try (ledger.subscriptionStates(account: account) + sharedRecords(account: account)).filter(including)
        let latest = try ledger.latestTransactions(originalIDs: records.map(\.originalID))
        return try records.compactMap { record -> SubscriptionStatus? in
            guard let latest = latest[record.originalID] else { return nil }
            return try status(of: record, latest: latest, account: account, at: date, signed: signed)
        }
    }

    /// One subscription's status at `date`, its renewal info signed (also for the notifications' `signedRenewalInfo`)
    /// unless `signed` is false.
    func status(of record: SubscriptionRecord, latest: Transaction, account: String, at date: Date,
                signed: Bool = true) throws -> SubscriptionStatus {
            let storefront = try storefront()
            let state: RenewalState
            if latest.revocationDate != nil {
                state = .revoked
            } else if record.billingRetrySince != nil {
                state = record.graceUntil.map { $0 > date } == true ? .inGracePeriod : .inBillingRetryPeriod
            } else if latest.expirationDate.map({ $0 > date }) == true {
                state = .subscribed
            } else {
                state = .expired
            }
            let renewing = catalog.product(id: record.autoRenewProductID)
            // Apple: a gap in paid service "of more than 60 days in the production environment, or 10 minutes in
            // the sandbox environment" starts a new run (the subscription's environment, as its payloads say).
            let gap: TimeInterval = latest.environment == .sandbox ? 10 * 60 : 60 * 86_400
            let start = try ledger.recentSubscriptionStart(originalID: record.originalID, gap: gap) ?? latest.purchaseDate
            var info = RenewalInfo(
                originalTransactionID: record.originalID, currentProductID: latest.productID,
                autoRenewPreference: record.autoRenewProductID, willAutoRenew: record.willAutoRenew && state != .revoked,
                renewalDate: latest.expirationDate, recentSubscriptionStartDate: start,
                environment: latest.environment, currency: storefront.currency,
                renewalPrice: try renewing.map { try renewalBasePrice($0, groupID: record.groupID, account: account,
                                                                   at: latest.expirationDate ?? date, in: storefront) } ?? latest.price)
            if let offer = try renewalOffer(after: latest, record: record) {
                (info.renewalPrice, info.offerType, info.offerID) = (offer.price, offer.type, offer.id)
                info.offerPaymentMode = offer.mode
                info.offerPeriod = offer.mode == .payAsYouGo ? offer.period.times(max(offer.count, 1)) : offer.period
            }
            // From the renewal that failed to bill on (grace period, billing retry), Apple's renewal info
            // says why it would expire (expirationIntent 2), not only once it has.
            info.expirationReason = record.expirationReason
                ?? (record.billingRetrySince != nil ? .billingError : nil)
            info.isInBillingRetry = record.billingRetrySince != nil
            // Only while in the grace period: StoreKit's gracePeriodExpirationDate "is nil if the subscription is
            // not in a billing grace period" (once billing retry goes on past it, or recovers, or ends).
            info.gracePeriodExpirationDate = record.graceUntil.flatMap { $0 > date ? $0 : nil }
            if record.expirationReason == nil, state != .revoked {
                info.priceIncreaseStatus = try pendingIncrease(record, account: account)?.status ?? .noIncreasePending
            }
            if state == .expired {
                info.eligibleWinBackOfferIDs = try eligibleWinBackOfferIDs(groupID: record.groupID, account: account, at: date, record: record)
            }
            try applyCommitment(to: &info, record: record, latest: latest, state: state, account: account, in: storefront)
            info.appAccountToken = latest.appAccountToken
            info.appTransactionID = AppTransactionID.make(account: account, bundleID: catalog.bundleID)
            if signed { info.jwsRepresentation = try? signer.sign(info.signedPayload(signedDate: date)) }
            return SubscriptionStatus(groupID: record.groupID, state: state, transaction: latest, renewalInfo: info)
    }
}
