import Foundation
import StoreEngine
import Synchronization

/// The queue of payments the store works on, as Apple's `SKPaymentQueue`: add payments and
/// observers; each transaction's progress reaches every observer on the main queue. Open with a
/// public `init()`, as Apple's.
///
/// `default()` is the queue of the store StorefrontKit's other calls use (a test session's,
/// or the configured or found store file). Transactions the app has not finished come back
/// when the first observer is added, in this run or the next; what the store does elsewhere
/// (an Ask to Buy approval, a renewal, a purchase in another terminal) reaches the observers
/// through the store's change feed.
open class SKPaymentQueue: NSObject, @unchecked Sendable {
    // @unchecked: the mutable state is behind `lock`.

    /// The store the queue works on; nil when none could be opened (every payment then fails).
    let context: StoreContext?
    private let lock = NSLock()
    private var observers: [any SKPaymentTransactionObserver] = []
    /// The transactions not finished yet (``transactions``).
    var pending: [SKPaymentTransaction] = []
    /// Store transactions this queue has handed to its observers (or made): never handed over twice.
    private var known: Set<Int64> = []
    /// Revoked family-shared transactions already reported.
    private var revokedSeen: Set<Int64> = []
    private var watcher: Task<Void, Never>?
    private var lastStorefront: StoreEngine.Storefront?
    private weak var weakDelegate: (any SKPaymentQueueDelegate)?
    /// Where the queue's work runs: a thread of its own, off Swift's shared pool, so the callbacks it
    /// sends to the main queue never wait behind the rest of a busy process's tasks.
    let executor = StoreKitExecutor(label: "storefrontkit.paymentqueue")

    /// A queue on `context`'s store (tests make their own; apps use ``default()``).
    package init(context: StoreContext?) {
        self.context = context
        super.init()
    }

    /// A new queue on the store StorefrontKit uses now (none found: every payment fails), as Apple's
    /// `SKPaymentQueue()`. Apps use ``default()``; a library's mock subclass starts here and overrides
    /// what it fakes (`add(_:)`, `transactions`, `finishTransaction(_:)`, …).
    public override init() {
        context = try? StoreContext.resolve()
        super.init()
    }

    private static let queues = Mutex<[ObjectIdentifier: SKPaymentQueue]>([:])
    private static let storeless = SKPaymentQueue(context: nil)

    /// The queue of the store StorefrontKit uses now.
    open class func `default`() -> SKPaymentQueue {
        guard let context = try? StoreContext.resolve() else { return storeless }
        return queues.withLock { queues in
            if let queue = queues[ObjectIdentifier(context)] { return queue }
            let queue = SKPaymentQueue(context: context)
            queues[ObjectIdentifier(context)] = queue
            return queue
        }
    }

    /// A test session's store is gone: its default queue goes too, its watcher stopped, so the
    /// store closes (a test process makes hundreds of sessions; each kept its file open).
    static func storeEnded(_ context: StoreContext) {
        let queue = queues.withLock { $0.removeValue(forKey: ObjectIdentifier(context)) }
        queue?.stopWatching()
    }

    /// Whether the account may make payments (the store's `canMakePayments` setting). Waits briefly for the store.
    open class func canMakePayments() -> Bool {
        BlockingExecutor.wait {
            guard let context = try? StoreContext.resolve() else { return false }
            return (try? await context.store.app.canMakePayments()) ?? false
        }
    }

    func locked<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    // MARK: - What is in the queue

    /// The queue's delegate (held weakly), asked when the storefront changes under a waiting transaction.
    open var delegate: (any SKPaymentQueueDelegate)? {
        get { locked { weakDelegate } }
        set { locked { weakDelegate = newValue } }
    }

    /// The observers, in the order they were added.
    open var transactionObservers: [any SKPaymentTransactionObserver] { locked { observers } }

    /// The transactions not finished yet.
    open var transactions: [SKPaymentTransaction] { locked { pending } }

    /// The account's storefront now; nil without a store. Waits briefly for the store.
    open var storefront: SKStorefront? {
        guard let context else { return nil }
        let storefront = BlockingExecutor.wait { try? await context.store.app.storefront() }
        return storefront.map(SKStorefront.init)
    }

