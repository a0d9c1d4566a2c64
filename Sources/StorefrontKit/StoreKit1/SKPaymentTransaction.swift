import Foundation
import StoreEngine
import Synchronization

/// A payment in the queue and what became of it, as Apple's `SKPaymentTransaction`.
///
/// Open with a public `init()`, as Apple's `NSObject` subclass: a library's mock subclass overrides
/// the getters (`payment`, `original`, `transactionState`, …) and hands itself to code that takes an
/// `SKPaymentTransaction`. The queue's own transactions keep their values in internal storage.
open class SKPaymentTransaction: NSObject, @unchecked Sendable {
    // @unchecked: the mutable parts are behind `fields`' lock; the rest is immutable.

    /// What the transaction shows (changed on the main queue, just before the observers hear of
    /// it, so each callback sees the state it is about) and what the queue knows of it already.
    struct Fields {
        var state: SKPaymentTransactionState
        var error: SKError?
        var identifier: String?
        var date: Date?
        /// The store's transaction, once there is one.
        var engine: StoreEngine.Transaction?
        /// The Ask to Buy request a deferred transaction waits on (the store's transaction keeps its id).
        var requestID: Int64?
        /// Whether its outcome is decided (purchased or failed), whatever observers have heard yet.
        var settled = false
        /// `finishTransaction(_:)` was called: a second call does nothing.
        var finishing = false
    }
    let fields: Mutex<Fields>

    /// The payment that made it, as the queue keeps it.
    let storedPayment: SKPayment
    /// The purchase a restored transaction restores.
    private let storedOriginal: SKPaymentTransaction?

    /// The payment that made it (a copy: changing the payment added changes nothing).
    open var payment: SKPayment { storedPayment }
    /// For a restored transaction, the purchase it restores; nil otherwise.
    open var original: SKPaymentTransaction? { storedOriginal }
    /// The hosted content to download for it: none, ever (a store without hosted content). Apple
    /// deprecated hosted content in iOS 16.
    open var downloads: [SKDownload] { [] }
    /// The queue it is in: `finishTransaction(_:)` on any queue finishes it there.
    private(set) weak var queue: SKPaymentQueue?

    init(payment: SKPayment, state: SKPaymentTransactionState, queue: SKPaymentQueue?, engine: StoreEngine.Transaction? = nil,
         date: Date? = nil, original: SKPaymentTransaction? = nil) {
        storedPayment = payment
        storedOriginal = original
        self.queue = queue
        fields = Mutex(Fields(state: state, identifier: engine.map { String($0.id) }, date: date ?? engine?.purchaseDate,
                              engine: engine, settled: state != .purchasing))
        super.init()
    }

    /// An empty transaction, as Apple's `SKPaymentTransaction()`: an empty payment, `purchasing`, in no
    /// queue. What a mock subclass starts from; `finishTransaction(_:)` of one does nothing.
    public override init() {
        storedPayment = SKPayment()
        storedOriginal = nil
        fields = Mutex(Fields(state: .purchasing))
        super.init()
    }

    /// A transaction the store made (an unfinished purchase, a renewal, an approval), as the queue hands it over.
    convenience init(purchased engine: StoreEngine.Transaction, queue: SKPaymentQueue?) {
        self.init(payment: SKPayment(of: engine), state: .purchased, queue: queue, engine: engine)
    }

    /// Where the transaction is.
    open var transactionState: SKPaymentTransactionState { fields.withLock { $0.state } }
    /// Why it failed (an `SKError`), for `failed` only.
    open var error: (any Error)? { fields.withLock { $0.error } }
    /// The store's transaction id, for `purchased` and `restored`.
    open var transactionIdentifier: String? { fields.withLock { $0.identifier } }
    /// When it was charged (`purchased`) or restored (`restored`).
    open var transactionDate: Date? { fields.withLock { $0.date } }

    /// The store's transaction behind it, if any.
    var engine: StoreEngine.Transaction? { fields.withLock { $0.engine } }
    /// The Ask to Buy request a deferred transaction waits on.
    var requestID: Int64? { fields.withLock { $0.requestID } }

    /// Changes its fields under the lock.
    func update(_ change: (inout Fields) -> Void) { fields.withLock { change(&$0) } }

    /// Whether it waits for the store: still `purchasing`, or `deferred` without an answer.
    var isWaiting: Bool { fields.withLock { !$0.settled } }

    open override var description: String {
        let fields = fields.withLock { $0 }
        return "<SKPaymentTransaction \(storedPayment.productIdentifier) \(fields.state)\(fields.identifier.map { " \($0)" } ?? "")>"
    }
}
