import COpenSSL

/// SHA-256 and HMAC-SHA256 on libcrypto's one-shot calls, for the ledger's seals and the ids
/// made from an account (the ledger links no OpenSSL of its own).
package enum Digest {
    /// The SHA-256 digest of `bytes` (32 bytes).
    package static func sha256(_ bytes: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: Int(SHA256_DIGEST_LENGTH))
        SHA256(bytes, bytes.count, &digest)
        return digest
    }

    /// The SHA-384 digest of `bytes` (48 bytes): StoreKit's device verification hash.
    package static func sha384(_ bytes: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: Int(SHA384_DIGEST_LENGTH))
        SHA384(bytes, bytes.count, &digest)
        return digest
    }

    /// HMAC-SHA256 (RFC 2104) on the one-shot SHA-256.
    package static func hmac(key: [UInt8], _ message: [UInt8]) -> [UInt8] {
        var block = key.count > 64 ? sha256(key) : key
        block += [UInt8](repeating: 0, count: 64 - block.count)
        let inner = sha256(block.map { $0 ^ 0x36 } + message)
        return sha256(block.map { $0 ^ 0x5c } + inner)
    }
}
