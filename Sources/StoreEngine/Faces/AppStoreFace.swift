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

    /// Refunds a purchase: revoked now with `reason`, the entitlement gone.
    @discardableResult
    public func refund(_ id: Int64, reason: Transaction.RevocationReason = .other) async throws -> Transaction {
        try await store.refund(id, reason: reason)
    }

    /// Deletes a transaction from the account's history (the Transaction Manager's Delete).
    public func deleteTransaction(_ id: Int64) async throws { try await store.deleteTransaction(id) }

    /// A purchase made outside the app (another device, a promoted purchase): the app gets
    /// it as an update. What the account owns already is handed back, not charged.
    public func purchaseOutsideApp(_ productID: String, quantity: Int = 1) async throws -> PurchaseOutcome {
        try await store.purchaseOutsideApp(productID, quantity: quantity)
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

    /// The store's StoreKit 1 event log for this account: every state change the App Store made, oldest first.
    public func events(limit: Int = 100) async throws -> [TransactionEvent] { try await store.events(limit: limit) }
}
