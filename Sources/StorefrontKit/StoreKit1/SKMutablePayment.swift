import Foundation

/// A payment whose options can be set before it is added to the queue, as Apple's `SKMutablePayment`.
/// The queue keeps a copy: changing the payment after `add(_:)` changes nothing.
open class SKMutablePayment: SKPayment, @unchecked Sendable {
    open override var productIdentifier: String {
        get { fields.withLock { $0.productIdentifier } }
        set { fields.withLock { $0.productIdentifier = newValue } }
    }
    open override var quantity: Int {
        get { fields.withLock { $0.quantity } }
        set { fields.withLock { $0.quantity = newValue } }
    }
    open override var requestData: Data? {
        get { fields.withLock { $0.requestData } }
        set { fields.withLock { $0.requestData = newValue } }
    }
    open override var applicationUsername: String? {
        get { fields.withLock { $0.applicationUsername } }
        set { fields.withLock { $0.applicationUsername = newValue } }
    }
    open override var simulatesAskToBuyInSandbox: Bool {
        get { fields.withLock { $0.simulatesAskToBuyInSandbox } }
        set { fields.withLock { $0.simulatesAskToBuyInSandbox = newValue } }
    }
    open override var paymentDiscount: SKPaymentDiscount? {
        get { fields.withLock { $0.paymentDiscount } }
        set { fields.withLock { $0.paymentDiscount = newValue } }
    }
}
