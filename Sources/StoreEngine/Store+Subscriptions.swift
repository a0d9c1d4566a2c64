import Foundation

/// How long the App Store keeps retrying a failed renewal.
let billingRetryLength = ISODuration(days: 60)

extension Store {
    // MARK: - Renewals

    /// Makes every renewal (and billing failure, and expiry) due by the store's time now,
    /// in order, for every account: what happened while no storefront process ran is
    /// caught up at the next open. Renewals arrive unfinished, as updates. Returns how many were made.
    ///
    /// Made in batches of at most ``renewalBatch``, each its own short write transaction: no
    /// write holds the lock for long, other processes' purchases go between two batches, and
    /// each batch commits its progress (a process killed meanwhile leaves nothing to redo).
    /// With `limit`, stops after about that many (``renewalsDue()`` says whether more wait).
    @discardableResult
    func processRenewals(limit: Int? = nil, onlyAccount: String? = nil) throws -> Int {
        // Without a catalog no plan is known: renewing (or expiring as unavailable) is left to a run with one.
        if catalog.isAbsent { return 0 }
        // A subscription price that changed in the catalog since the last run is a price change, made once.
        try noticeCatalogPriceChanges()
        let (date, billingIssues) = try readingSettings([.billingIssues]) { (try currentTime(), try value(.billingIssues)) }
        var made = 0
        var idleBatches = 0
        // An account's family too: a subscription shared with it renews with its purchaser.
        let scope = try onlyAccount.map { Set([$0] + (try ledger.family(of: $0)?.members ?? [])) }
        // Cheap check first: most calls find nothing due and take no write lock.
        while try dueAnywhere(at: date, billingIssues, scope: scope), limit.map({ made < $0 }) ?? true {
            let budget = min(Self.renewalBatch, limit.map { $0 - made } ?? Self.renewalBatch)
            let batch = try ledger.write {
                var batch = 0
                for account in try ledger.subscribedAccounts() where batch < budget && scope?.contains(account) ?? true {
                    for record in try dueRecords(account, at: date, billingIssues) where batch < budget {
                        batch += try catchUp(record, account: account, at: date, billingIssues: billingIssues,
                                             limit: budget - batch)
                    }
                }
                return batch
            }
            made += batch
            // A batch of expiries and billing steps makes no renewal but leaves less due; two in a
            // row that made none mean nothing more will come of this call.
            idleBatches = batch == 0 ? idleBatches + 1 : 0
            if idleBatches > 1 { break }
            // A pause longer than SQLite's longest busy-wait step (100 ms), so that a process
            // waiting for the lock gets it between two batches instead of starving.
            if batch == Self.renewalBatch { usleep(110_000) }
        }
        // An increase told to a subscription that has expired or changed plan since waits no more.
        try dropStaleIncreases(scope: scope)
        return made
    }

    /// At most this many renewals per write transaction: a few tens of milliseconds.
    static let renewalBatch = 500

    /// Whether renewals (or billing steps) are due by the store's time now.
    func renewalsDue() throws -> Bool {
        let (date, billingIssues) = try readingSettings([.billingIssues]) { (try currentTime(), try value(.billingIssues)) }
        return try dueAnywhere(at: date, billingIssues)
    }

    func dueAnywhere(at date: Date, _ billingIssues: Bool, scope: Set<String>? = nil) throws -> Bool {
        try ledger.subscribedAccounts().contains(where: { account in
            guard scope?.contains(account) ?? true else { return false }
            return try !dueRecords(account, at: date, billingIssues).isEmpty
        })
    }

