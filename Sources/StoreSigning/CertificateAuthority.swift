import COpenSSL
import Foundation
import StoreCatalog

/// One X.509 certificate, as a JWS `x5c` header carries it (OpenSSL's `X509`).
public final class Certificate: @unchecked Sendable {
    // Immutable after init; OpenSSL's X509 is safe to share for reading and verifying.
    package let x509: OpaquePointer
    /// The DER encoding.
    public let der: [UInt8]

    /// Takes ownership of `x509`.
    package init(taking x509: OpaquePointer) throws(VerificationFailure) {
        self.x509 = x509
        var bytes: UnsafeMutablePointer<UInt8>?
        let length = i2d_X509(x509, &bytes)
        guard length > 0, let bytes else {
            X509_free(x509)
            throw SigningKey.opensslError("encoding a certificate")
        }
        defer { cossl_free(bytes) }
        der = Array(UnsafeBufferPointer(start: bytes, count: Int(length)))
    }

    deinit { X509_free(x509) }

    /// Reads a DER certificate.
    public convenience init(der: [UInt8]) throws(VerificationFailure) {
        var pointer: UnsafePointer<UInt8>? = nil
        let parsed: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            pointer = buffer.baseAddress
            return d2i_X509(nil, &pointer, buffer.count)
        }
        guard let parsed else { throw SigningKey.opensslError("reading a DER certificate") }
        try self.init(taking: parsed)
    }

    /// Reads a PEM certificate (`-----BEGIN CERTIFICATE-----`).
    public convenience init(pem: String) throws(VerificationFailure) {
        // BIO_new_mem_buf does not copy: the text must live while the BIO reads it.
        let parsed: OpaquePointer? = pem.withCString { text in
            let bio = BIO_new_mem_buf(text, -1)
            defer { BIO_free(bio) }
            return PEM_read_bio_X509(bio, nil, nil, nil)
        }
        guard let parsed else {
            throw SigningKey.opensslError("reading a PEM certificate")
        }
        try self.init(taking: parsed)
    }

    /// The certificate as PEM.
    public var pem: String {
        SigningKey.pem { bio in PEM_write_bio_X509(bio, x509) }
    }

    /// Standard base64 of the DER, as an `x5c` entry.
    public var base64: String { Data(der).base64EncodedString() }

    /// The subject's common name.
    public var commonName: String {
        var buffer = [CChar](repeating: 0, count: 256)
        let length = X509_NAME_get_text_by_NID(X509_get_subject_name(x509), NID_commonName, &buffer, Int32(buffer.count))
        return length > 0 ? String(decoding: buffer.prefix(Int(length)).map { UInt8(bitPattern: $0) }, as: UTF8.self) : ""
    }

    /// The start of the validity period.
    public var notBefore: Date? { Self.date(X509_get0_notBefore(x509)) }
    /// The end of the validity period.
    public var notAfter: Date? { Self.date(X509_get0_notAfter(x509)) }

    /// Whether the certificate carries the extension with this dotted OID.
    public func hasExtension(oid: String) -> Bool {
        guard let object = OBJ_txt2obj(oid, 1) else { return false }
        defer { ASN1_OBJECT_free(object) }
        return X509_get_ext_by_OBJ(x509, object, -1) >= 0
    }

    /// The certified public key.
    public func publicKey() throws(VerificationFailure) -> SigningKey {
        guard let key = X509_get_pubkey(x509) else { throw SigningKey.opensslError("reading a certificate's key") }
        return SigningKey(key: key)
    }

    private static func date(_ time: UnsafePointer<ASN1_TIME>?) -> Date? {
        var parts = tm()
        guard let time, ASN1_TIME_to_tm(time, &parts) == 1 else { return nil }
        return Date(timeIntervalSince1970: TimeInterval(timegm(&parts)))
    }
}

/// A store's local certificate authority, as Apple signs: a root, an intermediate
/// and the signing leaf (P-256, ECDSA with SHA-256), carried in every JWS header as `x5c`.
///
/// The leaf and the intermediate carry the marker extensions Apple puts on its own
/// (and that the App Store Server Library's chain verifier looks for), so a server
/// that trusts this store's root in place of Apple's verifies our signed data
/// unchanged. Only the leaf's key is kept: the root's and the intermediate's are
/// thrown away once they have signed, so nobody can issue another certificate.
public struct CertificateChain: Sendable {
    public var leaf: Certificate
    public var intermediate: Certificate
    public var root: Certificate

