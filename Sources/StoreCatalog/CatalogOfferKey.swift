import Foundation

/// The key a catalog signs promotional offers with: a `.storekit` file's
/// `subscriptionOffersKeyPair` (Xcode's Editor ▸ Subscription Offers Key), or the same member
/// of products.json. A store on the catalog signs and checks offers with it as with a key
/// `offer-keys add` registered, without that step.
public struct CatalogOfferKey: Sendable, Hashable {
    /// The key identifier (`id`), which a signature's `keyID` names.
    public var keyID: String
    /// The private key as the file holds it: PKCS#8 DER in base64 (`privateKey`).
    public var privateKeyBase64: String

    public init(keyID: String, privateKeyBase64: String) {
        (self.keyID, self.privateKeyBase64) = (keyID, privateKeyBase64)
    }

    /// The private key in PEM, as `SigningKey(pem:)` and `offer-keys add` take it.
    public var privateKeyPEM: String {
        let body = Array(privateKeyBase64)
        let lines = stride(from: 0, to: body.count, by: 64).map { String(body[$0..<min($0 + 64, body.count)]) }
        return (["-----BEGIN PRIVATE KEY-----"] + lines + ["-----END PRIVATE KEY-----"]).joined(separator: "\n") + "\n"
    }
}

extension Node {
    /// A `subscriptionOffersKeyPair` object: `id` and `privateKey` (base64 PKCS#8, as Xcode writes it).
    /// Whether it is an EC P-256 key is checked where it is used (this target has no cryptography).
    func offerKeyPair() throws -> CatalogOfferKey {
        try object()
        let id = try required("id").identifier()
        let keyNode = try required("privateKey")
        let text = try keyNode.string().filter { !$0.isWhitespace }
        guard !text.isEmpty, Data(base64Encoded: text) != nil else {
            throw keyNode.fail("the private key is not base64 (PKCS#8 DER, as Xcode writes it)")
        }
        return CatalogOfferKey(keyID: id, privateKeyBase64: text)
    }
}