    /// The account's subscriptions that need a renewal, a billing step or an expiry at `date`.
    func dueRecords(_ account: String, at date: Date, _ billingIssues: Bool) throws -> [SubscriptionRecord] {
        let terms = try ledger.latestTerms(account: account)
        return try ledger.subscriptionStates(account: account).filter { record in
            // Two dates decide: not the signature, which every purchase and restore would check here otherwise.
            guard record.expirationReason == nil, let latest = terms[record.originalID],
                  latest.revocationDate == nil, let expiration = latest.expirationDate else { return false }
            if let since = record.billingRetrySince {
                if let grace = record.graceUntil, grace <= date, billingIssues,
                   try !hasNotification(.gracePeriodExpired, originalID: record.originalID, since: since) { return true }
                return !billingIssues || billingRetryLength.after(since) <= date
            }
            return expiration <= date
        }
    }

    /// Walks one subscription forward to `date`: renewal after renewal, or into billing
    /// retry, or to its expiry.
    func catchUp(_ start: SubscriptionRecord, account: String, at date: Date, billingIssues: Bool,
                 limit: Int = renewalBatch) throws -> Int {
        var record = start
        var made = 0
        defer { try? ledger.saveSubscription(record, account: account) }
        // Bounded: the rest follows in the next batch.
        while made < limit, let latest = try ledger.latestTransaction(originalID: record.originalID),
              latest.revocationDate == nil, let expiration = latest.expirationDate {
            if let since = record.billingRetrySince {
                if !billingIssues {
                    // Billing fixed: renewed now, or from the lapsed period's end while still in grace.
                    let renewedAt = record.graceUntil.map { $0 > date } == true ? since : date
                    (record.billingRetrySince, record.graceUntil) = (nil, nil)
                    try renew(latest, &record, account: account, at: renewedAt, detail: "renewal after a billing issue was resolved",
                              subtype: .billingRecovery)
                    made += 1
                    continue
                }
                if let grace = record.graceUntil, grace <= date,
                   try !hasNotification(.gracePeriodExpired, originalID: record.originalID, since: since) {
                    try notify(.gracePeriodExpired, transaction: latest, record: record, account: account, at: grace)
                }
                if billingRetryLength.after(since) <= date {
                    // Churned: expired and no longer renewing (autoRenewStatus 0), as Apple's renewal info then says.
                    (record.expirationReason, record.billingRetrySince, record.graceUntil) = (.billingError, nil, nil)
                    record.willAutoRenew = false
                    try ledger.log(.expired, account: account, productID: latest.productID, transactionID: latest.id,
                                   detail: "expired: billing retry ended without payment (billingError)", at: billingRetryLength.after(since))
                    try notify(.expired, .billingRetry, transaction: latest, record: record, account: account,
                               at: billingRetryLength.after(since))
                }
                break
            }
            guard expiration <= date else { break }
            // Inside a 12-month commitment the monthly payments run to its end, auto-renew off or on (Store+Commitment).
            guard record.willAutoRenew || latest.isInsideCommitment else {
                record.expirationReason = .autoRenewDisabled
                try ledger.log(.expired, account: account, productID: latest.productID, transactionID: latest.id,
                               detail: "expired: auto-renew was off (autoRenewDisabled)", at: expiration)
                try notify(.expired, .voluntary, transaction: latest, record: record, account: account, at: expiration)
                break
            }
            guard catalog.product(id: record.autoRenewProductID)?.subscription != nil else {
                record.expirationReason = .productUnavailable
                try ledger.log(.expired, account: account, productID: latest.productID, transactionID: latest.id,
                               detail: "expired: \(record.autoRenewProductID) is no longer offered (productUnavailable)", at: expiration)
                try notify(.expired, .productNotForSale, transaction: latest, record: record, account: account, at: expiration)
                break
            }
            // A price increase the subscriber had to agree to, and did not, ends it here.
            if try priceIncreaseEnds(&record, latest: latest, account: account, at: expiration) { break }
            if billingIssues {
                record.billingRetrySince = expiration
                if try value(.gracePeriod), let period = catalog.product(id: latest.productID)?.subscription?.period,
                   let grace = try gracePeriodRule().gracePeriod(for: period, after: latest) {
                    record.graceUntil = grace.after(expiration)
                }
                try ledger.log(.failed, account: account, productID: latest.productID, transactionID: latest.id,
                               detail: record.graceUntil == nil ? "renewal failed: billing retry (billingError)"
                                   : "renewal failed: grace period until \(record.graceUntil!.formatted(.iso8601))", at: expiration)
                try notify(.didFailToRenew, record.graceUntil == nil ? nil : .gracePeriod, transaction: latest, record: record,
                           account: account, at: expiration)
                // StoreKit's Billing Problem message, once per failed renewal.
                try ledger.queueMessage(account: account, reason: .billingIssue, productID: latest.productID,
                                        key: "billingIssue:\(record.originalID):\(expiration.milliseconds)", at: expiration)
                continue
            }
            try renew(latest, &record, account: account, at: expiration, detail: "renewal")
            made += 1
        }
        return made
    }

