import Foundation

/// What the payment queue asks its delegate, as Apple's `SKPaymentQueueDelegate`. Apple's
/// optional methods are requirements with default implementations. Called on the main queue.
public protocol SKPaymentQueueDelegate: NSObjectProtocol {
    /// The storefront changed while `transaction` waited (`purchasing` or `deferred`): return false
    /// to end it, `failed` with `SKError.storeProductNotAvailable`. The default continues it.
    func paymentQueue(_ paymentQueue: SKPaymentQueue, shouldContinue transaction: SKPaymentTransaction,
                      in newStorefront: SKStorefront) -> Bool
    /// Whether to show a price increase consent sheet now. The default shows it.
    func paymentQueueShouldShowPriceConsent(_ paymentQueue: SKPaymentQueue) -> Bool
}

extension SKPaymentQueueDelegate {
    public func paymentQueue(_ paymentQueue: SKPaymentQueue, shouldContinue transaction: SKPaymentTransaction,
                             in newStorefront: SKStorefront) -> Bool { true }
    public func paymentQueueShouldShowPriceConsent(_ paymentQueue: SKPaymentQueue) -> Bool { true }
}
