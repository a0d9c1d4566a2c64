/// Where a transaction is, as Apple's `SKPaymentTransactionState` (raw values included).
public enum SKPaymentTransactionState: Int, Sendable, Hashable, CustomStringConvertible {
    /// Added to the queue; the store is working on it.
    case purchasing = 0
    /// Charged: deliver the content, then `finishTransaction(_:)`.
    case purchased = 1
    /// Not charged; `error` says why. Finish it too.
    case failed = 2
    /// A purchase restored by `restoreCompletedTransactions()`; `original` is the purchase.
    case restored = 3
    /// Waiting for someone else (Ask to Buy): it comes back `purchased` or `failed`.
    case deferred = 4

    public var description: String {
        switch self {
        case .purchasing: "purchasing"
        case .purchased: "purchased"
        case .failed: "failed"
        case .restored: "restored"
        case .deferred: "deferred"
        }
    }
}
