import COpenSSL
import Foundation
import StoreCatalog
import Synchronization

/// Why a JWS did not verify.
public struct VerificationFailure: Error, Sendable, Hashable, CustomStringConvertible {
    public var description: String

    /// Memberwise, for the targets above this one.
    package init(description: String) {
        self.description = description
    }
}

/// A key pair on OpenSSL's libcrypto (EVP): ECDSA P-256, which signs transactions as compact JWS
/// (ES256), as StoreKit 2 signs them in local testing; or RSA 2048 (``generateRSA()``), which signs
/// app receipts only (its JWS methods refuse: they are ES256's).
public final class SigningKey: @unchecked Sendable {
    // Immutable after init; OpenSSL's EVP_PKEY is safe to share for signing and verifying.
    package let key: OpaquePointer

    /// Takes ownership of `key`.
    package init(key: OpaquePointer) {
        self.key = key
        self.keyID = Self.keyID(of: key)
    }

    deinit { EVP_PKEY_free(key) }

    /// A fresh P-256 key pair.
    public static func generate() throws(VerificationFailure) -> SigningKey {
        guard let context = EVP_PKEY_CTX_new_from_name(nil, "EC", nil) else { throw opensslError("key context") }
        defer { EVP_PKEY_CTX_free(context) }
        var key: OpaquePointer?
        guard EVP_PKEY_keygen_init(context) == 1,
              EVP_PKEY_CTX_set_group_name(context, "P-256") == 1,
              EVP_PKEY_generate(context, &key) == 1, let key else {
            throw opensslError("generating a P-256 key")
        }
        return SigningKey(key: key)
    }

    /// A fresh RSA 2048 key pair: the receipt signer's (``ReceiptSigner``), as Apple signs receipts.
    public static func generateRSA() throws(VerificationFailure) -> SigningKey {
        guard let context = EVP_PKEY_CTX_new_from_name(nil, "RSA", nil) else { throw opensslError("key context") }
        defer { EVP_PKEY_CTX_free(context) }
        var key: OpaquePointer?
        guard EVP_PKEY_keygen_init(context) == 1,
              EVP_PKEY_CTX_set_rsa_keygen_bits(context, 2048) == 1,
              EVP_PKEY_generate(context, &key) == 1, let key else {
            throw opensslError("generating an RSA 2048 key")
        }
        return SigningKey(key: key)
    }

    /// Whether this is an RSA key (the receipt signer's), not a P-256 one.
    public var isRSA: Bool { EVP_PKEY_get_base_id(key) == EVP_PKEY_RSA }

    /// Reads a private key (PKCS#8 PEM) or a public key (SubjectPublicKeyInfo PEM).
    public convenience init(pem: String) throws(VerificationFailure) {
        // BIO_new_mem_buf does not copy: the text must live while the BIO reads it.
        let key: OpaquePointer? = pem.withCString { text in
            // The store's P-256 keys by the EC decoders alone; any other key (the receipts' RSA key) by every decoder.
            if pem.hasPrefix("-----BEGIN PRIVATE KEY-----"), let key = cossl_read_private_key_pem(text, strlen(text), "EC") {
                return key
            }
            let bio = BIO_new_mem_buf(text, -1)
            defer { BIO_free(bio) }
            return pem.contains("PRIVATE KEY") ? PEM_read_bio_PrivateKey(bio, nil, nil, nil) : PEM_read_bio_PUBKEY(bio, nil, nil, nil)
        }
        guard let key else { throw Self.opensslError("reading a PEM key") }
        self.init(key: key)
    }

    /// The private key as PKCS#8 PEM.
    public var privateKeyPEM: String {
        written(\.privateKey) { bio in PEM_write_bio_PrivateKey(bio, key, nil, nil, 0, nil, nil) }
    }

    /// The public key as SubjectPublicKeyInfo PEM (`-----BEGIN PUBLIC KEY-----`),
    /// for a server or the `openssl` command line to verify with.
    public var publicKeyPEM: String {
        written(\.publicKey) { bio in PEM_write_bio_PUBKEY(bio, key) }
    }

    /// The key's PEM texts, each written once: OpenSSL 3's encoders take about 0.2 ms a text, and
    /// every open of a store asks for both (its seal key, the public key it hands out), while
    /// the key itself is read once in the process (ParsedSigningCache).
    private let pemTexts = Mutex(PEMTexts())

    private struct PEMTexts {
        var privateKey: String?
        var publicKey: String?
    }

    /// The text `write` makes, kept at `text` the first time.
    private func written(_ text: WritableKeyPath<PEMTexts, String?> & Sendable, _ write: (OpaquePointer?) -> Int32) -> String {
        if let known = pemTexts.withLock({ $0[keyPath: text] }) { return known }
        let made = Self.pem(write)
        pemTexts.withLock { $0[keyPath: text] = made }
        return made
    }

    /// A short, stable id of the public key: the first 16 hex digits of the
    /// SHA-256 of its DER encoding. Goes into each JWS header as `kid`.
    /// (Computed once, in init: every signature's header carries it.)
    public let keyID: String

