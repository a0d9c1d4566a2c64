import COpenSSL
import Foundation

/// Why an app receipt was refused: verifyReceipt's 21002 (``malformed``) and 21003 (``notAuthentic``).
public enum ReceiptFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// Not base64, not PKCS#7 SignedData, or no receipt payload inside.
    case malformed(String)
    /// A PKCS#7 whose signature or certificate chain does not verify against this store's receipt root.
    case notAuthentic(String)

    public var description: String {
        switch self {
        case .malformed(let why): "the receipt is malformed: \(why)"
        case .notAuthentic(let why): "the receipt could not be authenticated: \(why)"
        }
    }
}

/// The store's receipt signer, as Apple signs app receipts: an RSA 2048 key certified by a chain of
/// its own — an RSA root, an RSA intermediate and the "Receipt Signing" leaf, with Apple's markers —
/// apart from the ES256 chain that signs JWS, as Apple's receipts chain to Apple Root CA and its
/// JWS to Apple Root CA - G3. Issued at the store's first receipt and kept in the store
/// (docs/storekit1.md says why a chain of its own).
public final class ReceiptSigner: Sendable {
    /// The leaf's RSA key, which signs.
    public let key: SigningKey
    /// Leaf, intermediate and root, all RSA.
    public let chain: CertificateChain

    /// A signer from a key and a chain whose leaf certifies it.
    public init(key: SigningKey, chain: CertificateChain) throws(VerificationFailure) {
        guard try chain.leaf.publicKey().hasSamePublicKey(as: key) else {
            throw VerificationFailure(description: "the receipt-signing leaf certificate does not certify the receipt-signing key")
        }
        (self.key, self.chain) = (key, chain)
    }

    /// A new RSA 2048 key and its chain (a new root), valid from a day before `date` (store time) on.
    public static func issue(at date: Date) throws(VerificationFailure) -> ReceiptSigner {
        let key = try SigningKey.generateRSA()
        return try ReceiptSigner(key: key, chain: try CertificateChain.issueForReceipts(for: key, at: date))
    }

    /// Signs an app receipt as Apple packs one: PKCS#7 SignedData (DER) around the payload, signed
    /// SHA-256 with RSA (PKCS#1 v1.5) by the receipt-signing leaf and carrying leaf, intermediate and
    /// root, so `openssl smime -verify -CAfile root.pem` checks it. As in Apple's receipts, the
    /// SignerInfo has no signed attributes: the signature is over the payload itself, which is what
    /// receipt verifiers written for Apple's format check.
    public func sign(_ receipt: AppReceipt) throws(VerificationFailure) -> [UInt8] {
        let payload = try receipt.der()
        guard let certificates = cossl_x509_stack_new() else { throw SigningKey.opensslError("a certificate list") }
        defer { cossl_x509_stack_free(certificates) }
        guard cossl_x509_stack_push(certificates, chain.intermediate.x509) > 0,
              cossl_x509_stack_push(certificates, chain.root.x509) > 0 else {
            throw SigningKey.opensslError("a certificate list")
        }
        let input: OpaquePointer? = payload.withUnsafeBufferPointer { BIO_new_mem_buf($0.baseAddress, Int32($0.count)) }
        guard let input else { throw SigningKey.opensslError("a receipt's payload") }
        defer { BIO_free(input) }
        // BINARY: the payload is DER, never MIME-canonicalised; NOATTR: no signed attributes (no contentType,
        // signingTime, messageDigest), so the signature is over the payload, as Apple's receipts are signed;
        // PARTIAL, to name SHA-256 for the signer rather than take the key's default.
        let flags = Int32(PKCS7_BINARY | PKCS7_NOATTR)
        guard let pkcs7 = PKCS7_sign(nil, nil, certificates, input, flags | Int32(PKCS7_PARTIAL)) else {
            throw SigningKey.opensslError("signing a receipt (PKCS#7)")
        }
        defer { PKCS7_free(pkcs7) }
        guard PKCS7_sign_add_signer(pkcs7, chain.leaf.x509, key.key, EVP_sha256(), flags) != nil,
              PKCS7_final(pkcs7, input, flags) == 1 else {
            throw SigningKey.opensslError("signing a receipt (PKCS#7)")
        }
        var bytes: UnsafeMutablePointer<UInt8>?
        let length = i2d_PKCS7(pkcs7, &bytes)
        guard length > 0, let bytes else { throw SigningKey.opensslError("encoding a receipt (PKCS#7)") }
        defer { cossl_free(bytes) }
        return Array(UnsafeBufferPointer(start: bytes, count: Int(length)))
    }

    /// Opens a receipt as a server does: the PKCS#7 signature and its chain (the certificates it
    /// carries) against this signer's root, then the payload's fields.
    public func open(_ der: [UInt8]) throws(ReceiptFailure) -> AppReceipt {
        let parsed: UnsafeMutablePointer<PKCS7>? = der.withUnsafeBufferPointer { buffer in
            var pointer = buffer.baseAddress
            return d2i_PKCS7(nil, &pointer, buffer.count)
        }
        guard let pkcs7 = parsed else { throw .malformed("not a PKCS#7 structure") }
        defer { PKCS7_free(pkcs7) }
        guard OBJ_obj2nid(pkcs7.pointee.type) == NID_pkcs7_signed else { throw .malformed("not PKCS#7 SignedData") }
        guard let store = X509_STORE_new() else { throw .notAuthentic("no certificate store") }
        defer { X509_STORE_free(store) }
        guard X509_STORE_add_cert(store, chain.root.x509) == 1 else { throw .notAuthentic("the store's receipt root") }
        guard let output = BIO_new(BIO_s_mem()) else { throw .notAuthentic("no memory") }
        defer { BIO_free(output) }
        guard PKCS7_verify(pkcs7, nil, store, nil, output, PKCS7_BINARY) == 1 else {
            let failure = SigningKey.opensslError("verifying the receipt's signature")
            throw .notAuthentic(failure.description)
        }
        var data: UnsafeMutablePointer<CChar>?
        let length = cossl_bio_get_mem_data(output, &data)
        guard let data, length > 0 else { throw .malformed("the SignedData carries no payload") }
        let payload = Array(UnsafeRawBufferPointer(start: data, count: length).bindMemory(to: UInt8.self))
        do {
            return try AppReceipt(der: payload)
        } catch {
            throw .malformed(error.description)
        }
    }
}