    /// The extension Apple puts on the certificates that sign App Store data.
    public static let leafMarkerOID = "1.2.840.113635.100.6.11.1"
    /// The extension Apple puts on its WWDR intermediate certificate.
    public static let intermediateMarkerOID = "1.2.840.113635.100.6.2.1"
    /// How long before its creation a chain is valid: a margin for clocks a little behind.
    static let validBefore: TimeInterval = 86_400
    /// The end of every certificate's validity: RFC 5280's "no well-defined expiration"
    /// (the store's clock may be advanced years ahead, and a signature must stay valid there).
    static let validUntil = Date(timeIntervalSince1970: 253_402_300_799)  // 9999-12-31T23:59:59Z

    public init(leaf: Certificate, intermediate: Certificate, root: Certificate) {
        (self.leaf, self.intermediate, self.root) = (leaf, intermediate, root)
    }

    /// The `x5c` header: leaf, intermediate, root, each base64 DER.
    public var x5c: [String] { [leaf.base64, intermediate.base64, root.base64] }

    /// Makes a root and an intermediate, and certifies `leafKey` with them, valid from
    /// a day before `date` (store time) on. `name` goes into each certificate's subject.
    public static func issue(for leafKey: SigningKey, at date: Date, name: String = "Storefront")
        throws(VerificationFailure) -> CertificateChain {
        try issue(for: leafKey, at: date, rsa: false,
                  names: ("\(name) Root CA", "\(name) Worldwide Developer Relations CA", "\(name) App Store Signing"))
    }

    /// As ``issue(for:at:name:)`` for the receipt-signing RSA key: an RSA 2048 root and intermediate,
    /// named as Apple's receipt chain is (Apple Root CA, Apple Worldwide Developer Relations
    /// Certification Authority, Mac App Store and iTunes Store Receipt Signing), with the same markers.
    public static func issueForReceipts(for leafKey: SigningKey, at date: Date) throws(VerificationFailure) -> CertificateChain {
        try issue(for: leafKey, at: date, rsa: true,
                  names: ("Storefront Receipt Root CA", "Storefront Worldwide Developer Relations Certification Authority",
                          "Storefront App Store Receipt Signing"))
    }

    /// Root and intermediate keys made here (P-256, or RSA 2048 with `rsa`) and thrown away once they have signed.
    private static func issue(for leafKey: SigningKey, at date: Date, rsa: Bool, names: (root: String, intermediate: String, leaf: String))
        throws(VerificationFailure) -> CertificateChain {
        let rootKey = rsa ? try SigningKey.generateRSA() : try SigningKey.generate()
        let intermediateKey = rsa ? try SigningKey.generateRSA() : try SigningKey.generate()
        let notBefore = date.addingTimeInterval(-validBefore)
        let root = try certificate(
            commonName: names.root, key: rootKey, issuer: nil, signer: rootKey, notBefore: notBefore,
            extensions: [("basicConstraints", "critical,CA:TRUE"), ("keyUsage", "critical,keyCertSign,cRLSign"),
                         ("subjectKeyIdentifier", "hash")])
        let intermediate = try certificate(
            commonName: names.intermediate, key: intermediateKey, issuer: root, signer: rootKey,
            notBefore: notBefore,
            extensions: [("basicConstraints", "critical,CA:TRUE,pathlen:0"), ("keyUsage", "critical,keyCertSign,cRLSign"),
                         ("subjectKeyIdentifier", "hash"), ("authorityKeyIdentifier", "keyid:always"),
                         (intermediateMarkerOID, "ASN1:NULL")])
        let leaf = try certificate(
            commonName: names.leaf, key: leafKey, issuer: intermediate, signer: intermediateKey,
            notBefore: notBefore,
            extensions: [("basicConstraints", "critical,CA:FALSE"), ("keyUsage", "critical,digitalSignature"),
                         ("subjectKeyIdentifier", "hash"), ("authorityKeyIdentifier", "keyid:always"),
                         (leafMarkerOID, "ASN1:NULL")])
        return CertificateChain(leaf: leaf, intermediate: intermediate, root: root)
    }