    // MARK: - Observers

    /// Adds an observer (kept until ``remove(_:)``). The first one starts the queue watching the store:
    /// what the app left unfinished arrives at once; a later one gets the transactions in the queue.
    open func add(_ observer: any SKPaymentTransactionObserver) {
        let (first, waiting) = locked { () -> (Bool, [SKPaymentTransaction]) in
            guard !observers.contains(where: { $0 === observer }) else { return (false, []) }
            observers.append(observer)
            return (watcher == nil, observers.count > 1 ? pending : [])
        }
        if !waiting.isEmpty {
            let newcomer = UncheckedSendable(observer)
            deliver { queue, _ in newcomer.value.paymentQueue(queue, updatedTransactions: waiting) }
        }
        if first { startWatching() }
    }

    /// Removes an observer; with none left the queue stops watching the store.
    open func remove(_ observer: any SKPaymentTransactionObserver) {
        let stop = locked { () -> Task<Void, Never>? in
            observers.removeAll { $0 === observer }
            guard observers.isEmpty else { return nil }
            defer { watcher = nil }
            return watcher
        }
        stop?.cancel()
    }

    // MARK: - Payments

    /// Adds a payment (a copy of it): its transaction goes `purchasing`, then `purchased`, `failed`
    /// or `deferred` (Ask to Buy: the setting, or `simulatesAskToBuyInSandbox`).
    open func add(_ payment: SKPayment) {
        let copy = payment.copy(with: nil) as? SKPayment ?? payment
        let transaction = SKPaymentTransaction(payment: copy, state: .purchasing, queue: self)
        locked { pending.append(transaction) }
        updated([transaction])
        guard let context else {
            fail(transaction, SKError(.unknown, description: "no store: StorefrontKit found no catalog (call StorefrontKit.configure)"))
            return
        }
        Task(executorPreference: executor) { [self] in await purchase(transaction, in: context) }
    }

    private func purchase(_ transaction: SKPaymentTransaction, in context: StoreContext) async {
        let payment = transaction.storedPayment
        let token = payment.applicationUsername.flatMap { UUID(uuidString: $0) }
        await context.purchasing {
            do {
                let outcome = try await context.store.app.purchase(
                    payment.productIdentifier, quantity: payment.quantity, appAccountToken: token,
                    offerID: payment.paymentDiscount?.identifier, offerSignature: payment.paymentDiscount?.engineSignature,
                    choice: payment.simulatesAskToBuyInSandbox ? .askToBuy : nil)
                context.changed()
                switch outcome {
                case .purchased(let bought, _), .alreadyOwned(let bought): complete(transaction, with: bought, context: context)
                case .changeScheduled(let change): complete(transaction, with: change.current, context: context)
                case .pending(let request):
                    transaction.update { $0.requestID = request.id }
                    locked { _ = known.insert(request.id) }
                    move(transaction) { $0.state = .deferred }
                case .userCancelled: fail(transaction, SKError(.paymentCancelled, description: "The user cancelled."))
                }
            } catch {
                fail(transaction, SKError(storeError: error))
            }
        }
    }

    /// Decides a transaction `purchased` with the store's transaction; the observers hear of it.
    func complete(_ transaction: SKPaymentTransaction, with bought: StoreEngine.Transaction, context: StoreContext) {
        locked { _ = known.insert(bought.id) }
        context.handOut(bought.id)  // StoreKit 2's `Transaction.updates` does not repeat it
        move(transaction, settles: true, engine: bought) { Self.purchased(&$0, bought) }
    }

    /// Decides a transaction `failed`; the observers hear of it.
    func fail(_ transaction: SKPaymentTransaction, _ error: SKError) {
        move(transaction, settles: true) {
            $0.state = .failed
            $0.error = error
        }
    }

    static func purchased(_ fields: inout SKPaymentTransaction.Fields, _ bought: StoreEngine.Transaction) {
        fields.state = .purchased
        fields.identifier = String(bought.id)
        fields.date = bought.purchaseDate
    }

