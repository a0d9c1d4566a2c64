import Foundation
import StoreCatalog

/// The store's signer: its P-256 key and the certificate chain that certifies it.
/// Signs every transaction and renewal info as Apple does — a compact JWS whose
/// header is `{"alg":"ES256","x5c":[leaf, intermediate, root]}` — so a server
/// verifies it with the App Store Server Library, given this store's root.
public final class SigningIdentity: Sendable {
    /// The leaf's key, which signs.
    public let key: SigningKey
    /// Leaf, intermediate and root.
    public let chain: CertificateChain
    /// The header of every JWS this identity signs, base64url-encoded once.
    private let header: (encoded: String, json: JSON)

    /// An identity from a key and a chain whose leaf certifies it.
    public init(key: SigningKey, chain: CertificateChain) throws(VerificationFailure) {
        guard try chain.leaf.publicKey().hasSamePublicKey(as: key) else {
            throw VerificationFailure(description: "the leaf certificate does not certify the signing key")
        }
        self.key = key
        self.chain = chain
        let json = JSON.object(["alg": .string("ES256"), "x5c": .array(chain.x5c.map { .string($0) })])
        header = (Base64URL.encode(Array(json.serialized(pretty: false).utf8)), json)
    }

    /// The signing key's public half (SubjectPublicKeyInfo PEM).
    public var publicKeyPEM: String { key.publicKeyPEM }

    /// The root certificate a server trusts in place of Apple's.
    public var rootCertificate: Certificate { chain.root }

    /// Signs `payload` as a compact JWS with this store's `x5c` header.
    public func sign(_ payload: JSON) throws(VerificationFailure) -> String {
        try key.sign(payload, encodedHeader: header.encoded)
    }

    /// Signs a payload already serialized as compact JSON.
    package func sign(payloadBytes: [UInt8]) throws(VerificationFailure) -> String {
        try key.sign(payloadBytes: payloadBytes, encodedHeader: header.encoded)
    }

    /// The quick check of every read: the header is exactly this store's (ES256 and
    /// its chain, which ``checkChain(at:)`` vouches for) and the signature is the leaf key's.
    public func verifySignature(_ jws: String) throws(VerificationFailure) -> (header: JSON, payload: JSON) {
        try key.verify(jws, knownHeader: header)
    }

    /// The check a server makes: the `x5c` chain against this store's root at the
    /// payload's `signedDate` (see ``CertificateChain/verify(x5c:trustedRoot:at:)``),
    /// then the signature with the leaf key the chain carries.
    public func verify(_ jws: String) throws(VerificationFailure) -> (header: JSON, payload: JSON) {
        let parts = jws.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerBytes = Base64URL.decode(parts[0]), let header = try? JSON.parse(headerBytes),
              let payloadBytes = Base64URL.decode(parts[1]), let payload = try? JSON.parse(payloadBytes) else {
            throw VerificationFailure(description: "not a compact JWS of base64url-encoded JSON (three dot-separated parts)")
        }
        guard case .array(let entries)? = header["x5c"], !entries.isEmpty else {
            throw VerificationFailure(description: "the header has no x5c certificate chain")
        }
        let x5c = entries.compactMap { entry -> String? in
            if case .string(let text) = entry { return text }
            return nil
        }
        var signedDate = Date()
        if case .number(let text)? = payload["signedDate"], let milliseconds = Int64(text) {
            signedDate = Date(milliseconds: milliseconds)
        }
        let leafKey = try CertificateChain.verify(x5c: x5c, trustedRoot: chain.root, at: signedDate)
        return try leafKey.verify(jws)
    }

    /// Checks the stored chain itself: it verifies against its own root at `date`,
    /// with the markers, and its leaf certifies the signing key.
    public func checkChain(at date: Date) throws(VerificationFailure) {
        let leafKey = try CertificateChain.verify(x5c: chain.x5c, trustedRoot: chain.root, at: date)
        guard leafKey.hasSamePublicKey(as: key) else {
            throw VerificationFailure(description: "the leaf certificate does not certify the signing key")
        }
    }
}
