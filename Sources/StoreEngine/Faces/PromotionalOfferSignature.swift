import Foundation

/// A promotional offer's signature, in either of Apple's forms.
public enum PromotionalOfferSignature: Sendable, Hashable {
    /// StoreKit 1's `SKPaymentDiscount` fields, which StoreKit 2's
    /// `promotionalOffer(offerID:keyID:nonce:signature:timestamp:)` takes too: the base64 DER
    /// ECDSA-SHA256 signature over Apple's fields joined by U+2063 (see ``legacyMessage``).
    case legacy(keyID: String, nonce: UUID, timestamp: Int64, signature: String)
    /// The newer form (`promotionalOffer(_:compactJWS:)`): an ES256 JWS with `kid`, whose claims
    /// are `bid`, `iss`, `aud` "promotional-offer", `iat`, `nonce`, `productId`,
    /// `offerIdentifier` and optionally `transactionId`.
    case compactJWS(String)

    /// Which form to make.
    public enum Form: String, Sendable { case legacy, compactJWS }

    /// A fault a tester puts in a signature on purpose, to see the App Store refuse it
    /// (`invalidOfferSignature`), as a server's bug would make it.
    public enum Flaw: String, Sendable, Hashable, CaseIterable {
        /// Signed with a key App Store Connect never issued, under a registered key's id.
        case wrongKey
        /// Made 25 hours before the store's now: past the 24 hours a signature is good for.
        case stale
        /// Its nonce was used by an earlier purchase attempt.
        case reusedNonce
    }

    /// What Apple's legacy form signs: appBundleID, keyIdentifier, productIdentifier,
    /// offerIdentifier, appAccountToken (lowercased, or empty), nonce (lowercased),
    /// timestamp — joined by U+2063 (INVISIBLE SEPARATOR), as Apple's
    /// `PromotionalOfferSignatureCreator` does.
    public static func legacyMessage(bundleID: String, keyID: String, productID: String, offerID: String,
                                     appAccountToken: UUID?, nonce: UUID, timestamp: Int64) -> String {
        [bundleID, keyID, productID, offerID, appAccountToken?.uuidString.lowercased() ?? "",
         nonce.uuidString.lowercased(), String(timestamp)].joined(separator: "\u{2063}")
    }

    /// How long a signature is good for after its timestamp (Apple: 24 hours).
    public static let lifetime: TimeInterval = 24 * 3600
    /// How far in the future a timestamp may be (clocks differ a little).
    public static let allowedSkew: TimeInterval = 300
    /// The compact JWS form's `aud`.
    public static let audience = "promotional-offer"
}

/// Why an offer key could not be added or used (`offer-keys`, `offer sign`).
public struct OfferKeyError: Error, Sendable, CustomStringConvertible {
    public var description: String
}