    private static func keyID(of key: OpaquePointer) -> String {
        var der: UnsafeMutablePointer<UInt8>?
        let length = i2d_PUBKEY(key, &der)
        guard length > 0, let der else { return "unknown" }
        defer { cossl_free(der) }
        var digest = [UInt8](repeating: 0, count: Int(SHA256_DIGEST_LENGTH))
        SHA256(der, Int(length), &digest)
        return digest.prefix(8).map { String(format: "%02x", $0) }.joined()
    }

    /// What `write` puts into a memory BIO, as text (PEM).
    package static func pem(_ write: (OpaquePointer?) -> Int32) -> String {
        let bio = BIO_new(BIO_s_mem())
        defer { BIO_free(bio) }
        guard write(bio) == 1 else { return "" }
        var data: UnsafeMutablePointer<CChar>?
        let length = cossl_bio_get_mem_data(bio, &data)
        guard let data, length > 0 else { return "" }
        return String(decoding: UnsafeRawBufferPointer(start: data, count: length), as: UTF8.self)
    }

    // MARK: - JWS

    /// Signs `payload` (a JSON object) as a compact JWS with header
    /// `{"alg":"ES256","typ":"JWT","kid":…}` and a raw 64-byte r‖s signature: the
    /// form store files before schema 5 used. ``SigningIdentity`` signs with `x5c`.
    public func sign(_ payload: JSON) throws(VerificationFailure) -> String {
        let header = JSON.object(["alg": .string("ES256"), "typ": .string("JWT"), "kid": .string(keyID)])
        return try sign(payload, encodedHeader: Base64URL.encode(Array(header.serialized(pretty: false).utf8)))
    }

    /// Signs `payload` under a header already base64url-encoded.
    package func sign(_ payload: JSON, encodedHeader: String) throws(VerificationFailure) -> String {
        try sign(payloadBytes: payload.serializedBytes(pretty: false), encodedHeader: encodedHeader)
    }

    /// Signs a payload already serialized (compact JSON) under a header already base64url-encoded.
    package func sign(payloadBytes: [UInt8], encodedHeader: String) throws(VerificationFailure) -> String {
        let signingInput = encodedHeader + "." + Base64URL.encode(payloadBytes)
        let der = try digestSign(Array(signingInput.utf8))
        return signingInput + "." + Base64URL.encode(try Self.rawSignature(fromDER: der))
    }

    /// Whether `other` holds the same public key.
    public func hasSamePublicKey(as other: SigningKey) -> Bool {
        EVP_PKEY_eq(key, other.key) == 1
    }

    /// Verifies a compact JWS made with this key (or its public half) and returns
    /// its decoded header and payload. Anything but ES256 is refused, `alg: none` first of all.
    public func verify(_ jws: String) throws(VerificationFailure) -> (header: JSON, payload: JSON) {
        try verify(jws, knownHeader: nil)
    }

