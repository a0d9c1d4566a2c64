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
    /// The catalog's shortest subscription period, worked out once: every read of the clock needs it.
    nonisolated let shortestPeriod: ISODuration?
    public nonisolated let account: String
    /// The store file's path.
    public nonisolated let path: String
    let ledger: Ledger
    private nonisolated let ledgerPublicKeyPEM: String
    /// The store runs on a queue of its own: SQLite waits for locks and fsync
    /// block, and must not hold up Swift's small cooperative thread pool.
    private nonisolated let executor = QueueExecutor(label: "storefront.store")

    public nonisolated var unownedExecutor: UnownedSerialExecutor {
        executor.asUnownedSerialExecutor()
    }
    /// Real time; the store's own time (``currentTime()``) is derived from it by the clock settings.
    let now: @Sendable () -> Date

    /// Opens (or creates) the store file at `path` for `account`.
    /// - Parameters:
    ///   - createFolder: create the file's folder when missing (the default location does).
    ///   - now: the store's clock; tests pass a fixed or stepping one.
    ///   - account: the sandbox account; nil means the one last switched to (`accounts switch`), else ``defaultAccount``.
    public init(catalog: Catalog, path: String, account: String? = nil,
                createFolder: Bool = false, now: @escaping @Sendable () -> Date = Date.init) throws(StoreFileError) {
        self.catalog = catalog
        self.shortestPeriod = catalog.shortestSubscriptionPeriod
        self.path = path
        self.now = now
        let ledger = try Ledger(path: path, bundleID: catalog.bundleID, createFolder: createFolder, now: now)
        self.ledger = ledger
        self.ledgerPublicKeyPEM = ledger.key.publicKeyPEM
        do {
            self.account = try account ?? ledger.setting(Self.currentAccountSetting, account: "") ?? Self.defaultAccount
        } catch {
            throw StoreFileError(path: path, reason: "cannot be read: \(error)")
        }
        // Every signedDate is store time. The ledger is only used on this actor's executor.
        ledger.signingTime = { [unowned self] in try self.assumeIsolated { try $0.currentTime() } }
    }

    // MARK: - Products

    /// The storefront the store is in now (the `storefront` setting, else the catalog's default).
    public func storefront() throws -> Storefront {
        let code = try ledger.setting("storefront", account: "") ?? catalog.defaultStorefront
        return catalog.storefront(code) ?? catalog.storefront(catalog.defaultStorefront) ?? .unitedStates
    }

    /// The catalog's products on offer in the current storefront, localized and priced,
    /// in display order (`Product.products(for:)`): latency, `offline` and `loadProductsError` apply.
    public func products() async throws -> [Product] {
        try await simulateConditions(errorSetting: "loadProductsError")
        return catalog.products(in: try storefront())
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
    /// The caller delivers the content and calls ``finish(_:)``. The settings
    /// (Ask to Buy, interrupted purchases, simulated errors, offline, latency) apply;
    /// `outcome` replaces the purchase conditions (Ask to Buy, interrupted, purchaseError)
    /// for this one purchase, while the device's (canMakePayments, offline, latency) still apply.
    public func purchase(_ productID: String, quantity: Int = 1, appAccountToken: UUID? = nil,
                         offerID: String? = nil, outcome: PurchaseOutcome? = nil) async throws -> PurchaseResult {
        try await makePurchase(productID, quantity: quantity, appAccountToken: appAccountToken, offerID: offerID,
                               outcome: outcome).result
    }

    /// What an app does on a Buy tap: purchase, then deliver and ``finish(_:)`` a
    /// successful, verified transaction. Also tells whether the product was already
    /// owned (handed back for free rather than charged), so a UI can say so.
    /// Throws ``StoreError/failedVerification(_:transactionID:)`` when the transaction
    /// arrives unverified; it is then left unfinished, as an app that checks verification leaves it.
    public func purchaseAndFinish(_ productID: String, quantity: Int = 1, appAccountToken: UUID? = nil,
                                  offerID: String? = nil, outcome: PurchaseOutcome? = nil) async throws -> AppPurchase {
        let purchase = try await makePurchase(productID, quantity: quantity, appAccountToken: appAccountToken,
                                              offerID: offerID, outcome: outcome)
        guard case .success(let transaction) = purchase.result else {
            return AppPurchase(result: purchase.result, alreadyOwned: false, isFinished: false)
        }
        if let note = purchase.note, purchase.verificationError == nil, transaction.productID != productID {
            // A scheduled downgrade: nothing new to deliver now.
            return AppPurchase(result: purchase.result, alreadyOwned: false, isFinished: transaction.isFinished, note: note)
        }
        if let error = purchase.verificationError {
            throw StoreError.failedVerification(error, transactionID: transaction.id)
        }
        guard try setting(named: "finishTransactions") == "true" || purchase.alreadyOwned else {
            return AppPurchase(result: purchase.result, alreadyOwned: false, isFinished: false)
        }
        try finish(transaction)
        let delivered = try ledger.transaction(id: transaction.id) ?? transaction
        return AppPurchase(result: .success(delivered), alreadyOwned: purchase.alreadyOwned, isFinished: true,
                           note: purchase.note)
    }

    /// Records a purchase made outside the app (on another device, or a promoted
    /// purchase): the App Store has it, the app gets it as an update, unfinished.
    /// The purchase conditions of this device (Ask to Buy, errors, offline) do not apply.
    public func purchaseOutsideApp(_ productID: String, quantity: Int = 1) async throws -> PurchaseResult {
        try await makePurchase(productID, quantity: quantity, appAccountToken: nil, offerID: nil, outcome: .succeed,
                               outside: true).result
    }

    private struct Purchase {
        var result: PurchaseResult
        var alreadyOwned = false
        /// A simulated `verificationError` the transaction reached the app with.
        var verificationError: SimulatedError?
        /// What else happened: an upgrade at once, a downgrade waiting for the renewal.
        var note: String?
    }

    private func makePurchase(_ productID: String, quantity: Int, appAccountToken: UUID?, offerID: String?,
                              outcome chosen: PurchaseOutcome?, outside: Bool = false) async throws -> Purchase {
        if !outside { try await simulateLatency() }
        try processRenewals()
        let date = try currentTime()
        let outcome: Result<Purchase, StoreError> = try ledger.db.transaction {
            try ledger.ensureAccount(account, at: date)
            try ledger.log(.purchasing, account: account, productID: productID, at: date)
            // A failure is logged and committed with the log, then thrown after the write transaction.
            func fail(_ error: StoreError) throws -> Result<Purchase, StoreError> {
                try ledger.log(.failed, account: account, productID: productID, detail: Self.logDetail(error), at: date)
                return .failure(error)
            }
            guard let item = catalog.product(id: productID) else { return try fail(.productUnavailable(productID: productID)) }
            let storefront = try storefront()
            guard item.isAvailable(in: storefront.countryCode) else {
                return try fail(.notAvailableInStorefront(productID: productID, storefront: storefront.countryCode))
            }
            guard (1...10).contains(quantity), quantity == 1 || item.type == .consumable else {
                return try fail(.invalidQuantity(quantity))
            }
            guard try setting(named: "canMakePayments") == "true" else { return try fail(.paymentNotAllowed) }
            if let offerID {
                guard let terms = item.subscription, terms.offers.contains(where: { $0.kind == .promotional && $0.id == offerID })
                else {
                    return try fail(.purchaseError(.invalidOfferIdentifier,
                                                   reason: "\(productID) has no promotional offer \"\(offerID)\""))
                }
                // Promotional offers are for people who subscribe, or once subscribed, in the group.
                guard try !isEligibleForIntroOffer(groupID: terms.groupID) else {
                    return try fail(.purchaseError(.ineligibleForOffer,
                                                   reason: "promotional offers are for current and lapsed subscribers of the group"))
                }
            }

            var outcome = chosen ?? .succeed
            var cause = "chosen for this purchase"
            if !outside, try setting(named: "offline") == "true" {
                return try fail(.simulated(.networkError, cause: "offline is true"))
            }
            if chosen == nil {
                if let error = try takeSimulatedError("purchaseError") {
                    (outcome, cause) = (.fail(error.error), error.cause)
                } else if try setting(named: "askToBuy") == "true" {
                    outcome = .askToBuy
                } else if try setting(named: "interruptedPurchases") == "true" {
                    outcome = .interrupt
                }
            }
            switch outcome {
            case .cancel, .fail(.userCancelled):
                try ledger.log(.failed, account: account, productID: productID,
                               detail: "userCancelled (SKError code 2)", at: date)
                return .success(Purchase(result: .userCancelled))
            case .fail(let error):
                return try fail(.simulated(error, cause: cause))
            case .askToBuy:
                return .success(try commitPurchase(item, quantity: quantity, appAccountToken: appAccountToken,
                                                   offerID: offerID, pending: .askToBuy, at: date))
            case .interrupt:
                return .success(try commitPurchase(item, quantity: quantity, appAccountToken: appAccountToken,
                                                   offerID: offerID, pending: .interrupted, at: date))
            case .succeed:
                return .success(try commitPurchase(item, quantity: quantity, appAccountToken: appAccountToken,
                                                   offerID: offerID, pending: nil, outside: outside, at: date))
            }
        }
        return try outcome.get()
    }

    /// The event log's words for a failure: the error's name and its StoreKit 1 code.
    private static func logDetail(_ error: StoreError) -> String {
        "\(error.name)\(error.skErrorCode.map { " (SKError code \($0))" } ?? "")"
    }

    /// The purchase itself, inside the write transaction.
    private func commitPurchase(_ item: CatalogProduct, quantity: Int, appAccountToken: UUID?, offerID: String?,
                                pending: Transaction.PendingReason?, outside: Bool = false,
                                at date: Date) throws -> Purchase {
        // A consumable's history changes nothing, and each row read is a signature check.
        let history = item.type == .consumable ? [] : try ledger.transactions(account: account, productID: item.id)
        // Only a subscription can be in its billing grace period.
        let inGrace = item.type == .autoRenewable ? try transactionsInGrace(at: date) : []
        let active = history.first { $0.isActive(at: date) } ?? inGrace.first { $0.productID == item.id }
        if let active, item.type == .nonConsumable || item.type == .autoRenewable {
            if let terms = item.subscription,
               var record = try ledger.subscriptionStates(account: account).first(where: { $0.groupID == terms.groupID }),
               !record.willAutoRenew || record.autoRenewProductID != item.id {
                // Subscribing again to the current product turns auto-renew back on and cancels a waiting change.
                (record.willAutoRenew, record.autoRenewProductID, record.expirationReason) = (true, item.id, nil)
                try ledger.saveSubscription(record, account: account)
            }
            // Already owned: StoreKit hands back the existing transaction for free.
            try ledger.recordOwned(account: account, productID: item.id, transactionID: active.id)
            try ledger.log(.restored, account: account, productID: item.id, transactionID: active.id,
                           detail: item.type == .nonConsumable ? "already purchased" : "already subscribed", at: date)
            return Purchase(result: .success(active), alreadyOwned: true)
        }

        if let pending {
            // Nothing is charged or granted yet: the record waits for approval or an action.
            var draft = try draftTransaction(item, quantity: quantity, appAccountToken: appAccountToken, at: date)
            // The offer chosen is kept for the approval; what it grants is decided then.
            (draft.status, draft.pendingReason, draft.expirationDate, draft.offerType) = (.pending, pending, nil, nil)
            draft.offerID = offerID
            let stored = try ledger.insert(draft)
            switch pending {
            case .askToBuy:
                try ledger.log(.deferred, account: account, productID: item.id, transactionID: stored.id,
                               detail: "Ask to Buy: waiting for a parent to approve or decline", at: date)
            case .interrupted:
                try ledger.log(.failed, account: account, productID: item.id, transactionID: stored.id,
                               detail: "interrupted: the user must act (resolve) before it completes", at: date)
            }
            return Purchase(result: .pending(stored))
        }

        let completed = try complete(item, quantity: quantity, appAccountToken: appAccountToken, offerID: offerID, at: date)
        guard var stored = completed.transaction else {
            return Purchase(result: .success(completed.current!), note: completed.note)
        }
        let verificationError = outside ? nil : try takeSimulatedError("verificationError")?.error
        var detail = [outside ? "purchased outside the app" : nil, completed.note].compactMap { $0 }.joined(separator: "; ")
        if let verificationError {
            stored.verification = .unverified(reason: "\(verificationError.rawValue) (simulated by verificationError)")
            detail = "reached the app unverified: \(verificationError.rawValue) (simulated)"
        }
        try ledger.log(.purchased, account: account, productID: item.id, transactionID: stored.id, detail: detail, at: date)
        return Purchase(result: .success(stored), verificationError: verificationError, note: completed.note)
    }

    /// Completes a purchase at `date` (a new one, or an approved or resolved pending one):
    /// adds or finalizes its transaction, and for a subscription applies the group's rules.
    /// Within a group (level 1 the highest) an upgrade takes effect at once and the old
    /// transaction is marked upgraded; a downgrade, or a crossgrade to another period,
    /// waits for the next renewal and adds no transaction (`current` is the subscription kept).
    private func complete(_ item: CatalogProduct, quantity: Int, appAccountToken: UUID?, offerID: String?,
                          replacing pending: Transaction? = nil, at date: Date)
        throws -> (transaction: Transaction?, current: Transaction?, note: String?) {
        if let pending, item.type == .nonConsumable,
           try ledger.transactions(account: account, productID: item.id).contains(where: { $0.isActive(at: date) }) {
            // A second request for something the account got meanwhile: charging again would be wrong.
            throw StoreError.invalidTransactionState(id: pending.id, action: "complete",
                                                     state: "a request for \(item.id), which the account owns already; decline it")
        }
        var draft = try draftTransaction(item, quantity: quantity, appAccountToken: appAccountToken, offerID: offerID, at: date)
        guard let terms = item.subscription else {
            return (try store(draft, replacing: pending), nil, nil)
        }
        var record = try ledger.subscriptionStates(account: account).first { $0.groupID == terms.groupID }
        var note: String?
        let inGrace = Set(try transactionsInGrace(at: date).map(\.id))
        if let existing = record, let current = try ledger.latestTransaction(originalID: existing.originalID),
           current.revocationDate == nil, current.isActive(at: date) || inGrace.contains(current.id),
           let currentTerms = catalog.product(id: current.productID)?.subscription {
            let immediate = terms.level < currentTerms.level
                || (terms.level == currentTerms.level && terms.period == currentTerms.period)
            if !immediate {
                // Downgrade, or crossgrade to another period: from the next renewal on.
                record?.autoRenewProductID = item.id
                record?.willAutoRenew = true
                try ledger.saveSubscription(record!, account: account)
                if let pending { try ledger.delete(transactionID: pending.id) }
                let when = current.expirationDate.map { String($0.formatted(.iso8601).prefix(10)) } ?? "the next renewal"
                let change = terms.level > currentTerms.level ? "downgrade" : "crossgrade"
                let message = "\(change) to \(item.id) takes effect at the next renewal, \(when)"
                try ledger.log(.purchased, account: account, productID: item.id, transactionID: current.id, detail: message, at: date)
                return (nil, current, message)
            }
            try ledger.markUpgraded(current.id)
            note = "\(terms.level < currentTerms.level ? "upgrade" : "crossgrade") from \(current.productID) at once; the unused part of \(current.id) is refunded pro rata"
        }
        if let existing = record {
            // Upgrades and resubscriptions keep the subscription's original transaction.
            draft.originalID = existing.originalID
            draft.originalPurchaseDate = try ledger.transaction(id: existing.originalID)?.originalPurchaseDate ?? date
        }
        let stored = try store(draft, replacing: pending)
        record = SubscriptionRecord(groupID: terms.groupID, originalID: stored.originalID, willAutoRenew: true,
                                    autoRenewProductID: item.id, expirationReason: nil, billingRetrySince: nil, graceUntil: nil)
        try ledger.saveSubscription(record!, account: account)
        return (stored, nil, note)
    }

    /// Inserts a new transaction, or turns a pending one into it (same id).
    private func store(_ draft: Transaction, replacing pending: Transaction?) throws -> Transaction {
        guard let pending else { return try ledger.insert(draft) }
        var transaction = draft
        transaction.id = pending.id
        if transaction.originalID == 0 { transaction.originalID = pending.originalID }
        return try ledger.update(transaction)
    }

    /// A new transaction for `item` bought at `date`, priced in the current storefront:
    /// a non-renewing subscription extends the current period, a subscription gets
    /// its introductory offer when eligible, or the promotional offer `offerID`.
    private func draftTransaction(_ item: CatalogProduct, quantity: Int, appAccountToken: UUID?, offerID: String? = nil,
                                  at date: Date) throws -> Transaction {
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
            let active = try ledger.transactions(account: account, productID: item.id).first { $0.isActive(at: date) }
            let start = max(date, active?.expirationDate ?? date)
            transaction.expirationDate = item.duration?.after(start)
        case .autoRenewable:
            let terms = item.subscription!
            transaction.expirationDate = terms.period.after(date)
            let offerType: Transaction.OfferType? = offerID != nil ? .promotional
                : try isEligibleForIntroOffer(groupID: terms.groupID) ? .introductory : nil
            if let offerType, let offer = offerTerms(item, type: offerType, id: offerID) {
                (transaction.offerType, transaction.offerID, transaction.price) = (offerType, offerID, offer.price)
                transaction.applyOffer(mode: offer.mode, period: offer.period, count: offer.count)
                // Pay up front covers the whole offer; the other modes one period at a time.
                transaction.expirationDate = offer.period.after(date)
            }
        }
        return transaction
    }

    /// A simulated error setting's value, taken: a `--once` value is cleared in the same
    /// write transaction, so exactly one call, in whichever process, gets it.
    private func takeSimulatedError(_ name: String) throws -> (error: SimulatedError, cause: String)? {
        guard SimulatedError(rawValue: try setting(named: name)) != nil else { return nil }
        return try ledger.db.transaction { () -> (error: SimulatedError, cause: String)? in
            // Read again under the write lock: another process may have taken a `--once` error meanwhile.
            guard let error = SimulatedError(rawValue: try setting(named: name)) else { return nil }
            guard try ledger.setting(name + Self.onceSuffix, account: "") == "true" else {
                return (error, "\(name) is \(error.rawValue)")
            }
            try ledger.removeSetting(name, account: "")
            try ledger.removeSetting(name + Self.onceSuffix, account: "")
            return (error, "\(name) is \(error.rawValue), once")
        }
    }

    /// A read-only call's simulated conditions: latency, then offline, then the setting's error.
    private func simulateConditions(errorSetting name: String) async throws {
        try await simulateLatency()
        if try setting(named: "offline") == "true" { throw StoreError.simulated(.networkError, cause: "offline is true") }
        if let error = try takeSimulatedError(name) {
            try ledger.db.transaction {
                try ledger.log(.failed, account: account, productID: "", detail: "\(name): \(Self.logDetail(.simulated(error.error, cause: error.cause)))", at: try currentTime())
            }
            throw StoreError.simulated(error.error, cause: error.cause)
        }
    }

    /// Waits the `latency` setting's milliseconds, as the App Store takes time to answer.
    /// The actor is free meanwhile: other calls go on.
    private func simulateLatency() async throws {
        let milliseconds = Int(try setting(named: "latency")) ?? 0
        if milliseconds > 0 { try await Task.sleep(for: .milliseconds(milliseconds)) }
    }

    // MARK: - Pending purchases and the Transaction Manager

    /// The account's purchases waiting for a parent or an action, oldest first.
    public func pendingTransactions() throws -> [Transaction] {
        try ledger.pendingTransactions(account: account)
    }

    /// A parent approves an Ask to Buy request: the purchase completes now and
    /// reaches the app as an update (unfinished until the app delivers it).
    @discardableResult
    public func approve(_ id: Int64) throws -> Transaction {
        try complete(id, waitingFor: .askToBuy, action: "approve", detail: "approved by a parent (Ask to Buy)")
    }

    /// Completes an interrupted purchase, as when the user has accepted the terms.
    @discardableResult
    public func resolve(_ id: Int64) throws -> Transaction {
        try complete(id, waitingFor: .interrupted, action: "resolve", detail: "interrupted purchase resolved")
    }

    /// A parent declines an Ask to Buy request: nothing is charged, nothing arrives.
    @discardableResult
    public func decline(_ id: Int64) throws -> Transaction {
        let date = try currentTime()
        return try ledger.db.transaction {
            var transaction = try pending(id, waitingFor: .askToBuy, action: "decline")
            transaction.status = .declined
            let stored = try ledger.update(transaction)
            try ledger.log(.failed, account: account, productID: transaction.productID, transactionID: id,
                           detail: "declined by a parent (Ask to Buy)", at: date)
            return stored
        }
    }

    private func complete(_ id: Int64, waitingFor reason: Transaction.PendingReason, action: String,
                          detail: String) throws -> Transaction {
        // Renewals due by now come first: the approval may change a plan that has renewed meanwhile.
        try processRenewals()
        let date = try currentTime()
        return try ledger.db.transaction {
            let waiting = try pending(id, waitingFor: reason, action: action)
            guard let item = catalog.product(id: waiting.productID) else {
                throw StoreError.productUnavailable(productID: waiting.productID)
            }
            // Charged and dated now, as the App Store completes it now.
            let completed = try complete(item, quantity: waiting.purchasedQuantity, appAccountToken: waiting.appAccountToken,
                                         offerID: waiting.offerID, replacing: waiting, at: date)
            let stored = completed.transaction ?? completed.current!
            try ledger.log(.purchased, account: account, productID: item.id, transactionID: stored.id,
                           detail: [detail, completed.note].compactMap { $0 }.joined(separator: "; "), at: date)
            return stored
        }
    }

    private func pending(_ id: Int64, waitingFor reason: Transaction.PendingReason, action: String) throws -> Transaction {
        let transaction = try transaction(id: id)
        guard transaction.status == .pending, transaction.pendingReason == reason else {
            let state = transaction.status == .pending ? "pending (\(transaction.pendingReason?.rawValue ?? "unknown"))"
                : transaction.status.rawValue
            throw StoreError.invalidTransactionState(id: id, action: action, state: state)
        }
        return transaction
    }

    /// Refunds a purchase, as the App Store does after a refund request: `revocationDate`
    /// and `revocationReason` are set, the entitlement goes, and a refunded
    /// consumable is taken from the app's balance (never below zero).
    @discardableResult
    public func refund(_ id: Int64, reason: Transaction.RevocationReason = .other) throws -> Transaction {
        let date = try currentTime()
        return try ledger.db.transaction {
            var transaction = try transaction(id: id)
            guard transaction.status == .purchased, transaction.revocationDate == nil else {
                let state = transaction.revocationDate != nil ? "refunded already" : transaction.status.rawValue
                throw StoreError.invalidTransactionState(id: id, action: "refund", state: state)
            }
            (transaction.revocationDate, transaction.revocationReason) = (date, reason)
            let stored = try ledger.update(transaction)
            if transaction.productType == .consumable, transaction.isFinished {
                let balance = try ledger.balances(account: account)[transaction.productID] ?? 0
                try ledger.addToBalance(account: account, productID: transaction.productID,
                                        amount: -min(balance, transaction.purchasedQuantity))
            }
            try ledger.log(.revoked, account: account, productID: transaction.productID, transactionID: id,
                           detail: "refunded (\(reason.rawValue))", at: date)
            return stored
        }
    }

    /// Deletes a transaction from the account's history (the Transaction Manager's Delete).
    public func deleteTransaction(_ id: Int64) throws {
        try ledger.db.transaction {
            _ = try transaction(id: id)
            try ledger.delete(transactionID: id)
        }
    }

    /// Delivers a purchased transaction's content to the app and finishes it,
    /// atomically: a consumable's quantity is added to its balance, anything
    /// else joins the app's owned products. Finishing twice delivers once. A transaction
    /// refunded before the app finished it is finished without granting anything.
    public func finish(_ transaction: Transaction) throws {
        try ledger.db.transaction {
            guard try ledger.markFinished(transaction.id) else { return }
            // The App Store's record decides, not the caller's copy: it may have been refunded since.
            guard (try ledger.transaction(id: transaction.id) ?? transaction).revocationDate == nil else { return }
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

    /// What an app does at launch and on `Transaction.updates`: deliver and finish
    /// each unfinished transaction, unless it arrives unverified (a simulated
    /// `verificationError`) or the app "crashes" first (`finishTransactions` false).
    public func deliverUnfinished() throws -> Delivery {
        try processRenewals()
        var delivery = Delivery()
        let waiting = try unfinished()
        guard !waiting.isEmpty else { return delivery }
        let finishes = try setting(named: "finishTransactions") == "true"
        for var transaction in waiting {
            if let error = try takeSimulatedError("verificationError") {
                transaction.verification = .unverified(reason: "\(error.error.rawValue) (simulated by verificationError)")
                delivery.left.append(transaction)
            } else if !finishes || !transaction.verification.isVerified {
                delivery.left.append(transaction)
            } else {
                try finish(transaction)
                delivery.finished.append(transaction)
            }
        }
        return delivery
    }

    // MARK: - Restore and entitlements

    /// Restores purchases (`AppStore.sync()`): non-consumables and active
    /// subscriptions return to the app, consumables never. Adds no transaction;
    /// each restored product is logged as `restored`. Returns what was restored.
    public func sync() async throws -> [Transaction] {
        try await simulateConditions(errorSetting: "restoreError")
        try processRenewals()
        let date = try currentTime()
        return try ledger.db.transaction {
            try ledger.ensureAccount(account, at: date)
            let restored = try entitlements(at: date)
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
        try processRenewals()
        return try entitlements(at: try currentTime())
    }

    /// The newest active transaction of each product, and subscriptions in their billing grace period.
    private func entitlements(at date: Date) throws -> [Transaction] {
        let active = try ledger.latestRestorableTransactions(account: account).filter { $0.isActive(at: date) }
        let grace = try transactionsInGrace(at: date).filter { graced in !active.contains { $0.productID == graced.productID } }
        return active + grace
    }

    /// The signed renewal information of each subscription the account has or had, by group id.
    public func renewalInfo() throws -> [String: RenewalInfo] {
        Dictionary(uniqueKeysWithValues: try subscriptionStatuses().map { ($0.groupID, $0.renewalInfo) })
    }

    /// Whether the account owns this product now: a non-consumable bought and
    /// not revoked, or an active subscription.
    public func isEntitled(to productID: String) throws -> Bool {
        try currentEntitlements().contains { $0.productID == productID }
    }

    /// The account's whole history (`Transaction.all`), newest first; the newest `limit` only when given.
    public func transactions(limit: Int? = nil) throws -> [Transaction] {
        try processRenewals()
        return try ledger.transactions(account: account, limit: limit)
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
        let date = try currentTime()
        let inGrace = Set(try transactionsInGrace(at: date).map(\.id))
        var owned: [String: Transaction] = [:]
        // Read (and verified) together rather than one query per product.
        let granting = Dictionary(try ledger.ownedProductTransactions(account: account).map { ($0.id, $0) },
                                  uniquingKeysWith: { first, _ in first })
        for (productID, transactionID) in try ledger.owned(account: account) {
            // The cache can be stale (expired, revoked, reset account); the store's record decides.
            if let transaction = granting[transactionID], transaction.account == account,
               transaction.isActive(at: date) || inGrace.contains(transaction.id) {
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

    /// The settings row that marks an error setting as `--once`.
    private static let onceSuffix = ".once"

    /// Every setting with its value for this account.
    public func settings() throws -> [SettingValue] {
        try SettingDefinition.all.map { definition in
            let stored = try ledger.setting(definition.name, account: scopeKey(definition))
            let onceMark = definition.acceptsOnce ? try ledger.setting(definition.name + Self.onceSuffix, account: "") : nil
            let once = stored != nil && onceMark == "true"
            return SettingValue(name: definition.name, value: stored ?? defaultValue(definition),
                                scope: definition.scope, isDefault: stored == nil, once: once)
        }
    }

    /// Changes a setting (for this account when the setting is per account).
    /// Returns the value as stored, normalized (`on` becomes `true`). With `once`
    /// (error settings only) the value applies to the next call, then clears itself.
    @discardableResult
    public func setSetting(_ name: String, to value: String, once: Bool = false) throws -> String {
        guard let definition = SettingDefinition.named(name) else {
            throw SettingError(description: "unknown setting \"\(name)\"; known settings: \(SettingDefinition.all.map(\.name).joined(separator: ", "))")
        }
        guard let normalized = definition.normalize(value, catalog) else {
            throw SettingError(description: "\"\(value)\" is not a valid value for \(name); expected \(definition.allowed(catalog))")
        }
        guard !once || definition.acceptsOnce else {
            throw SettingError(description: "--once applies to the error settings only, not to \(name)")
        }
        try ledger.db.transaction {
            if ["billingIssues", "gracePeriod"].contains(name) {
                // Renewals that fell due before the change (nothing read since) bill as things were then.
                try processRenewals()
            }
            try ledger.ensureAccount(account, at: try currentTime())
            if name == "timeRate" {
                // The new rate runs from the store time reached so far: time never jumps.
                try anchorClock(storeTime: try currentTime())
            }
            try ledger.setSetting(name, account: scopeKey(definition), value: normalized)
            if once, normalized != definition.defaultValue {
                try ledger.setSetting(name + Self.onceSuffix, account: "", value: "true")
            } else if definition.acceptsOnce {
                try ledger.removeSetting(name + Self.onceSuffix, account: "")
            }
        }
        return normalized
    }

    func setting(named name: String) throws -> String {
        let definition = SettingDefinition.named(name)!
        return try ledger.setting(name, account: scopeKey(definition)) ?? defaultValue(definition)
    }

    private func scopeKey(_ definition: SettingDefinition) -> String {
        definition.scope == .account ? account : ""
    }

    /// A setting's value until one is set: the catalog's starting settings (a `.storekit`
    /// file's Ask to Buy and billing switches), else the built-in default.
    private func defaultValue(_ definition: SettingDefinition) -> String {
        if definition.name == "storefront" { return catalog.defaultStorefront }
        if let key = Self.startingSettingKeys[definition.name], let text = catalog.startingSettings[key],
           let value = definition.normalize(text, catalog) {
            return value
        }
        return definition.defaultValue
    }

    /// Which of a catalog's starting settings (Xcode's names) is the default of which setting.
    /// (`timeRate` and `storeKitErrors` are kept but not applied: Xcode's numbering of them is not documented.)
    static let startingSettingKeys = [
        "askToBuy": "askToBuyEnabled", "billingIssues": "billingIssuesEnabled", "gracePeriod": "billingGracePeriodEnabled",
    ]

    /// Wipes the app's side, this account, or the whole store file's contents.
    public func reset(_ scope: ResetScope) throws {
        try ledger.db.transaction { try ledger.reset(scope, account: account) }
    }

    /// The account's newest transaction state changes, oldest first.
    public func events(limit: Int = 100) throws -> [TransactionEvent] {
        try ledger.events(account: account, limit: limit)
    }

    /// The sandbox accounts that have used this store file, oldest first.
    public func accounts() throws -> [String] {
        try ledger.accounts()
    }

    /// Adds a sandbox tester with an empty history. False when it exists already.
    @discardableResult
    public func createAccount(_ name: String) throws -> Bool {
        try ledger.db.transaction {
            guard try !ledger.accounts().contains(name) else { return false }
            try ledger.ensureAccount(name, at: try currentTime())
            return true
        }
    }

    /// Makes `name` the account used when none is named (`--account`), creating it
    /// when new. Returns a store for it; this one keeps its own account.
    public func switchAccount(to name: String) throws -> Store {
        try ledger.db.transaction {
            try ledger.ensureAccount(name, at: try currentTime())
            try ledger.setSetting(Self.currentAccountSetting, account: "", value: name)
        }
        return try Store(catalog: catalog, path: path, account: name, now: now)
    }

    /// A name for a new tester that no account has yet: `tester2@local`, `tester3@local`, …
    public func unusedTesterName() throws -> String {
        let taken = Set(try ledger.accounts())
        return (2...).lazy.map { "tester\($0)@local" }.first { !taken.contains($0) }!
    }

    /// The settings row that names the account used when none is named.
    static let currentAccountSetting = "currentAccount"

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
                let outcome = try commitPurchase(item, quantity: 1, appAccountToken: nil, offerID: nil, pending: nil, at: date)
                guard case .success(let transaction) = outcome.result, !outcome.alreadyOwned,
                      transaction.productID == productID else { continue }
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
