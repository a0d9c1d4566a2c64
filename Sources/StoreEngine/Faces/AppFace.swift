import Foundation

/// The app's face of the store: what an app's StoreKit code calls.
///
/// Products, purchases, the transactions that reach the app, entitlements,
/// restore and subscription status — the calls of StoreKit 2's `Product`,
/// `Transaction` and `AppStore`, over one store file and one account.
public struct AppFace: Sendable {
    let store: Store

    /// The account the app is signed in with.
    public var account: String { store.account }
    /// The catalog the store sells from.
    public var catalog: Catalog { store.catalog }

    // MARK: - Products

    /// The storefront the store is in now (`Storefront.current`).
    public func storefront() async throws -> Storefront { try await store.storefront() }

    /// The catalog's products on offer, localized and priced (`Product.products(for:)`):
    /// latency, `offline` and `loadProductsError` apply.
    public func products() async throws -> [Product] { try await store.products() }

    /// One product as the current storefront shows it; nil when the catalog has no such id.
    public func product(id: String) async throws -> Product? { try await store.product(id: id) }

    /// Whether this account may make payments (`AppStore.canMakePayments`).
    public func canMakePayments() async throws -> Bool { try await store.canMakePayments() }

    // MARK: - Purchasing

    /// Buys a product (`Product.purchase(options:)`): the outcome as the engine decided it,
    /// the transaction unfinished for the app to deliver and ``finish(_:)``.
    /// `choice` is the tester's choice on the App Store sheet; nil follows the settings.
    /// A promotional offer (`offerID`) needs its signature (`offerSignature`), as Apple requires:
    /// `missingOfferParameters` without one, `invalidOfferSignature` when it does not check out.
    /// A win-back offer (`winBackOfferID`, StoreKit's `PurchaseOption.winBackOffer`) needs none; an
    /// account that may not redeem it gets `ineligibleForOffer`. `billingPlanType` `.monthly`
    /// (StoreKit's `PurchaseOption.billingPlanType`) buys a one-year subscription's monthly plan
    /// with its 12-month commitment; a product without one fails with `productUnavailable`.
    public func purchase(_ productID: String, quantity: Int = 1, appAccountToken: UUID? = nil,
                         offerID: String? = nil, offerSignature: PromotionalOfferSignature? = nil,
                         winBackOfferID: String? = nil, billingPlanType: BillingPlanType? = nil,
                         choice: PurchaseChoice? = nil) async throws -> PurchaseOutcome {
        try await Store.$billingPlanType.withValue(billingPlanType) {
            try await store.purchase(productID, quantity: quantity, appAccountToken: appAccountToken, offerID: offerID,
                                     offerSignature: offerSignature, winBackOfferID: winBackOfferID, choice: choice)
        }
    }

    /// What an app does on a Buy tap: purchase, then deliver and finish a new, verified
    /// transaction. Throws ``StoreError/failedVerification(_:transactionID:)`` when the
    /// transaction reaches the app unverified (it is left unfinished).
    public func buy(_ productID: String, quantity: Int = 1, appAccountToken: UUID? = nil,
                    offerID: String? = nil, offerSignature: PromotionalOfferSignature? = nil,
                    winBackOfferID: String? = nil, billingPlanType: BillingPlanType? = nil,
                    choice: PurchaseChoice? = nil) async throws -> AppPurchase {
        try await Store.$billingPlanType.withValue(billingPlanType) {
            try await store.purchaseAndFinish(productID, quantity: quantity, appAccountToken: appAccountToken,
                                              offerID: offerID, offerSignature: offerSignature, winBackOfferID: winBackOfferID,
                                              choice: choice)
        }
    }

    /// Delivers a transaction's content to the app and finishes it (`Transaction.finish()`).
    public func finish(_ transaction: Transaction) async throws { try await store.finish(transaction) }

    /// Purchased transactions the app has not finished (`Transaction.unfinished`).
    public func unfinished() async throws -> [Transaction] { try await store.unfinished() }

    /// What an app does at launch and on `Transaction.updates`: delivers and finishes each
    /// unfinished transaction, unless it arrives unverified or `finishTransactions` is false.
    public func deliverUnfinished() async throws -> Delivery { try await store.deliverUnfinished() }

    /// Uses up `quantity` of a delivered consumable; returns the new balance.
    @discardableResult
    public func consume(_ productID: String, quantity: Int = 1) async throws -> Int {
        try await store.consume(productID, quantity: quantity)
    }

    // MARK: - Entitlements and history

    /// Restores purchases (`AppStore.sync()`): what was restored.
    public func sync() async throws -> [Transaction] { try await store.sync() }

    /// What the account is entitled to now (`Transaction.currentEntitlements`).
    public func currentEntitlements() async throws -> [Transaction] { try await store.currentEntitlements() }

    /// The account's history as the app sees it (`Transaction.all`), newest first: purchased
    /// transactions only — a pending or declined request is not a transaction — and finished
    /// consumables only when refunded or revoked, or with `includeConsumablesInHistory`. The newest `limit` only when given.
    public func transactions(limit: Int? = nil) async throws -> [Transaction] { try await store.appTransactions(limit: limit) }

    /// The account's newest transaction of `productID` as the app sees it (`Transaction.latest(for:)`): from
    /// ``transactions(limit:)``, so a finished consumable is not returned unless refunded or revoked, or
    /// `includeConsumablesInHistory` (Apple: `SKIncludeConsumableInAppPurchaseHistory` false keeps finished
    /// consumables, "unless refunded or revoked", out of `latest(for:)`).
    public func latestTransaction(for productID: String) async throws -> Transaction? {
        try await store.appTransactions().first { $0.productID == productID }
    }

    /// One transaction of this account; throws ``StoreError/transactionNotFound(id:)``.
    public func transaction(id: Int64) async throws -> Transaction { try await store.transaction(id: id) }

    /// Each subscription group's status (`Product.SubscriptionInfo.status`).
    public func subscriptionStatuses() async throws -> [SubscriptionStatus] { try await store.subscriptionStatuses() }

    /// The signed renewal information of each subscription group, by group id.
    public func renewalInfo() async throws -> [String: RenewalInfo] { try await store.renewalInfo() }

    /// Whether the account may take the group's introductory offer (`isEligibleForIntroOffer`).
    public func isEligibleForIntroOffer(groupID: String) async throws -> Bool {
        try await store.isEligibleForIntroOffer(groupID: groupID)
    }

    /// The app's own records: owned products (its local cache) and consumable balances.
    public func ownedProducts() async throws -> [String: Transaction] { try await store.ownedProducts() }

    /// The app's consumable balances, by product id.
    public func balances() async throws -> [String: Int] { try await store.balances() }

    /// Everything a screen shows, in one consistent read, after delivering what arrived.
    /// `held`: transactions this run of the app was handed already and left unfinished
    /// (`snapshot.left`, a refused unverified purchase): as `Transaction.updates`, a running
    /// app does not get them again; they are in `left` until the next launch delivers them.
    public func snapshot(holding held: Set<Int64> = []) async throws -> StoreSnapshot {
        try await store.snapshot(holding: held)
    }

    /// A number that changes when another process commits to the store file: cheap to poll.
    public func dataVersion() async throws -> Int64 { try await store.dataVersion() }

    // MARK: - Signatures

    /// The public half of the store's signing key, as PEM.
    public var publicKeyPEM: String { store.publicKeyPEM }

    /// Decodes and verifies a JWS against the store's key.
    public func verify(jws: String) async throws(VerificationFailure) -> (header: JSON, payload: JSON) {
        try await store.verify(jws: jws)
    }
}
