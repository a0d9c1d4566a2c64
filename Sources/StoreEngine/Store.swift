import Dispatch
import Foundation

/// The in-process App Store: products, purchases, restore and entitlements for
/// one sandbox account, kept in a store file that other processes may share.
///
/// Every call reads the store file afresh, so a second process's purchases and
/// resets are seen at once. Writes take the file's write lock up front and are
/// durable (`synchronous=FULL`) before a call returns success.
public actor Store {
    /// The account used when none is named.
    public static let defaultAccount = "tester@local"

    public nonisolated let catalog: Catalog
    public nonisolated let account: String
    /// The store file's path.
    public nonisolated let path: String
    private let ledger: Ledger
    private nonisolated let ledgerPublicKeyPEM: String
    /// The store runs on a queue of its own: SQLite waits for locks and fsync
    /// block, and must not hold up Swift's small cooperative thread pool.
    private nonisolated let executor = QueueExecutor(label: "storefront.store")

    public nonisolated var unownedExecutor: UnownedSerialExecutor {
        executor.asUnownedSerialExecutor()
    }
    private let now: @Sendable () -> Date

    /// Opens (or creates) the store file at `path` for `account`.
    /// - Parameters:
    ///   - createFolder: create the file's folder when missing (the default location does).
    ///   - now: the store's clock; tests pass a fixed or stepping one.
    public init(catalog: Catalog, path: String, account: String = Store.defaultAccount,
                createFolder: Bool = false, now: @escaping @Sendable () -> Date = Date.init) throws(StoreFileError) {
        self.catalog = catalog
        self.account = account
        self.path = path
        self.now = now
        self.ledger = try Ledger(path: path, bundleID: catalog.bundleID, createFolder: createFolder)
        self.ledgerPublicKeyPEM = ledger.key.publicKeyPEM
    }

    // MARK: - Products

    /// The storefront the store is in now (the `storefront` setting, else the catalog's default).
    public func storefront() throws -> Storefront {
        let code = try ledger.setting("storefront", account: "") ?? catalog.defaultStorefront
        return catalog.storefront(code) ?? catalog.storefront(catalog.defaultStorefront) ?? .unitedStates
    }

    /// The catalog's products, localized and priced for the current storefront, in display order.
    public func products() throws -> [Product] {
        catalog.products(in: try storefront())
    }

    /// One product as the current storefront shows it.
    public func product(id: String) throws -> Product? {
        guard let item = catalog.product(id: id) else { return nil }
        return catalog.product(from: item, in: try storefront())
    }

    /// Whether this account may make payments (`AppStore.canMakePayments`).
    public func canMakePayments() throws -> Bool {
        try setting(named: "canMakePayments") == "true"
    }

    // MARK: - Purchasing

    /// Buys a product, as `Product.purchase(options:)`.
    ///
    /// Returns only after the transaction is durably committed. A non-consumable
    /// the account owns, or a subscription it is already subscribed to, is not
    /// charged again: the existing transaction comes back and the event log says `restored`.
    /// The caller delivers the content and calls ``finish(_:)``.
    public func purchase(_ productID: String, quantity: Int = 1, appAccountToken: UUID? = nil) throws -> PurchaseResult {
        try purchaseOutcome(productID, quantity: quantity, appAccountToken: appAccountToken).result
    }

    /// What an app does on a Buy tap: purchase, then deliver and ``finish(_:)`` a
    /// successful transaction. Also tells whether the product was already owned
    /// (handed back for free rather than charged), so a UI can say so.
    public func purchaseAndFinish(_ productID: String, quantity: Int = 1,
                                  appAccountToken: UUID? = nil) throws -> (result: PurchaseResult, alreadyOwned: Bool) {
        let outcome = try purchaseOutcome(productID, quantity: quantity, appAccountToken: appAccountToken)
        guard case .success(let transaction) = outcome.result else { return outcome }
        try finish(transaction)
        let delivered = try ledger.transaction(id: transaction.id) ?? transaction
        return (.success(delivered), outcome.alreadyOwned)
    }

    private func purchaseOutcome(_ productID: String, quantity: Int,
                                 appAccountToken: UUID?) throws -> (result: PurchaseResult, alreadyOwned: Bool) {
        let date = now()
        let outcome: Result<(result: PurchaseResult, alreadyOwned: Bool), StoreError> = try ledger.db.transaction {
            try ledger.ensureAccount(account, at: date)
            try ledger.log(.purchasing, account: account, productID: productID, at: date)
            let failure: StoreError?
            if catalog.product(id: productID) == nil {
                failure = .productUnavailable(productID: productID)
            } else if !(1...10).contains(quantity)
                        || (quantity != 1 && catalog.product(id: productID)?.type != .consumable) {
                failure = .invalidQuantity(quantity)
            } else if try setting(named: "canMakePayments") != "true" {
                failure = .paymentNotAllowed
            } else {
                failure = nil
            }
            if let failure {
                try ledger.log(.failed, account: account, productID: productID,
                               detail: "\(failure.name)\(failure.skErrorCode.map { " (SKError code \($0))" } ?? "")",
                               at: date)
                return .failure(failure)
            }
            return .success(try commitPurchase(catalog.product(id: productID)!, quantity: quantity,
                                               appAccountToken: appAccountToken, at: date))
        }
        return try outcome.get()
    }

    /// The purchase itself, inside the write transaction.
    private func commitPurchase(_ item: CatalogProduct, quantity: Int, appAccountToken: UUID?,
                                at date: Date) throws -> (result: PurchaseResult, alreadyOwned: Bool) {
        // A consumable's history changes nothing, and each row read is a signature check.
        let history = item.type == .consumable ? [] : try ledger.transactions(account: account, productID: item.id)
        let active = history.first { $0.isActive(at: date) }
        if let active, item.type == .nonConsumable || item.type == .autoRenewable {
            // Already owned: StoreKit hands back the existing transaction for free.
            try ledger.recordOwned(account: account, productID: item.id, transactionID: active.id)
            try ledger.log(.restored, account: account, productID: item.id, transactionID: active.id,
                           detail: item.type == .nonConsumable ? "already purchased" : "already subscribed", at: date)
            return (.success(active), true)
        }

        let storefront = try storefront()
        let product = catalog.product(from: item, in: storefront)
        var transaction = Transaction(
            id: 0, originalID: 0, productID: item.id, productType: item.type,
            purchaseDate: date, originalPurchaseDate: date, expirationDate: nil,
            revocationDate: nil, revocationReason: nil, isUpgraded: false, ownershipType: .purchased,
            purchasedQuantity: quantity, appAccountToken: appAccountToken, environment: .xcode,
            storefront: storefront.countryCode, currency: storefront.currency,
            price: product.price * Decimal(quantity), reason: .purchase,
            subscriptionGroupID: item.subscription?.groupID, offerType: nil,
            account: account, status: .purchased, isFinished: false)

        switch item.type {
        case .consumable, .nonConsumable:
            break
        case .nonRenewable:
            // Buying again extends: the new period starts when the current one ends.
            let start = max(date, active?.expirationDate ?? date)
            transaction.expirationDate = item.duration?.after(start)
        case .autoRenewable:
            let terms = item.subscription!
            let groupHistory = try groupTransactions(terms.groupID)
            if let offer = terms.introductoryOffer, !groupHistory.contains(where: { $0.offerType == .introductory }) {
                // Eligible once per group per account.
                transaction.offerType = .introductory
                transaction.price = offer.price
                transaction.expirationDate = offer.period.after(date)
            } else {
                transaction.expirationDate = terms.period.after(date)
            }
            // At most one active subscription per group: the one it replaces is marked upgraded.
            for replaced in groupHistory where replaced.isActive(at: date) {
                try ledger.markUpgraded(replaced.id)
            }
        }
        let stored = try ledger.insert(transaction)
        try ledger.log(.purchased, account: account, productID: item.id, transactionID: stored.id, at: date)
        return (.success(stored), false)
    }

    private func groupTransactions(_ groupID: String) throws -> [Transaction] {
        try ledger.transactions(account: account, groupID: groupID)
    }

    /// Delivers a purchased transaction's content to the app and finishes it,
    /// atomically: a consumable's quantity is added to its balance, anything
    /// else joins the app's owned products. Finishing twice delivers once.
    public func finish(_ transaction: Transaction) throws {
        try ledger.db.transaction {
            guard try ledger.markFinished(transaction.id) else { return }
            try deliver(transaction)
        }
    }

    private func deliver(_ transaction: Transaction) throws {
        if transaction.productType == .consumable {
            try ledger.addToBalance(account: transaction.account, productID: transaction.productID,
                                    amount: transaction.purchasedQuantity)
        } else {
            try ledger.recordOwned(account: transaction.account, productID: transaction.productID,
                                   transactionID: transaction.id)
        }
    }

    /// Purchased transactions the app has not finished (`Transaction.unfinished`):
    /// delivered again each time the store opens until the app finishes them.
    public func unfinished() throws -> [Transaction] {
        try ledger.unfinishedTransactions(account: account)
    }

    // MARK: - Restore and entitlements

    /// Restores purchases (`AppStore.sync()`): non-consumables and active
    /// subscriptions return to the app, consumables never. Adds no transaction;
    /// each restored product is logged as `restored`. Returns what was restored.
    public func sync() throws -> [Transaction] {
        let date = now()
        return try ledger.db.transaction {
            try ledger.ensureAccount(account, at: date)
            let restored = try ledger.latestRestorableTransactions(account: account).filter { $0.isActive(at: date) }
            for transaction in restored {
                try ledger.recordOwned(account: account, productID: transaction.productID, transactionID: transaction.id)
                try ledger.log(.restored, account: account, productID: transaction.productID,
                               transactionID: transaction.id, at: date)
            }
            return restored
        }
    }

    /// What the account is entitled to now (`Transaction.currentEntitlements`):
    /// the newest active transaction of each non-consumable and subscription.
    public func currentEntitlements() throws -> [Transaction] {
        let date = now()
        return try ledger.latestRestorableTransactions(account: account).filter { $0.isActive(at: date) }
    }

    /// The signed renewal information of each active auto-renewable subscription,
    /// by subscription group id. (Auto-renew on; the lifecycle controls come with the clock.)
    public func renewalInfo() throws -> [String: RenewalInfo] {
        let storefront = try storefront()
        var infos: [String: RenewalInfo] = [:]
        for transaction in try currentEntitlements() where transaction.productType == .autoRenewable {
            guard let groupID = transaction.subscriptionGroupID, let item = catalog.product(id: transaction.productID) else {
                continue
            }
            var info = RenewalInfo(
                originalTransactionID: transaction.originalID, currentProductID: transaction.productID,
                autoRenewPreference: transaction.productID, willAutoRenew: true,
                renewalDate: transaction.expirationDate, recentSubscriptionStartDate: transaction.purchaseDate,
                environment: transaction.environment, currency: storefront.currency,
                renewalPrice: catalog.product(from: item, in: storefront).price)
            info.jwsRepresentation = try? ledger.key.sign(info.signedPayload(signedDate: now()))
            infos[groupID] = info
        }
        return infos
    }

    /// Whether the account owns this product now: a non-consumable bought and
    /// not revoked, or an active subscription.
    public func isEntitled(to productID: String) throws -> Bool {
        try currentEntitlements().contains { $0.productID == productID }
    }

    /// The account's whole history (`Transaction.all`), newest first.
    public func transactions() throws -> [Transaction] {
        try ledger.transactions(account: account)
    }

    /// One transaction of this account.
    public func transaction(id: Int64) throws -> Transaction {
        guard let transaction = try ledger.transaction(id: id), transaction.account == account else {
            throw StoreError.transactionNotFound(id: id)
        }
        return transaction
    }

    // MARK: - The app's side

    /// Products the app has delivered and believes owned (its local cache,
    /// wiped by `reset app`), each with the transaction that granted it.
    public func ownedProducts() throws -> [String: Transaction] {
        let date = now()
        var owned: [String: Transaction] = [:]
        // Read (and verified) together rather than one query per product.
        let granting = Dictionary(try ledger.ownedProductTransactions(account: account).map { ($0.id, $0) },
                                  uniquingKeysWith: { first, _ in first })
        for (productID, transactionID) in try ledger.owned(account: account) {
            // The cache can be stale (expired, revoked, reset account); the store's record decides.
            if let transaction = granting[transactionID], transaction.account == account,
               transaction.isActive(at: date) {
                owned[productID] = transaction
            }
        }
        return owned
    }

    /// Products whose newest transaction fails verification (edited in the store
    /// file, or signed by another key), with the reason: shown with a warning, never entitled.
    public func unverifiedProducts() throws -> [String: String] {
        var unverified: [String: String] = [:]
        for transaction in try ledger.latestRestorableTransactions(account: account) {
            if case .unverified(let reason) = transaction.verification { unverified[transaction.productID] = reason }
        }
        return unverified
    }

    /// The public half of the store's signing key, as PEM, for servers and tests to verify with.
    public nonisolated var publicKeyPEM: String { ledgerPublicKeyPEM }

    /// Decodes and verifies a JWS against the store's key.
    public func verify(jws: String) throws(VerificationFailure) -> (header: JSON, payload: JSON) {
        try ledger.key.verify(jws)
    }

    /// The app's consumable balances, by product id.
    public func balances() throws -> [String: Int] {
        try ledger.balances(account: account)
    }

    /// Uses up `quantity` of a consumable the app has delivered. Returns the new balance.
    @discardableResult
    public func consume(_ productID: String, quantity: Int = 1) throws -> Int {
        guard let item = catalog.product(id: productID) else { throw StoreError.productUnavailable(productID: productID) }
        guard item.type == .consumable else { throw StoreError.notConsumable(productID: productID) }
        guard quantity >= 1 else { throw StoreError.invalidQuantity(quantity) }
        return try ledger.db.transaction {
            let balance = try ledger.balances(account: account)[productID] ?? 0
            guard balance >= quantity else {
                throw StoreError.insufficientBalance(productID: productID, balance: balance, requested: quantity)
            }
            try ledger.addToBalance(account: account, productID: productID, amount: -quantity)
            return balance - quantity
        }
    }

    // MARK: - Settings, resets, log

    /// Every setting with its value for this account.
    public func settings() throws -> [SettingValue] {
        try SettingDefinition.all.map { definition in
            let stored = try ledger.setting(definition.name, account: scopeKey(definition))
            return SettingValue(name: definition.name, value: stored ?? defaultValue(definition),
                                scope: definition.scope, isDefault: stored == nil)
        }
    }

    /// Changes a setting (for this account when the setting is per account).
    /// Returns the value as stored, normalized (`on` becomes `true`).
    @discardableResult
    public func setSetting(_ name: String, to value: String) throws -> String {
        guard let definition = SettingDefinition.named(name) else {
            throw SettingError(description: "unknown setting \"\(name)\"; known settings: \(SettingDefinition.all.map(\.name).joined(separator: ", "))")
        }
        guard let normalized = definition.normalize(value, catalog) else {
            throw SettingError(description: "\"\(value)\" is not a valid value for \(name); expected \(definition.allowed(catalog))")
        }
        try ledger.db.transaction {
            try ledger.ensureAccount(account, at: now())
            try ledger.setSetting(name, account: scopeKey(definition), value: normalized)
        }
        return normalized
    }

    private func setting(named name: String) throws -> String {
        let definition = SettingDefinition.named(name)!
        return try ledger.setting(name, account: scopeKey(definition)) ?? defaultValue(definition)
    }

    private func scopeKey(_ definition: SettingDefinition) -> String {
        definition.scope == .account ? account : ""
    }

    private func defaultValue(_ definition: SettingDefinition) -> String {
        definition.name == "storefront" ? catalog.defaultStorefront : definition.defaultValue
    }

    /// Wipes the app's side, this account, or the whole store file's contents.
    public func reset(_ scope: ResetScope) throws {
        try ledger.db.transaction { try ledger.reset(scope, account: account) }
    }

    /// The account's newest transaction state changes, oldest first.
    public func events(limit: Int = 100) throws -> [TransactionEvent] {
        try ledger.events(account: account, limit: limit)
    }

    /// The sandbox accounts that have used this store file.
    public func accounts() throws -> [String] {
        try ledger.accounts()
    }

    /// A number that changes when another process commits to the store file.
    public func dataVersion() throws -> Int64 {
        try ledger.dataVersion()
    }

    // MARK: - Benchmarks and tools

    /// For benchmarks and tools, never the app: buys each product of `productIDs` in
    /// turn, `interval` seconds apart from `start`, and finishes it, all in one SQLite
    /// transaction (one fsync, not one per purchase). Each purchase follows
    /// ``purchase(_:quantity:appAccountToken:)``'s rules and is a real transaction
    /// signed with the store's key. Returns how many transactions were added.
    public func seedPurchasesForBenchmarks(_ productIDs: [String], from start: Date, interval: TimeInterval) throws -> Int {
        try ledger.db.transaction {
            try ledger.ensureAccount(account, at: start)
            var added = 0
            for (offset, productID) in productIDs.enumerated() {
                guard let item = catalog.product(id: productID) else {
                    throw StoreError.productUnavailable(productID: productID)
                }
                let date = start.addingTimeInterval(interval * Double(offset))
                let outcome = try commitPurchase(item, quantity: 1, appAccountToken: nil, at: date)
                guard case .success(let transaction) = outcome.result, !outcome.alreadyOwned else { continue }
                _ = try ledger.markFinished(transaction.id)
                try deliver(transaction)
                added += 1
            }
            return added
        }
    }
}

/// A serial executor on a dispatch queue of its own. Dispatch gives such queues
/// extra threads when one blocks, unlike the cooperative pool (one thread per core).
final class QueueExecutor: SerialExecutor, @unchecked Sendable {
    // Immutable; DispatchQueue is thread-safe.
    private let queue: DispatchQueue

    init(label: String) {
        queue = DispatchQueue(label: label)
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedSerialExecutor()) }
    }

    func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }
}
