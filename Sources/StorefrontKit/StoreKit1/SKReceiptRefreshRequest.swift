import Foundation
import StoreEngine

/// `receiptProperties` key: make the test receipt expired (sandbox only, as Apple's).
public let SKReceiptPropertyIsExpired = "expired"
/// `receiptProperties` key: a revoked test receipt. Accepted; the store makes no revoked receipts.
public let SKReceiptPropertyIsRevoked = "revoked"
/// `receiptProperties` key: a Volume Purchase Program test receipt (`ProductionVPPSandbox`).
public let SKReceiptPropertyIsVolumePurchase = "vpp"

/// A request to make the app receipt anew (StoreKit 1's `SKReceiptRefreshRequest`): start it,
/// and on `requestDidFinish(_:)` the receipt at ``AppStore/receiptURL`` lists the account's
/// purchases now, signed by the store's certificate authority.
///
/// As Apple's, it reports only finishing or failing (`request(_:didFailWithError:)`, an `SKError`
/// from the store's conditions, `offline` among them); the receipt is read from the file.
open class SKReceiptRefreshRequest: SKRequest, @unchecked Sendable {
    // @unchecked: `receiptProperties` is set once, in init, and only read after.

    /// The test receipt's properties (``SKReceiptPropertyIsExpired``, …), as given to init.
    public let receiptProperties: [String: Any]?

    /// A request for a receipt; `properties` ask the sandbox for a test receipt (expired, revoked,
    /// volume purchase).
    public init(receiptProperties properties: [String: Any]?) {
        receiptProperties = properties
        super.init()
    }

    /// A request for the account's receipt, as it is.
    public override init() {
        receiptProperties = nil
        super.init()
    }

    override package func perform(in context: StoreContext) async throws {
        func isSet(_ key: String) -> Bool {
            guard let value = receiptProperties?[key] else { return false }
            return (value as? Bool) ?? (value as? NSNumber)?.boolValue ?? false
        }
        var properties = ReceiptProperties()
        if isSet(SKReceiptPropertyIsExpired) { properties.insert(.expired) }
        if isSet(SKReceiptPropertyIsVolumePurchase) { properties.insert(.volumePurchase) }
        try await context.store.app.refreshReceipt(properties: properties)
    }
}
