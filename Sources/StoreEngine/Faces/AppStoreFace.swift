import Foundation

/// The App Store's face of the store: what happens outside the app.
///
/// A parent answering Ask to Buy, a user resolving an interrupted purchase,
/// refunds, deletions, purchases made on another device, renewals, expiry and
/// billing. Each call returns what it changed as a typed value, and every change
/// is recorded in the store file's event log, so a server face can report it.
public struct AppStoreFace: Sendable {
    let store: Store

    /// The account these actions concern.
    public var account: String { store.account }
    /// The catalog the store sells from.
    public var catalog: Catalog { store.catalog }

    // MARK: - Requests

    /// The requests waiting for a parent or for the user, oldest first.
    public func pendingRequests() async throws -> [PendingRequest] {
        try await store.pendingTransactions().map(PendingRequest.init)
    }

    /// A parent approves an Ask to Buy request: purchased now (or a change of plan
    /// scheduled), reaching the app as an update.
    @discardableResult
    public func approve(_ id: Int64) async throws -> PurchaseOutcome { try await store.approveRequest(id) }

    /// A parent declines an Ask to Buy request: nothing is charged. Returns the declined request.
    @discardableResult
    public func decline(_ id: Int64) async throws -> Transaction { try await store.decline(id) }

    /// Completes an interrupted purchase, as when the user has accepted the terms.
    @discardableResult
    public func resolve(_ id: Int64) async throws -> PurchaseOutcome { try await store.resolveRequest(id) }

    // MARK: - Transactions

    /// Refunds a purchase: revoked now with `reason`, the entitlement gone; `share` is how much is
    /// given back (the whole unless chosen: `revocationType` and `revocationPercentage`). Throws
    /// ``InputError/invalidRefundPercentage(_:)`` for a prorated share outside 1–99,999 milliunits.
    @discardableResult
    public func refund(_ id: Int64, reason: Transaction.RevocationReason = .other, share: RefundShare = .full) async throws -> Transaction {
        try await store.refund(id, reason: reason, share: share)
    }

    /// The customer fixes the billing issue of the subscription a transaction belongs to: its
    /// billing retry (or grace period) ends with a renewal. Throws `invalidTransactionState` for a
    /// subscription not in billing retry.
    public func resolveBillingIssue(transactionID: Int64) async throws { try await store.resolveBillingIssue(transactionID: transactionID) }

    /// Deletes a transaction from the account's history (the Transaction Manager's Delete).
    public func deleteTransaction(_ id: Int64) async throws { try await store.deleteTransaction(id) }

    /// A purchase made outside the app (another device, a promoted purchase): the app gets
    /// it as an update. What the account owns already is handed back, not charged. The options
    /// are those of ``AppFace``'s `purchase`, checked as they are in the app; the device's
    /// conditions do not apply.
    public func purchaseOutsideApp(_ productID: String, quantity: Int = 1, appAccountToken: UUID? = nil,
                                   offerID: String? = nil, offerSignature: PromotionalOfferSignature? = nil,
                                   winBackOfferID: String? = nil, billingPlanType: BillingPlanType? = nil,
                                   choice: PurchaseChoice = .succeed) async throws -> PurchaseOutcome {
        try await Store.$billingPlanType.withValue(billingPlanType) {
            try await store.purchaseOutsideApp(productID, quantity: quantity, appAccountToken: appAccountToken, offerID: offerID,
                                               offerSignature: offerSignature, winBackOfferID: winBackOfferID, choice: choice)
        }
    }

    /// The account's history as the App Store keeps it, pending requests included, newest first.
    public func transactions(limit: Int? = nil) async throws -> [Transaction] { try await store.transactions(limit: limit) }

    /// One transaction of this account.
    public func transaction(id: Int64) async throws -> Transaction { try await store.transaction(id: id) }

    /// The product as the current storefront shows it (for naming it in reports).
    public func product(id: String) async throws -> Product? { try await store.product(id: id) }

    // MARK: - Subscriptions

    /// Makes every renewal, billing failure and expiry due by the store's time; returns how many renewals were made.
    @discardableResult
    public func processRenewals() async throws -> Int { try await store.processRenewals() }
    /// The renewals due for the store's account only (what a command acting for it needs).
    public func processOwnRenewals() async throws -> Int { try await store.processRenewals(onlyAccount: store.account) }
    /// Makes at most about `limit` of the renewals due (each batch its own short write), for a
    /// caller that shows progress; ``renewalsDue()`` says whether more wait.
    public func processRenewals(limit: Int) async throws -> Int { try await store.processRenewals(limit: limit) }
    /// Whether renewals (or billing steps) are due by the store's clock now.
    public func renewalsDue() async throws -> Bool { try await store.renewalsDue() }

    /// Turns auto-renew on or off for a subscription group (or the group of a product id).
    public func setAutoRenew(groupID: String, _ on: Bool) async throws { try await store.setAutoRenew(groupID: groupID, on) }

    /// Ends the subscription now: the period is cut short and it does not renew.
    public func expireSubscription(groupID: String) async throws { try await store.expireSubscription(groupID: groupID) }