    /// As ``verify(_:)``; with `knownHeader`, the JWS's header must be exactly that
    /// one (compared as text, not decoded again: the store's own, with its `x5c`).
    package func verify(_ jws: String, knownHeader: (encoded: String, json: JSON)?) throws(VerificationFailure)
        -> (header: JSON, payload: JSON) {
        let parts = jws.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw VerificationFailure(description: "not a compact JWS (three dot-separated parts)") }
        if let knownHeader, parts[0] != knownHeader.encoded {
            throw VerificationFailure(description: "the header is not this store's (alg ES256 with its x5c certificate chain)")
        }
        guard let header = knownHeader?.json ?? Base64URL.decode(parts[0]).flatMap({ try? JSON.parse($0) }),
              let payloadBytes = Base64URL.decode(parts[1]), let payload = try? JSON.parse(payloadBytes) else {
            throw VerificationFailure(description: "the header or payload is not base64url-encoded JSON")
        }
        guard header["alg"] == .string("ES256") else {
            throw VerificationFailure(description: "the header's alg is \(header["alg"]?.serialized(pretty: false) ?? "missing"), not ES256")
        }
        guard let signature = Base64URL.decode(parts[2]), signature.count == 64 else {
            throw VerificationFailure(description: "the signature is not 64 bytes of r‖s")
        }
        let der = try Self.derSignature(fromRaw: signature)
        let input = Array(jws.utf8.prefix(parts[0].utf8.count + 1 + parts[1].utf8.count))
        guard try digestVerify(input, signature: der) else {
            throw VerificationFailure(description: "the signature does not match (edited data, or another key)")
        }
        return (header, payload)
    }

    /// An ECDSA-SHA256 signature of `message`, DER-encoded (what the promotional offers'
    /// legacy form base64-encodes).
    package func signDER(_ message: [UInt8]) throws(VerificationFailure) -> [UInt8] { try digestSign(message) }

    /// Whether `signature` (DER) is this key's ECDSA-SHA256 signature of `message`.
    package func verifyDER(_ message: [UInt8], signature: [UInt8]) -> Bool {
        (try? digestVerify(message, signature: signature)) ?? false
    }

    private func digestSign(_ message: [UInt8]) throws(VerificationFailure) -> [UInt8] {
        guard let context = EVP_MD_CTX_new() else { throw Self.opensslError("digest context") }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestSignInit(context, nil, EVP_sha256(), nil, key) == 1 else { throw Self.opensslError("sign init") }
        var length = 0
        guard EVP_DigestSign(context, nil, &length, message, message.count) == 1 else { throw Self.opensslError("sign") }
        var signature = [UInt8](repeating: 0, count: length)
        guard EVP_DigestSign(context, &signature, &length, message, message.count) == 1 else {
            throw Self.opensslError("sign")
        }
        return Array(signature.prefix(length))
    }

    private func digestVerify(_ message: [UInt8], signature: [UInt8]) throws(VerificationFailure) -> Bool {
        guard let context = EVP_MD_CTX_new() else { throw Self.opensslError("digest context") }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestVerifyInit(context, nil, EVP_sha256(), nil, key) == 1 else {
            throw Self.opensslError("verify init")
        }
        return EVP_DigestVerify(context, signature, signature.count, message, message.count) == 1
    }

    /// DER `ECDSA-Sig-Value` → the 64-byte r‖s that JWS requires.
    static func rawSignature(fromDER der: [UInt8]) throws(VerificationFailure) -> [UInt8] {
        var pointer: UnsafePointer<UInt8>? = nil
        let parsed: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            pointer = buffer.baseAddress
            return d2i_ECDSA_SIG(nil, &pointer, buffer.count)
        }
        guard let signature = parsed else { throw opensslError("reading a DER signature") }
        defer { ECDSA_SIG_free(signature) }
        var raw = [UInt8](repeating: 0, count: 64)
        guard BN_bn2binpad(ECDSA_SIG_get0_r(signature), &raw, 32) == 32,
              raw.withUnsafeMutableBufferPointer({ BN_bn2binpad(ECDSA_SIG_get0_s(signature), $0.baseAddress! + 32, 32) }) == 32
        else { throw opensslError("encoding r‖s") }
        return raw
    }

    /// The 64-byte r‖s → DER, as EVP_DigestVerify expects.
    static func derSignature(fromRaw raw: [UInt8]) throws(VerificationFailure) -> [UInt8] {
        guard let signature = ECDSA_SIG_new() else { throw opensslError("signature") }
        defer { ECDSA_SIG_free(signature) }
        let r = BN_bin2bn(raw, 32, nil)
        let s = raw.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress! + 32, 32, nil) }
        guard ECDSA_SIG_set0(signature, r, s) == 1 else {
            BN_free(r)
            BN_free(s)
            throw opensslError("signature")
        }
        var der: UnsafeMutablePointer<UInt8>?
        let length = i2d_ECDSA_SIG(signature, &der)
        guard length > 0, let der else { throw opensslError("encoding a DER signature") }
        defer { cossl_free(der) }
        return Array(UnsafeBufferPointer(start: der, count: Int(length)))
    }

    static func opensslError(_ what: String) -> VerificationFailure {
        let code = ERR_get_error()
        var buffer = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &buffer, buffer.count)
        return VerificationFailure(description: "OpenSSL failed at \(what): \(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))")
    }
}

/// Base64url without padding, as JWS uses. The alphabets are swapped byte by
/// byte, not with Foundation's string replacing, which was most of the cost of
/// checking a signature (every transaction read decodes three parts).
public enum Base64URL {
    public static func encode(_ bytes: [UInt8]) -> String {
        bytes.withUnsafeBufferPointer { encode($0) }
    }

    /// Encodes straight from the bytes with the URL-safe alphabet (no padding).
    package static func encode(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        let count = (bytes.count * 4 + 2) / 3
        return String(unsafeUninitializedCapacity: count) { out in
            var written = 0
            var index = 0
            while index + 3 <= bytes.count {
                let value = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
                out[written] = alphabet[Int(value >> 18 & 63)]
                out[written + 1] = alphabet[Int(value >> 12 & 63)]
                out[written + 2] = alphabet[Int(value >> 6 & 63)]
                out[written + 3] = alphabet[Int(value & 63)]
                written += 4
                index += 3
            }
            let left = bytes.count - index
            if left > 0 {
                let value = UInt32(bytes[index]) << 16 | (left == 2 ? UInt32(bytes[index + 1]) << 8 : 0)
                out[written] = alphabet[Int(value >> 18 & 63)]
                out[written + 1] = alphabet[Int(value >> 12 & 63)]
                written += 2
                if left == 2 {
                    out[written] = alphabet[Int(value >> 6 & 63)]
                    written += 1
                }
            }
            return written
        }
    }

    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    public static func decode<S: StringProtocol>(_ text: S) -> [UInt8]? {
        var base64: [UInt8] = []
        base64.reserveCapacity(text.utf8.count + 3)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                base64.append(byte)
            case UInt8(ascii: "-"): base64.append(UInt8(ascii: "+"))
            case UInt8(ascii: "_"): base64.append(UInt8(ascii: "/"))
            default: return nil  // the standard alphabet, padding, anything else
            }
        }
        base64 += Array(repeating: UInt8(ascii: "="), count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: Data(base64)).map { [UInt8]($0) }
    }
}