    /// Changes what `transaction` shows on the main queue, then tells the observers: each callback
    /// sees the transaction as it is about. `settles`: its outcome is decided now (with the store's
    /// transaction `engine`, if it was bought), whenever the observers hear of it.
    func move(_ transaction: SKPaymentTransaction, settles: Bool = false, engine: StoreEngine.Transaction? = nil,
              _ change: @escaping @Sendable (inout SKPaymentTransaction.Fields) -> Void) {
        if settles {
            transaction.update {
                $0.settled = true
                if let engine { $0.engine = engine }
            }
        }
        deliver { queue, observers in
            transaction.update(change)
            for observer in observers { observer.paymentQueue(queue, updatedTransactions: [transaction]) }
        }
    }

    /// Takes a transaction out of the queue; for a purchase, tells the store the content is
    /// delivered. Once the store has it, the transaction leaves ``transactions`` on the main queue,
    /// in the same turn as the observers hear `removedTransactions`: never while the callback that
    /// finished it is still running, so a restore's `paymentQueueRestoreCompletedTransactionsFinished`,
    /// delivered with its transactions, still finds them there. A `purchasing` or `deferred`
    /// transaction is not finished (Apple's queue raises an exception instead).
    open func finishTransaction(_ transaction: SKPaymentTransaction) {
        if let owner = transaction.queue, owner !== self {
            owner.finishTransaction(transaction)
            return
        }
        let state = transaction.transactionState
        guard state != .purchasing, state != .deferred else { return }
        let first = transaction.fields.withLock { fields -> Bool in
            defer { fields.finishing = true }
            return !fields.finishing
        }
        guard first, locked({ pending.contains { $0 === transaction } }) else { return }
        Task(executorPreference: executor) { [self] in
            if let context, let engine = transaction.engine, !engine.isFinished || state == .purchased {
                _ = try? await context.store.app.finish(engine)
                context.changed()
            }
            // Out of `transactions` when `removedTransactions` is delivered, as Apple's queue removes it: on the
            // main queue after the callback that finished it (a restore's completion comes in that callback's
            // turn), and once the store has it, so an app that waits for an empty queue may quit then.
            deliver { queue, observers in
                queue.locked { queue.pending.removeAll { $0 === transaction } }
                for observer in observers { observer.paymentQueue(queue, removedTransactions: [transaction]) }
            }
        }
    }

    // MARK: - Restore

    /// Restores the account's completed purchases, as StoreKit 1 replays them: a `restored`
    /// transaction for each purchase (and renewal) of a non-consumable or auto-renewable
    /// subscription, oldest first — never consumables or non-renewing subscriptions; then
    /// `paymentQueueRestoreCompletedTransactionsFinished`. The store's `restoreError` and
    /// `offline` make it fail (`restoreCompletedTransactionsFailedWithError`).
    open func restoreCompletedTransactions() { restore(username: nil) }

    /// Restores as ``restoreCompletedTransactions()``; with a UUID `username` (the
    /// `applicationUsername` purchases were made with), only the purchases made with it.
    open func restoreCompletedTransactions(withApplicationUsername username: String?) { restore(username: username) }

    // MARK: - Codes, consent

    /// StoreKit's offer code sheet without its UI: redeems `AppStore.offerCodeToRedeem` or
    /// `$STOREFRONT_OFFER_CODE`, as `AppStore.presentOfferCodeRedeemSheet()` does; the transaction
    /// reaches the observers as `purchased`. A bad code, like a closed sheet, tells the app nothing.
    open func presentCodeRedemptionSheet() {
        let code = AppStore.offerCodeToRedeem ?? ProcessInfo.processInfo.environment["STOREFRONT_OFFER_CODE"]
        guard let code, !code.isEmpty else { return }
        redeem(code: code)
    }

    /// Redeems an offer code as the sheet would; the transaction arrives through the change feed.
    package func redeem(code: String) {
        guard let context else { return }
        Task(executorPreference: executor) {
            _ = try? await context.store.appStore.redeemOfferCode(code)
            context.changed()
        }
    }

    /// Shows a waiting price increase consent sheet: there is no sheet here (`storefront price-consent` answers it).
    open func showPriceConsentIfNeeded() {}

    // MARK: - Hosted content (deprecated by Apple in iOS 16): this store hosts none. See `SKDownload`.