    /// Renews the subscription now, without waiting for the period's end.
    public func renewSubscription(groupID: String) async throws { try await store.renewSubscription(groupID: groupID) }

    /// Each subscription group's status, as the App Store knows it.
    public func subscriptionStatuses() async throws -> [SubscriptionStatus] { try await store.subscriptionStatuses() }

    /// Each group's first status where it is in billing retry, unsigned: the only ones that can be
    /// in their grace period, for a reader that marks grace periods and nothing else.
    package func billingRetryStatuses() async throws -> [SubscriptionStatus] { try await store.billingRetryStatuses() }

    /// The store's StoreKit 1 event log for this account: every state change the App Store made, oldest first.
    public func events(limit: Int = 100) async throws -> [TransactionEvent] { try await store.events(limit: limit) }

    // MARK: - The App Store Server API (`storefront serve`)
    //
    // The server answers for every account in the store file: these take any transaction
    // id and find the customer who made it.

    /// The account that made a transaction (or whose subscription has it as original id); nil when none did.
    public func account(owning transactionID: Int64) async throws -> String? { try await store.account(owning: transactionID) }

    /// One page of the history of the customer who made `transactionID`, or whose `appTransactionId`
    /// it is (Get Transaction History): completed transactions filtered by `query`, in the order of
    /// each one's last change, after the revision `after` (a page's ``HistoryPage/lastID``). Nil when
    /// no customer made it.
    public func history(of transactionID: Int64, query: HistoryQuery, after: Int64? = nil, pageSize: Int = 20)
        async throws -> HistoryPage? {
        try await store.history(of: transactionID, query: query, after: after, pageSize: pageSize)
    }

    /// Every subscription status of the customer who made `transactionID`, or whose
    /// `appTransactionId` it is (Get All Subscription Statuses).
    public func statuses(ofCustomerWith transactionID: Int64) async throws -> [SubscriptionStatus]? {
        try await store.statuses(ofCustomerWith: transactionID)
    }

    /// Extends an active subscription's renewal date by `days` and records RENEWAL_EXTENDED.
    /// Nil when there is no such subscription; throws ``ExtensionError`` when it cannot be extended,
    /// ``InputError`` for days outside 1–90 or a reason code outside 0–3 (``FaceValidation``).
    public func extendSubscription(originalTransactionID: Int64, days: Int, reasonCode: Int = 0) async throws -> RenewalExtension? {
        try FaceValidation.checkExtension(days: days, reasonCode: reasonCode)
        return try await store.extendSubscription(originalID: originalTransactionID, days: days)
    }

    // MARK: - Server notifications

    /// Records a TEST notification and returns its `testNotificationToken`.
    public func requestTestNotification() async throws -> String { try await store.requestTestNotification() }

    /// The TEST notification a token names, with its attempts.
    public func testNotification(token: String) async throws -> ServerNotification? { try await store.testNotification(token: token) }

    /// Recorded notifications in the order they were made, with their delivery attempts.
    public func notifications(_ filter: NotificationFilter = NotificationFilter(), after: Int64? = nil,
                              limit: Int = 1_000) async throws -> [ServerNotification] {
        try await store.notifications(filter, after: after, limit: limit)
    }

    /// The oldest notification `url` has not received, whether its next attempt is due
    /// (Apple's schedule in Production: 1, 12, 24, 48, 72 hours after each failure, store time; Sandbox sends once),
    /// and the store's time it was read at (an attempt made now is dated so).
    /// With `kept`, `url` is a receiver kept in the store: nil once it is no longer kept.
    public func nextNotification(for url: String, kept: Bool = false) async throws
        -> (notification: ServerNotification, due: Bool, now: Date)? {
        try await store.nextNotification(for: url, kept: kept)
    }

    /// Keeps one delivery attempt with its `sendAttemptResult`, dated now on the store's clock
    /// (or `date`: an attempt made then, recorded late).
    public func recordAttempt(notificationID: Int64, url: String, result: SendAttemptResult, at date: Date? = nil) async throws {
        try await store.recordAttempt(notificationID: notificationID, url: url, result: result, at: date)
    }

    // MARK: - Server API keys

    /// The keys whose tokens the server accepts.
    public func apiKeys() async throws -> [APIKey] { try await store.apiKeys() }

    /// Registers a key: its id, issuer and public key (PEM).
    @discardableResult
    public func addAPIKey(keyID: String, issuerID: String, publicKeyPEM: String) async throws -> APIKey {
        try await store.addAPIKey(keyID: keyID, issuerID: issuerID, publicKeyPEM: publicKeyPEM)
    }

    /// Forgets a key; false when there was none of that id.
    public func removeAPIKey(_ keyID: String) async throws -> Bool { try await store.removeAPIKey(keyID) }

    /// The store's time now.
    public func now() async throws -> Date { try await store.storeTime() }

    /// The environment the store's signed data carries (`Xcode`, `Sandbox`, …).
    public func environment() async throws -> String { try await store.appStoreEnvironment() }
}
