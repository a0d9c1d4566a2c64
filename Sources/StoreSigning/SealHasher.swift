import COpenSSL
import StoreCatalog

/// HMAC-SHA256 under one key, keyed once and fed straight from SQLite's column buffers (the ledger's
/// `mac(row:columns:)`): every
/// row read has its seal checked, and building each row's canonical bytes in a new array, then
/// hashing it through OpenSSL's one-shot calls (which look the algorithm up each time), cost
/// more than the hashing itself. Not thread-safe: one per ledger, used on its store's executor.
package final class SealHasher {
    private let mac: OpaquePointer
    private let context: OpaquePointer
    /// The small parts of a row (tags, lengths, short texts) gathered before each update.
    package var pending: [UInt8] = []

    package init(key: [UInt8]) {
        mac = EVP_MAC_fetch(nil, "HMAC", nil)
        context = EVP_MAC_CTX_new(mac)
        "digest".withCString { name in
            "SHA256".withCString { digest in
                let parameters = [OSSL_PARAM_construct_utf8_string(name, UnsafeMutablePointer(mutating: digest), 0),
                                  OSSL_PARAM_construct_end()]
                _ = EVP_MAC_init(context, key, key.count, parameters)
            }
        }
        pending.reserveCapacity(1024)
    }

    deinit {
        EVP_MAC_CTX_free(context)
        EVP_MAC_free(mac)
    }

    /// The HMAC of `message`: equal to ``Digest/hmac(key:_:)`` under this hasher's key.
    package func mac(_ message: [UInt8]) -> [UInt8] {
        start()
        message.withUnsafeBytes { update($0) }
        return finish()
    }

    package func start() {
        // A nil key keeps the one given at init: OpenSSL restarts from its prepared pads.
        _ = EVP_MAC_init(context, nil, 0, nil)
        pending.removeAll(keepingCapacity: true)
    }

    package func flush() {
        pending.withUnsafeBytes { update($0) }
        pending.removeAll(keepingCapacity: true)
    }

    package func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        _ = EVP_MAC_update(context, base.assumingMemoryBound(to: UInt8.self), bytes.count)
    }

    package func finish() -> [UInt8] {
        flush()
        var digest = [UInt8](repeating: 0, count: 32)
        var length = 0
        _ = EVP_MAC_final(context, &digest, &length, digest.count)
        return digest
    }
}