    /// Starts downloads: with no hosted content, each `waiting` or `paused` one fails
    /// (`SKError.storeProductNotAvailable`); the observers hear `updatedDownloads`.
    open func start(_ downloads: [SKDownload]) {
        change(downloads, from: [.waiting, .paused]) {
            $0.state = .failed
            $0.error = SKError(.storeProductNotAvailable, description: "The store hosts no content to download.")
        }
    }

    /// Pauses active downloads: none is ever active here, so nothing changes.
    open func pause(_ downloads: [SKDownload]) {
        change(downloads, from: [.active]) { $0.state = .paused }
    }

    /// Resumes paused downloads: with no hosted content, each fails as ``start(_:)``'s do.
    open func resume(_ downloads: [SKDownload]) {
        change(downloads, from: [.paused]) {
            $0.state = .failed
            $0.error = SKError(.storeProductNotAvailable, description: "The store hosts no content to download.")
        }
    }

    /// Cancels downloads not yet ended (`waiting`, `active`, `paused`): each becomes `cancelled`; the
    /// observers hear `updatedDownloads`.
    open func cancel(_ downloads: [SKDownload]) {
        change(downloads, from: [.waiting, .active, .paused]) { $0.state = .cancelled }
    }

    /// On the main queue: changes the downloads in one of `states`, then tells the observers of those.
    private func change(_ downloads: [SKDownload], from states: Set<SKDownloadState>,
                        _ body: @escaping @Sendable (inout SKDownload.Fields) -> Void) {
        guard !downloads.isEmpty else { return }
        deliver { queue, observers in
            let changed = downloads.filter { download in
                download.fields.withLock { fields in
                    guard states.contains(fields.state) else { return false }
                    body(&fields)
                    return true
                }
            }
            guard !changed.isEmpty else { return }
            for observer in observers { observer.paymentQueue(queue, updatedDownloads: changed) }
        }
    }

    // MARK: - Delivery

    /// Tells every observer, on the main queue, that `transactions` changed.
    func updated(_ transactions: [SKPaymentTransaction]) {
        guard !transactions.isEmpty else { return }
        deliver { queue, observers in
            for observer in observers { observer.paymentQueue(queue, updatedTransactions: transactions) }
        }
    }

    /// Runs `body` on the main queue with the observers of that moment, StorefrontKit's static
    /// calls bound to this queue's store (so `SKPaymentQueue.default()` in a callback is this queue).
    func deliver(_ body: @escaping @Sendable (SKPaymentQueue, [any SKPaymentTransactionObserver]) -> Void) {
        DispatchQueue.main.async { [self] in
            let observers = transactionObservers
            if let context {
                StoreContext.$current.withValue(context) { body(self, observers) }
            } else {
                body(self, observers)
            }
        }
    }

    // MARK: - Watching the store

    private func stopWatching() {
        let task = locked { () -> Task<Void, Never>? in
            defer { watcher = nil }
            return watcher
        }
        task?.cancel()
    }

    private func startWatching() {
        guard let context else { return }
        let changes = context.store.changes.changes()
        let task = Task(executorPreference: executor) { [weak self] in
            for await change in changes {
                guard let self, !Task.isCancelled else { return }
                await self.handle(change, context: context)
            }
        }
        let keep = locked { () -> Bool in
            guard watcher == nil, !observers.isEmpty else { return false }
            watcher = task
            return true
        }
        if !keep { task.cancel() }
        if keep, let promoted = ProcessInfo.processInfo.environment["STOREFRONT_PROMOTED_PRODUCT"], !promoted.isEmpty {
            simulateStorePayment(productIdentifier: promoted)
        }
    }