    /// The Billing Grace Period as App Store Connect would have it configured (`gracePeriodDuration`, `gracePeriodRenewalType`).
    func gracePeriodRule() throws -> GracePeriodRule {
        GracePeriodRule(days: try value(.gracePeriodDuration), renewalType: try value(.gracePeriodRenewalType))
    }

    /// Adds the renewal transaction that starts at `start`.
    func renew(_ latest: Transaction, _ record: inout SubscriptionRecord, account: String, at start: Date,
                       detail: String, subtype: NotificationSubtype? = nil) throws {
        guard let item = catalog.product(id: record.autoRenewProductID), let terms = item.subscription else { return }
        let storefront = try storefront()
        var transaction = latest
        (transaction.id, transaction.productID, transaction.purchaseDate) = (0, item.id, start)
        (transaction.reason, transaction.isFinished, transaction.isUpgraded) = (.renewal, false, false)
        (transaction.storefront, transaction.currency) = (storefront.countryCode, storefront.currency)
        (transaction.revocationDate, transaction.revocationReason) = (nil, nil)
        transaction.price = try renewalBasePrice(item, groupID: record.groupID, account: account, at: start, in: storefront)
        transaction.expirationDate = try renewalEnd(after: start, period: terms.period, latest: latest)
        (transaction.offerType, transaction.offerID) = (nil, nil)
        transaction.applyOffer(mode: nil, period: nil, count: 0)
        // A pay-as-you-go offer goes on at its price for its number of periods; a promotional
        // offer bought during the subscription starts now.
        if let offer = try renewalOffer(after: latest, record: record) {
            (transaction.offerType, transaction.offerID, transaction.price) = (offer.type, offer.id, offer.price)
            transaction.applyOffer(mode: offer.mode, period: offer.period, count: offer.count)
            transaction.expirationDate = try renewalEnd(after: start, period: offer.period, latest: latest)
            if offer.scheduled { record.renewalOfferID = nil }
        }
        try continueCommitment(&transaction, after: latest, item: item, in: storefront, at: start)
        let stored = try ledger.insert(transaction)
        try shareWithFamily(stored, at: start)
        let change = item.id == latest.productID ? "" : " (now \(item.id): the change waited for this renewal)"
        let offer = stored.offerType.map { "; \($0.rawValue) offer\(stored.offerID.map { " \($0)" } ?? "")" } ?? ""
        try ledger.log(.purchased, account: account, productID: item.id, transactionID: stored.id,
                       detail: detail + change + offer, at: start)
        try notify(.didRenew, subtype, transaction: stored, record: record, account: account, at: start)
    }

    // MARK: - The tester's controls

