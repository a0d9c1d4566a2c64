import Foundation
import StoreEngine

/// A promotional offer's signed redemption, as Apple's `SKPaymentDiscount`: set it as
/// `SKMutablePayment.paymentDiscount`. The store checks the signature as the App Store does
/// (a key registered with `storefront offer-keys`, 24 hours, a nonce used once); a bad one fails
/// the transaction with `SKError.invalidSignature`, a missing part with `missingOfferParams`.
open class SKPaymentDiscount: NSObject, @unchecked Sendable {
    // @unchecked: immutable after init.

    /// The promotional offer's identifier (one of the product's `discounts`).
    open private(set) var identifier: String
    /// The id of the key that signed it.
    open private(set) var keyIdentifier: String
    /// The nonce signed, once per purchase.
    open private(set) var nonce: UUID
    /// The base64 DER ECDSA-SHA256 signature, as the server made it.
    open private(set) var signature: String
    /// When it was signed, in milliseconds since 1970.
    open private(set) var timestamp: NSNumber

    /// The discount's parts, as the app's server signed them.
    public init(identifier: String, keyIdentifier: String, nonce: UUID, signature: String, timestamp: NSNumber) {
        self.identifier = identifier
        self.keyIdentifier = keyIdentifier
        self.nonce = nonce
        self.signature = signature
        self.timestamp = timestamp
        super.init()
    }

    /// What the engine checks: StoreKit 1's legacy signature form.
    package var engineSignature: PromotionalOfferSignature {
        .legacy(keyID: keyIdentifier, nonce: nonce, timestamp: timestamp.int64Value, signature: signature)
    }
}
