import Foundation

/// Restore, entitlements, history and the app's own records.
extension Store {
    // MARK: - Restore and entitlements

    /// Restores purchases (`AppStore.sync()`): non-consumables and active
    /// subscriptions return to the app, consumables never. Adds no transaction;
    /// each restored product is logged as `restored`, but a non-renewing subscription: StoreKit 1's
    /// `restoreCompletedTransactions` never restores one ("not restorable"), though StoreKit 2's
    /// `currentEntitlements` has it. Returns what was restored.
    func sync() async throws -> [Transaction] {
        try await simulateConditions(errorSetting: .restoreError)
        try processRenewals()
        let date = try currentTime()
        return try ledger.write {
            try ledger.ensureAccount(account, at: date)
            let restored = try entitlements(at: date)
            for transaction in restored {
                try ledger.recordOwned(account: account, productID: transaction.productID, transactionID: transaction.id)
                guard transaction.productType != .nonRenewable else { continue }
                try ledger.log(.restored, account: account, productID: transaction.productID,
                               transactionID: transaction.id, at: date)
            }
            return restored
        }
    }

    /// What the account is entitled to now (`Transaction.currentEntitlements`):
    /// the newest active transaction of each non-consumable and subscription.
    func currentEntitlements() throws -> [Transaction] {
        try processRenewals()
        return try entitlements(at: try currentTime())
    }

    /// The newest active transaction of each product, and subscriptions in their billing grace
    /// period, of this store's account or `account`.
    func entitlements(at date: Date, account: String? = nil) throws -> [Transaction] {
        let account = account ?? self.account
        let active = try ledger.latestRestorableTransactions(account: account).filter { $0.isActive(at: date) }
        let grace = try transactionsInGrace(at: date, account: account)
            .filter { graced in !active.contains { $0.productID == graced.productID } }
        return active + grace
    }

    /// The signed renewal information of each subscription the account has or had, by group id.
    /// A group with two statuses (the account's own and one shared by its family) gives its own.
    func renewalInfo() throws -> [String: RenewalInfo] {
        Dictionary(try subscriptionStatuses().map { ($0.groupID, $0.renewalInfo) }, uniquingKeysWith: { own, _ in own })
    }

    /// Whether the account owns this product now: a non-consumable bought and
    /// not revoked, or an active subscription.
    func isEntitled(to productID: String) throws -> Bool {
        try currentEntitlements().contains { $0.productID == productID }
    }

    /// The account's whole history as the App Store keeps it (the Transaction Manager):
    /// pending and declined requests included, newest first; the newest `limit` only when given.
    func transactions(limit: Int? = nil) throws -> [Transaction] {
        try processRenewals()
        return try ledger.transactions(account: account, limit: limit)
    }

    /// `Transaction.all`, what the app sees: purchased transactions only, newest first,
    /// without finished consumables — but refunded or revoked ones — unless
    /// `includeConsumablesInHistory` (Apple's `SKIncludeConsumableInAppPurchaseHistory`) asks for them.
    func appTransactions(limit: Int? = nil) throws -> [Transaction] {
        try processRenewals()
        return try ledger.appTransactions(account: account,
                                          includeFinishedConsumables: try value(.includeConsumablesInHistory), limit: limit)
    }

    /// One transaction of this account.
    func transaction(id: Int64) throws -> Transaction {
        guard let transaction = try ledger.transaction(id: id), transaction.account == account else {
            throw StoreError.transactionNotFound(id: id)
        }
        return transaction
    }

    // MARK: - The app's side

    /// Products the app has delivered and believes owned (its local cache,
    /// wiped by `reset app`), each with the transaction that granted it.
    func ownedProducts() throws -> [String: Transaction] {
        try ownedProducts(at: try currentTime())
    }

    /// The app's owned products that still grant access at `date`.
    func ownedProducts(at date: Date) throws -> [String: Transaction] {
        let inGrace = Set(try transactionsInGrace(at: date).map(\.id))
        var owned: [String: Transaction] = [:]
        // Read (and verified) together rather than one query per product.
        let granting = Dictionary(try ledger.ownedProductTransactions(account: account).map { ($0.id, $0) },
                                  uniquingKeysWith: { first, _ in first })
        for (productID, transactionID) in try ledger.owned(account: account) {
            // The cache can be stale (expired, revoked, reset account) or edited (another product's
            // transaction put under this product): the store's sealed record decides.
            if let transaction = granting[transactionID], transaction.account == account, transaction.productID == productID,
               transaction.isActive(at: date) || inGrace.contains(transaction.id) {
                owned[productID] = transaction
            }
        }
        return owned
    }

    /// Products whose newest transaction fails verification (edited in the store
    /// file, or signed by another key), with the reason: shown with a warning, never entitled.
    func unverifiedProducts() throws -> [String: String] {
        var unverified: [String: String] = [:]
        for transaction in try ledger.latestRestorableTransactions(account: account) {
            if case .unverified(let reason) = transaction.verification { unverified[transaction.productID] = reason }
        }
        return unverified
    }

    /// The public half of the store's signing key, as PEM, for servers and tests to verify with.
    nonisolated var publicKeyPEM: String { ledgerPublicKeyPEM }

    /// Decodes and verifies a JWS against the store's key.
    func verify(jws: String) throws(VerificationFailure) -> (header: JSON, payload: JSON) {
        try signer.verify(jws)
    }

    /// The app's consumable balances, by product id.
    func balances() throws -> [String: Int] {
        try ledger.balances(account: account)
    }

    /// Uses up `quantity` of a consumable the app has delivered. Returns the new balance.
    @discardableResult
    func consume(_ productID: String, quantity: Int = 1) throws -> Int {
        guard let item = catalog.product(id: productID) else { throw StoreError.productUnavailable(productID: productID) }
        guard item.type == .consumable else { throw StoreError.notConsumable(productID: productID) }
        guard quantity >= 1 else { throw StoreError.invalidQuantity(quantity) }
        return try ledger.write {
            let balance = try ledger.balance(account: account, productID: productID)
            guard balance >= quantity else {
                throw StoreError.insufficientBalance(productID: productID, balance: balance, requested: quantity)
            }
            try ledger.addToBalance(account: account, productID: productID, amount: -quantity)
            return balance - quantity
        }
    }
}
