import Foundation
import StoreEngine
import Synchronization

/// A request to buy a product, as Apple's `SKPayment`: made from an `SKProduct`, added to the
/// `SKPaymentQueue`. Immutable; `SKMutablePayment` sets the options.
open class SKPayment: NSObject, NSCopying, NSMutableCopying, @unchecked Sendable {
    // @unchecked: the fields are behind `fields`' lock (SKMutablePayment writes them).

    struct Fields {
        var productIdentifier = ""
        var quantity = 1
        var requestData: Data?
        var applicationUsername: String?
        var simulatesAskToBuyInSandbox = false
        var paymentDiscount: SKPaymentDiscount?
    }
    let fields: Mutex<Fields>

    /// An empty payment (no product): fill in an `SKMutablePayment` made so.
    public override init() {
        fields = Mutex(Fields())
        super.init()
    }

    init(fields: Fields) {
        self.fields = Mutex(fields)
        super.init()
    }

    /// A payment for one of `product`.
    public convenience init(product: SKProduct) {
        self.init(fields: Fields(productIdentifier: product.productIdentifier))
    }

    /// The payment a transaction of the store's was made with (one made elsewhere, a renewal, a restore).
    convenience init(of transaction: StoreEngine.Transaction) {
        self.init(fields: Fields(productIdentifier: transaction.productID, quantity: transaction.purchasedQuantity,
                                 applicationUsername: transaction.appAccountToken?.uuidString.lowercased()))
    }

    /// A payment for one of the product with this identifier (deprecated by Apple: use `init(product:)`).
    @available(*, deprecated, message: "Use init(product:)")
    open class func payment(withProductIdentifier identifier: String) -> Any {
        SKMutablePayment(fields: Fields(productIdentifier: identifier))
    }

    /// The product to buy.
    open var productIdentifier: String { fields.withLock { $0.productIdentifier } }
    /// How many (1 to 10, more than 1 for consumables only).
    open var quantity: Int { fields.withLock { $0.quantity } }
    /// Reserved for future use by Apple; kept, never read by the store.
    open var requestData: Data? { fields.withLock { $0.requestData } }
    /// The app's opaque id of its user; a UUID string becomes the transaction's `appAccountToken`.
    open var applicationUsername: String? { fields.withLock { $0.applicationUsername } }
    /// Makes this purchase ask a parent first (Ask to Buy), whatever the store's settings.
    open var simulatesAskToBuyInSandbox: Bool { fields.withLock { $0.simulatesAskToBuyInSandbox } }
    /// A promotional offer to redeem with the purchase.
    open var paymentDiscount: SKPaymentDiscount? { fields.withLock { $0.paymentDiscount } }

    open func copy(with zone: NSZone? = nil) -> Any { SKPayment(fields: fields.withLock { $0 }) }
    open func mutableCopy(with zone: NSZone? = nil) -> Any { SKMutablePayment(fields: fields.withLock { $0 }) }

    open override var description: String {
        let fields = fields.withLock { $0 }
        return "<SKPayment \(fields.productIdentifier) ×\(fields.quantity)>"
    }
}