    /// One certificate: `key` certified by `signer` (the issuer's key; itself for the root).
    private static func certificate(commonName: String, key: SigningKey, issuer: Certificate?, signer: SigningKey,
                                    notBefore: Date, extensions: [(String, String)]) throws(VerificationFailure) -> Certificate {
        guard let x509 = X509_new() else { throw SigningKey.opensslError("a new certificate") }
        var owned: OpaquePointer? = x509
        defer { if let owned { X509_free(owned) } }
        let serial = BN_new()
        defer { BN_free(serial) }
        guard X509_set_version(x509, Int(X509_VERSION_3)) == 1,
              BN_rand(serial, 63, -1, 0) == 1, BN_to_ASN1_INTEGER(serial, X509_get_serialNumber(x509)) != nil,
              ASN1_TIME_set(X509_getm_notBefore(x509), time_t(notBefore.timeIntervalSince1970)) != nil,
              ASN1_TIME_set(X509_getm_notAfter(x509), time_t(validUntil.timeIntervalSince1970)) != nil,
              X509_set_pubkey(x509, key.key) == 1 else {
            throw SigningKey.opensslError("filling in a certificate")
        }
        let subject = X509_get_subject_name(x509)
        for (field, value) in [("O", "Storefront (local testing)"), ("CN", commonName)] {
            guard X509_NAME_add_entry_by_txt(subject, field, cossl_mbstring_asc(), value, -1, -1, 0) == 1 else {
                throw SigningKey.opensslError("naming a certificate")
            }
        }
        guard X509_set_issuer_name(x509, issuer.map { X509_get_subject_name($0.x509) } ?? subject) == 1 else {
            throw SigningKey.opensslError("naming a certificate's issuer")
        }
        var context = X509V3_CTX()
        X509V3_set_ctx(&context, issuer?.x509 ?? x509, x509, nil, nil, 0)
        for (name, value) in extensions {
            guard let extensionValue = X509V3_EXT_nconf(nil, &context, name, value) else {
                throw SigningKey.opensslError("the extension \(name)")
            }
            defer { X509_EXTENSION_free(extensionValue) }
            guard X509_add_ext(x509, extensionValue, -1) == 1 else { throw SigningKey.opensslError("adding \(name)") }
        }
        guard X509_sign(x509, signer.key, EVP_sha256()) > 0 else { throw SigningKey.opensslError("signing a certificate") }
        owned = nil
        return try Certificate(taking: x509)
    }

    /// Verifies an `x5c` chain as the App Store Server Library does, against `trustedRoot`
    /// instead of Apple's: exactly three certificates; the leaf issued by the intermediate,
    /// issued by the trusted root (OpenSSL, strict X.509 checks), each valid at `date`
    /// (the payload's `signedDate`); Apple's marker extensions on leaf and intermediate.
    /// Returns the leaf's public key, which must then verify the JWS.
    public static func verify(x5c: [String], trustedRoot: Certificate, at date: Date) throws(VerificationFailure) -> SigningKey {
        guard x5c.count == 3 else {
            throw VerificationFailure(description: "the x5c chain has \(x5c.count) certificates, not 3 (leaf, intermediate, root)")
        }
        var certificates: [Certificate] = []
        for entry in x5c.prefix(2) {
            guard let der = Data(base64Encoded: entry) else {
                throw VerificationFailure(description: "an x5c entry is not base64")
            }
            certificates.append(try Certificate(der: [UInt8](der)))
        }
        let (leaf, intermediate) = (certificates[0], certificates[1])
        guard leaf.hasExtension(oid: leafMarkerOID) else {
            throw VerificationFailure(description: "the leaf certificate lacks the App Store marker \(leafMarkerOID)")
        }
        guard intermediate.hasExtension(oid: intermediateMarkerOID) else {
            throw VerificationFailure(description: "the intermediate certificate lacks the marker \(intermediateMarkerOID)")
        }
        guard let store = X509_STORE_new() else { throw SigningKey.opensslError("a certificate store") }
        defer { X509_STORE_free(store) }
        guard let untrusted = cossl_x509_stack_new() else { throw SigningKey.opensslError("a certificate list") }
        defer { cossl_x509_stack_free(untrusted) }
        guard let context = X509_STORE_CTX_new() else { throw SigningKey.opensslError("a verification context") }
        defer { X509_STORE_CTX_free(context) }
        guard X509_STORE_add_cert(store, trustedRoot.x509) == 1, cossl_x509_stack_push(untrusted, intermediate.x509) > 0,
              X509_STORE_CTX_init(context, store, leaf.x509, untrusted) == 1 else {
            throw SigningKey.opensslError("preparing a chain check")
        }
        X509_STORE_CTX_set_flags(context, UInt(X509_V_FLAG_X509_STRICT))
        X509_STORE_CTX_set_time(context, 0, time_t(date.timeIntervalSince1970.rounded(.down)))
        guard X509_verify_cert(context) == 1 else {
            let reason = String(cString: X509_verify_cert_error_string(Int(X509_STORE_CTX_get_error(context))))
            let when = date.formatted(.iso8601)
            throw VerificationFailure(description: "the certificate chain does not verify against this store's root at \(when): \(reason)")
        }
        return try leaf.publicKey()
    }
}