    /// One change of the store: approvals and declines of deferred transactions, transactions the
    /// app has not seen (left unfinished, renewals, purchases made elsewhere), family revocations,
    /// a new storefront.
    private func handle(_ change: StoreChange, context: StoreContext) async {
        // A purchase under way says itself which transaction it made.
        await context.purchasesSettled()
        var changed: [(SKPaymentTransaction, (@Sendable (inout SKPaymentTransaction.Fields) -> Void)?)] = []
        for transaction in locked({ pending.filter { $0.requestID != nil && $0.isWaiting } }) {
            guard let requestID = transaction.requestID else { continue }
            if let approved = change.unfinished.first(where: { $0.id == requestID && $0.status == .purchased }) {
                context.handOut(approved.id)
                transaction.update {
                    $0.settled = true
                    $0.engine = approved
                }
                changed.append((transaction, { Self.purchased(&$0, approved) }))
            } else if let request = try? await context.store.app.transaction(id: requestID), request.status == .declined {
                transaction.update { $0.settled = true }
                changed.append((transaction, {
                    $0.state = .failed
                    $0.error = SKError(.paymentCancelled, description: "The parent declined the Ask to Buy request.")
                }))
            }
        }
        var revokedProducts: [String] = []
        for unfinished in change.unfinished where unfinished.status == .purchased {
            if unfinished.revocationDate != nil {
                guard unfinished.ownershipType == .familyShared, locked({ revokedSeen.insert(unfinished.id).inserted }) else { continue }
                revokedProducts.append(unfinished.productID)
                // StoreKit 1 has no transaction to finish for it: the queue finishes it, so it is reported once.
                _ = try? await context.store.app.finish(unfinished)
                continue
            }
            guard !context.wasHandedOut(unfinished.id), locked({ known.insert(unfinished.id).inserted }) else { continue }
            let transaction = SKPaymentTransaction(purchased: unfinished, queue: self)
            locked { pending.append(transaction) }
            changed.append((transaction, nil))
        }
        if !changed.isEmpty {
            let moves = changed.map { UncheckedSendable($0) }
            deliver { queue, observers in
                for move in moves { move.value.1.map { change in move.value.0.update(change) } }
                let transactions = moves.map(\.value.0)
                for observer in observers { observer.paymentQueue(queue, updatedTransactions: transactions) }
            }
        }
        if !revokedProducts.isEmpty {
            let products = revokedProducts
            deliver { queue, observers in
                for observer in observers { observer.paymentQueue(queue, didRevokeEntitlementsForProductIdentifiers: products) }
            }
        }
        await noticeStorefront(context: context)
    }

    /// Tells the observers when the storefront changed, and asks the delegate about each waiting transaction.
    private func noticeStorefront(context: StoreContext) async {
        guard let now = try? await context.store.app.storefront() else { return }
        let before = locked { () -> StoreEngine.Storefront? in
            defer { lastStorefront = now }
            return lastStorefront
        }
        guard let before, before.countryCode != now.countryCode else { return }
        let waiting = locked { pending.filter(\.isWaiting) }
        deliver { queue, observers in
            let storefront = SKStorefront(now)
            var ended: [SKPaymentTransaction] = []
            if let delegate = queue.delegate {
                for transaction in waiting where transaction.isWaiting
                    && !delegate.paymentQueue(queue, shouldContinue: transaction, in: storefront) {
                    transaction.update {
                        $0.settled = true
                        $0.state = .failed
                        $0.error = SKError(.storeProductNotAvailable, description: "The storefront changed to \(now.countryCode).")
                    }
                    ended.append(transaction)
                }
            }
            for observer in observers {
                observer.paymentQueueDidChangeStorefront(queue)
                if !ended.isEmpty { observer.paymentQueue(queue, updatedTransactions: ended) }
            }
        }
    }

    /// A purchase started in the App Store (a promoted in-app purchase), as StoreKit hands it to the
    /// app: each observer is asked `shouldAddStorePayment`; the payment is added when one says yes.
    /// `$STOREFRONT_PROMOTED_PRODUCT` makes one when the first observer is added.
    package func simulateStorePayment(productIdentifier: String) {
        guard let context else { return }
        Task(executorPreference: executor) { [self] in
            guard let storefront = try? await context.store.app.storefront(),
                  let product = try? await context.store.app.product(id: productIdentifier) else { return }
            let skProduct = SKProduct(product, storefront: storefront)
            deliver { queue, observers in
                let payment = SKPayment(product: skProduct)
                if observers.contains(where: { $0.paymentQueue(queue, shouldAddStorePayment: payment, for: skProduct) }) {
                    queue.add(payment)
                }
            }
        }
    }
}

/// A value handed to the main queue that is only used there (an observer the app gave the queue).
struct UncheckedSendable<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