    /// Turns auto-renew on or off (`willAutoRenew`): off, the subscription expires at the period's end.
    func setAutoRenew(groupID: String, _ on: Bool) throws {
        // What fell due before the change happens first, as it would have on time.
        try processRenewals()
        let date = try currentTime()
        try ledger.write {
            var record = try subscriptionRecord(groupID)
            let changed = record.willAutoRenew != on
            record.willAutoRenew = on
            if on, record.expirationReason == .autoRenewDisabled,
               let latest = try ledger.latestTransaction(originalID: record.originalID),
               latest.expirationDate.map({ $0 > date }) == true {
                record.expirationReason = nil
            }
            try ledger.saveSubscription(record, account: account)
            if changed, record.expirationReason == nil, let latest = try ledger.latestTransaction(originalID: record.originalID) {
                try notify(.didChangeRenewalStatus, on ? .autoRenewEnabled : .autoRenewDisabled, transaction: latest,
                           record: record, account: account, at: date)
                if !on, record.billingRetrySince != nil { try endBillingRetry(&record, latest: latest, at: date) }
            }
        }
    }

    /// Auto-renew turned off during billing retry (or its grace period): Apple retries billing "until the
    /// customer resolves their billing issue or cancels their subscription", so the retry stops and the
    /// subscription expires now, voluntarily (EXPIRED VOLUNTARY): nothing is charged when billing recovers.
    func endBillingRetry(_ record: inout SubscriptionRecord, latest: Transaction, at date: Date) throws {
        (record.expirationReason, record.billingRetrySince, record.graceUntil) = (.autoRenewDisabled, nil, nil)
        try ledger.saveSubscription(record, account: account)
        try ledger.log(.expired, account: account, productID: latest.productID, transactionID: latest.id,
                       detail: "expired: auto-renew turned off during billing retry, which stops (autoRenewDisabled)", at: date)
        try notify(.expired, .voluntary, transaction: latest, record: record, account: account, at: date)
    }

    /// Ends the subscription now: the current period is cut short and it does not renew.
    func expireSubscription(groupID: String) throws {
        // What fell due before the change happens first, as it would have on time.
        try processRenewals()
        let date = try currentTime()
        try ledger.write {
            var record = try subscriptionRecord(groupID)
            let newest = try ledger.latestTransaction(originalID: record.originalID)
            // The error names the subscription's newest transaction, the row a tester has in view.
            guard var latest = newest, latest.revocationDate == nil,
                  latest.expirationDate.map({ $0 > date }) == true || record.billingRetrySince != nil
            else {
                throw StoreError.invalidTransactionState(id: newest?.id ?? record.originalID, action: "expire",
                                                         state: newest?.revocationDate != nil ? "refunded" : "not active (expired already)")
            }
            if latest.expirationDate.map({ $0 > date }) == true {
                latest.expirationDate = date
                latest = try ledger.update(latest)
                try mirrorToFamily(latest.id)
            }
            (record.willAutoRenew, record.expirationReason) = (false, .autoRenewDisabled)
            (record.billingRetrySince, record.graceUntil) = (nil, nil)
            try ledger.saveSubscription(record, account: account)
            try ledger.log(.expired, account: account, productID: latest.productID, transactionID: latest.id,
                           detail: "expired now by the tester", at: date)
            try notify(.expired, .voluntary, transaction: latest, record: record, account: account, at: date)
        }
    }

    /// Renews the subscription now, without waiting for the period's end.
    func renewSubscription(groupID: String) throws {
        // What fell due before the change happens first, as it would have on time.
        try processRenewals()
        let date = try currentTime()
        try ledger.write {
            var record = try subscriptionRecord(groupID)
            guard var latest = try ledger.latestTransaction(originalID: record.originalID), latest.revocationDate == nil else {
                throw StoreError.invalidTransactionState(id: record.originalID, action: "renew", state: "revoked")
            }
            // A paid offer's period (a promotional year bought at $29.99) is not cut short and charged
            // again at the full price: its end is the renewal. A free trial may end now.
            if latest.offerType != nil, latest.price > 0, let end = latest.expirationDate, end > date {
                throw StoreError.invalidTransactionState(
                    id: latest.id, action: "renew now",
                    state: "in a paid \(latest.offerType!.rawValue) offer's period until \(String(end.formatted(.iso8601).prefix(10))); "
                        + "advance the clock to renew it at its end")
            }
            if latest.expirationDate.map({ $0 > date }) == true {
                latest.expirationDate = date
                latest = try ledger.update(latest)
                try mirrorToFamily(latest.id)
            }
            (record.willAutoRenew, record.expirationReason) = (true, nil)
            (record.billingRetrySince, record.graceUntil) = (nil, nil)
            try renew(latest, &record, account: account, at: date, detail: "renewal forced by the tester")
            try ledger.saveSubscription(record, account: account)
        }
    }

