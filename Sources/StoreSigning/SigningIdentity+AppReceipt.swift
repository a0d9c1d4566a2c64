import COpenSSL
import Foundation

/// Why an app receipt was refused: verifyReceipt's 21002 (``malformed``) and 21003 (``notAuthentic``).
public enum ReceiptFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// Not base64, not PKCS#7 SignedData, or no receipt payload inside.
    case malformed(String)
    /// A PKCS#7 whose signature or certificate chain does not verify against this store's root.
    case notAuthentic(String)

    public var description: String {
        switch self {
        case .malformed(let why): "the receipt is malformed: \(why)"
        case .notAuthentic(let why): "the receipt could not be authenticated: \(why)"
        }
    }
}

extension SigningIdentity {
    /// Signs an app receipt as Apple packs one: PKCS#7 SignedData (DER) around the payload,
    /// signed by the store's leaf (ECDSA with SHA-256 here; Apple's leaf is RSA) and carrying
    /// leaf, intermediate and root, so `openssl smime -verify -CAfile root.pem` checks it. As in
    /// Apple's receipts, the SignerInfo has no signed attributes: the signature is over the payload
    /// itself, which is what receipt verifiers written for Apple's format check.
    public func signReceipt(_ receipt: AppReceipt) throws(VerificationFailure) -> [UInt8] {
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
        // signingTime, messageDigest), so the signature is over the payload, as Apple's receipts are signed.
        guard let pkcs7 = PKCS7_sign(chain.leaf.x509, key.key, certificates, input, PKCS7_BINARY | PKCS7_NOATTR) else {
            throw SigningKey.opensslError("signing a receipt (PKCS#7)")
        }
        defer { PKCS7_free(pkcs7) }
        var bytes: UnsafeMutablePointer<UInt8>?
        let length = i2d_PKCS7(pkcs7, &bytes)
        guard length > 0, let bytes else { throw SigningKey.opensslError("encoding a receipt (PKCS#7)") }
        defer { cossl_free(bytes) }
        return Array(UnsafeBufferPointer(start: bytes, count: Int(length)))
    }

    /// Opens a receipt as a server does: the PKCS#7 signature and its chain (the certificates
    /// it carries) against this store's root, then the payload's fields.
    public func openReceipt(_ der: [UInt8]) throws(ReceiptFailure) -> AppReceipt {
        let parsed: UnsafeMutablePointer<PKCS7>? = der.withUnsafeBufferPointer { buffer in
            var pointer = buffer.baseAddress
            return d2i_PKCS7(nil, &pointer, buffer.count)
        }
        guard let pkcs7 = parsed else { throw .malformed("not a PKCS#7 structure") }
        defer { PKCS7_free(pkcs7) }
        guard OBJ_obj2nid(pkcs7.pointee.type) == NID_pkcs7_signed else { throw .malformed("not PKCS#7 SignedData") }
        guard let store = X509_STORE_new() else { throw .notAuthentic("no certificate store") }
        defer { X509_STORE_free(store) }
        guard X509_STORE_add_cert(store, chain.root.x509) == 1 else { throw .notAuthentic("the store's root") }
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
