import COpenSSL
import CSQLite

/// HMAC-SHA256 under one key, keyed once and fed straight from SQLite's column buffers: every
/// row read has its seal checked, and building each row's canonical bytes in a new array, then
/// hashing it through OpenSSL's one-shot calls (which look the algorithm up each time), cost
/// more than the hashing itself. Not thread-safe: one per ledger, used on its store's executor.
final class SealHasher {
    private let mac: OpaquePointer
    private let context: OpaquePointer
    /// The small parts of a row (tags, lengths, short texts) gathered before each update.
    private var pending: [UInt8] = []

    init(key: [UInt8]) {
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

    /// The HMAC of `message`: equal to ``Ledger/hmac(key:_:)`` under this hasher's key.
    func mac(_ message: [UInt8]) -> [UInt8] {
        start()
        message.withUnsafeBytes { update($0) }
        return finish()
    }

    /// The seal's HMAC of a row's columns `columns`, in ``CanonicalBytes``' encoding.
    func mac(row: SQLiteDatabase.Row, columns: Range<Int32>) -> [UInt8] {
        start()
        for column in columns {
            if row.isNull(column) {
                pending += [UInt8(ascii: "n"), UInt8(ascii: ";")]
            } else if row.isInteger(column) {
                pending.append(UInt8(ascii: "i"))
                pending += String(row.int64(column)).utf8
                pending.append(UInt8(ascii: ";"))
            } else {
                row.withTextBytes(column) { text in
                    pending.append(UInt8(ascii: "t"))
                    pending += String(text.count).utf8
                    pending.append(UInt8(ascii: ":"))
                    if text.count > 256 {
                        flush()
                        update(text)  // a JWS: hashed where SQLite holds it, not copied
                    } else {
                        pending += text
                    }
                    pending.append(UInt8(ascii: ";"))
                }
            }
        }
        return finish()
    }

    private func start() {
        // A nil key keeps the one given at init: OpenSSL restarts from its prepared pads.
        _ = EVP_MAC_init(context, nil, 0, nil)
        pending.removeAll(keepingCapacity: true)
    }

    private func flush() {
        pending.withUnsafeBytes { update($0) }
        pending.removeAll(keepingCapacity: true)
    }

    private func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        _ = EVP_MAC_update(context, base.assumingMemoryBound(to: UInt8.self), bytes.count)
    }

    private func finish() -> [UInt8] {
        flush()
        var digest = [UInt8](repeating: 0, count: 32)
        var length = 0
        _ = EVP_MAC_final(context, &digest, &length, digest.count)
        return digest
    }
}
