import Foundation

/// What the payment queue tells its observers, as Apple's `SKPaymentTransactionObserver`.
///
/// Only `paymentQueue(_:updatedTransactions:)` is required, as in Apple's protocol; Apple's
/// optional methods are requirements here with default implementations (there is no
/// Objective-C runtime on Linux). Every method is called on the main queue: a command-line
/// program must run the main run loop (`dispatchMain()`, `RunLoop.main.run()`, or an `async`
/// `main` that awaits).
public protocol SKPaymentTransactionObserver: NSObjectProtocol {
    /// Transactions changed state: new purchases, failures, restores, approvals, renewals,
    /// purchases made elsewhere, and — when the observer is added — those left unfinished last time.
    func paymentQueue(_ queue: SKPaymentQueue, updatedTransactions transactions: [SKPaymentTransaction])
    /// Transactions left the queue, after `finishTransaction(_:)` (and the store recorded it).
    func paymentQueue(_ queue: SKPaymentQueue, removedTransactions transactions: [SKPaymentTransaction])
    /// `restoreCompletedTransactions()` failed (the store's `restoreError`, `offline`).
    func paymentQueue(_ queue: SKPaymentQueue, restoreCompletedTransactionsFailedWithError error: any Error)
    /// `restoreCompletedTransactions()` delivered every restored transaction.
    func paymentQueueRestoreCompletedTransactionsFinished(_ queue: SKPaymentQueue)
    /// A purchase started in the App Store (a promoted in-app purchase): return true to add
    /// `payment` to the queue now. The default returns false.
    func paymentQueue(_ queue: SKPaymentQueue, shouldAddStorePayment payment: SKPayment, for product: SKProduct) -> Bool
    /// The account's storefront changed.
    func paymentQueueDidChangeStorefront(_ queue: SKPaymentQueue)
    /// Family-shared purchases the account is no longer entitled to (the purchaser left the family,
    /// stopped sharing, or was refunded).
    func paymentQueue(_ queue: SKPaymentQueue, didRevokeEntitlementsForProductIdentifiers productIdentifiers: [String])
    /// Downloads of hosted content changed state (deprecated by Apple in iOS 16): here only those the
    /// app handed to `start`, `resume` or `cancel`, as the store hosts no content.
    func paymentQueue(_ queue: SKPaymentQueue, updatedDownloads downloads: [SKDownload])
}

extension SKPaymentTransactionObserver {
    public func paymentQueue(_ queue: SKPaymentQueue, removedTransactions transactions: [SKPaymentTransaction]) {}
    public func paymentQueue(_ queue: SKPaymentQueue, restoreCompletedTransactionsFailedWithError error: any Error) {}
    public func paymentQueueRestoreCompletedTransactionsFinished(_ queue: SKPaymentQueue) {}
    public func paymentQueue(_ queue: SKPaymentQueue, shouldAddStorePayment payment: SKPayment, for product: SKProduct) -> Bool {
        false
    }
    public func paymentQueueDidChangeStorefront(_ queue: SKPaymentQueue) {}
    public func paymentQueue(_ queue: SKPaymentQueue, didRevokeEntitlementsForProductIdentifiers productIdentifiers: [String]) {}
    public func paymentQueue(_ queue: SKPaymentQueue, updatedDownloads downloads: [SKDownload]) {}
}
