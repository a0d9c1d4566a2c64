import Synchronization
import StoreSigning

/// The signing keys and identities this process already read, by their PEM text: OpenSSL's
/// decoders take about a millisecond for a key and its three certificates, paid at every open of
/// a store (a test suite opens thousands; `serve` opens a second connection). Both are immutable
/// and safe to share. Kept to the newest few, so a process that opens many stores stays small.
enum ParsedSigningCache {
    private static let capacity = 32
    private static let entries = Mutex<[(text: String, value: any Sendable)]>([])

    /// The key in `pem`, read once.
    static func key(_ pem: String) throws -> SigningKey {
        try value(for: pem) { try SigningKey(pem: pem) }
    }

    /// The identity of `key` and the chain in `pems` (leaf, intermediate, root), read once.
    static func identity(_ key: SigningKey, keyPEM: String, chain pems: [String]) throws -> SigningIdentity {
        try value(for: ([keyPEM] + pems).joined(separator: "\n")) {
            let chain = CertificateChain(leaf: try Certificate(pem: pems[0]), intermediate: try Certificate(pem: pems[1]),
                                         root: try Certificate(pem: pems[2]))
            return try SigningIdentity(key: key, chain: chain)
        }
    }

    private static func value<Value: Sendable>(for text: String, _ make: () throws -> Value) throws -> Value {
        if let found = entries.withLock({ $0.last { $0.text == text }?.value as? Value }) { return found }
        let made = try make()
        entries.withLock {
            $0.removeAll { $0.text == text }
            $0.append((text, made))
            if $0.count > capacity { $0.removeFirst() }
        }
        return made
    }
}