    /// The customer fixes the billing issue of the subscription `transactionID` belongs to (Xcode's
    /// `resolveIssueForTransaction`): its billing retry ends with a renewal now, or from the lapsed
    /// period's end while still in its grace period, as when billing recovers (DID_RENEW
    /// BILLING_RECOVERY). Renewals after it follow the `billingIssues` setting as before.
    func resolveBillingIssue(transactionID: Int64) throws {
        // What fell due before the change happens first, as it would have on time.
        try processRenewals()
        let date = try currentTime()
        try ledger.write {
            let named = try transaction(id: transactionID)
            guard var record = try ledger.subscriptionStates(account: account).first(where: { $0.originalID == named.originalID }),
                  let since = record.billingRetrySince,
                  let latest = try ledger.latestTransaction(originalID: record.originalID), latest.revocationDate == nil
            else {
                throw StoreError.invalidTransactionState(id: transactionID, action: "resolve", state: "not in billing retry")
            }
            let renewedAt = record.graceUntil.map { $0 > date } == true ? since : date
            (record.billingRetrySince, record.graceUntil) = (nil, nil)
            try renew(latest, &record, account: account, at: renewedAt, detail: "renewal after the billing issue was resolved",
                      subtype: .billingRecovery)
            try ledger.saveSubscription(record, account: account)
        }
    }

    /// The newest transaction of the account's subscription in a group (or a product's group).
    func latestSubscriptionTransaction(_ groupID: String) throws -> Transaction {
        let record = try subscriptionRecord(groupID)
        guard let latest = try ledger.latestTransaction(originalID: record.originalID) else {
            throw StoreError.noSubscription(groupID: record.groupID)
        }
        return latest
    }

    func subscriptionRecord(_ groupID: String) throws -> SubscriptionRecord {
        let groupID = catalog.product(id: groupID)?.subscription?.groupID ?? groupID
        guard let record = try ledger.subscriptionStates(account: account).first(where: { $0.groupID == groupID }) else {
            throw StoreError.noSubscription(groupID: groupID)
        }
        return record
    }

    /// The newest transaction of each subscription in its billing grace period: still entitled though
    /// its period ended. Of this store's account or `account`; its family's shared subscriptions too.
    func transactionsInGrace(at date: Date, account: String? = nil) throws -> [Transaction] {
        let account = account ?? self.account
        return try (ledger.subscriptionStates(account: account) + sharedRecords(account: account)).compactMap { record -> Transaction? in
            guard record.billingRetrySince != nil, let grace = record.graceUntil, grace > date else { return nil }
            return try ledger.latestTransaction(originalID: record.originalID).flatMap {
                $0.revocationDate == nil && $0.verification.isVerified ? $0 : nil
            }
        }
    }

    /// Whether the account may take the group's introductory offer: it has never subscribed in the group.
    func isEligibleForIntroOffer(groupID: String) throws -> Bool {
        try !ledger.hasPurchase(account: account, groupID: groupID)
    }

    /// The catalog's subscription groups whose introductory offer the account may take.
    func introOfferEligibleGroups() throws -> Set<String> {
        Set(try catalog.subscriptionGroups.map(\.id).filter { try isEligibleForIntroOffer(groupID: $0) })
    }
}
