import Foundation
import StoreCatalog
import StoreSigning

/// Seals (schema 6): what the JWS does not cover — `status`, `finished`, the pending
/// reason, every column as stored, to the byte — is covered by a seal per row, an
/// HMAC-SHA256 under a key derived from the store's private key. And the seals of all
/// rows are folded into one signed head (XOR of their digests), so that a row put back
/// as an older signed version of itself (a refund undone with the old JWS and seal), or
/// a row deleted, no longer adds up: `doctor` checks it. Schema 10 seals the subscriptions'
/// renewal state and the balances too, into the same head (LedgerRecordSeals).
extension Ledger {
    /// The seal key: derived from the private key, so only whoever holds the key can seal.
    package static func sealKey(for key: SigningKey) -> [UInt8] {
        sha256(Array("storefront row seal v1\n".utf8) + Array(key.privateKeyPEM.utf8))
    }

    /// The seal of a row read with ``columns``: its ``sealedColumns``, by name, in their order.
    package static func seal(of row: Row, key: [UInt8]) -> String {
        hex(hmac(key: key, row.canonicalBytes(columns: sealedColumns)))
    }

    /// The seal of a row read with ``columns``, by this ledger's keyed hasher.
    package func seal(of row: Row) -> String {
        Self.hex(sealHasher.mac(row: row, columns: Self.sealedColumns))
    }

    /// Whether a row read with ``columns`` carries its own seal.
    package func isSealed(_ row: Row) -> Bool {
        guard let stored = row.optionalText(.seal) else { return false }
        return stored == seal(of: row)
    }

    static let brokenSealReason = "the stored record does not match its seal (edited data: status, finished or another column)"

    // MARK: - Writing

    /// Seals row `id` anew as it now stands, and folds the change into the head.
    /// Its verified mark (LedgerVerifiedRows) goes with the old seal; the new seal gets one only
    /// when `verified`: the caller knows the row as it now stands carries a good JWS.
    package func reseal(_ id: Int64, verified: Bool = false) throws(DatabaseError) {
        var pair: (old: String?, new: String)?
        try db.query("SELECT \(Self.columns) FROM transactions WHERE id = ?", [id]) { row in
            pair = (row.optionalText(.seal), seal(of: row))
        }
        guard let pair else { return }
        if verified { try saveMark(id: id, seal: pair.new) }
        guard pair.old != pair.new else { return }
        if !verified, pair.old != nil { try forgetMark(id: id) }
        try db.run("UPDATE transactions SET seal = ? WHERE id = ?", pair.new, id)
        try foldIntoHead(removing: pair.old, adding: pair.new)
    }

    /// Takes row `id`'s seal out of the head, before the row is deleted.
    func unseal(_ id: Int64) throws(DatabaseError) {
        guard let old = try db.rows("SELECT seal FROM transactions WHERE id = ?", id, as: { $0.optionalText(.seal) }).first ?? nil
        else { return }
        try forgetMark(id: id)
        try foldIntoHead(removing: old, adding: nil)
    }

    /// Seals every row and the head from scratch (schema 6 migration, resets).
    func resealAll() throws(DatabaseError) {
        let ids = try db.rows("SELECT id FROM transactions ORDER BY id") { $0.int64(.id) }
        try db.run("UPDATE transactions SET seal = NULL")
        try saveHead(try recordsDigest())  // the sealed records' seals stay in it
        for id in ids { try reseal(id) }
    }

    /// Seals, from scratch, the rows of a file that had no seals (schema 5 and older) whose JWS
    /// verifies and says what the row says (as the bundle id it was signed for), and the pending
    /// or declined ones, which carry none; any other row is left unsealed, so it stays unverified:
    /// a migration never vouches for a row it cannot verify.
    func sealRowsThatVerify() throws(DatabaseError) {
        let rows = try db.rows("SELECT \(Self.columns) FROM transactions ORDER BY id") { row in
            var transaction = Self.unverifiedTransaction(row)
            transaction.jwsRepresentation = row.optionalText(.jws)
            return transaction
        }
        try db.run("UPDATE transactions SET seal = NULL")
        try saveHead(try recordsDigest())  // the sealed records' seals stay in it
        for transaction in rows where verifiesAsSigned(transaction) { try reseal(transaction.id) }
    }

    /// Whether a row's JWS (if it needs one) verifies under the store's key and says what the row says.
    private func verifiesAsSigned(_ transaction: Transaction) -> Bool {
        guard let jws = transaction.jwsRepresentation else { return transaction.status != .purchased }
        guard let payload = try? key.verifySignature(jws).payload else { return false }
        return Self.payload(payload, signs: transaction, bundleID: nil)
    }

    /// Folds the head again from the seals of the rows there are (after a reset deleted rows).
    func refoldHead() throws(DatabaseError) {
        var digest = [UInt8](repeating: 0, count: 32)
        try db.query(Self.headSealsQuery(withRecords: true), []) { row in
            xorInto(&digest, Self.bytes(hex: row.text(.seal)))
        }
        try saveHead(digest)
    }

    /// The head's digest: the XOR of every row's seal (all zero with no rows).
    func headDigest() throws(DatabaseError) -> [UInt8] {
        let stored = try db.rows("SELECT digest FROM seal_head WHERE id = 1") { $0.text(.digest) }.first
        return stored.map(Self.bytes(hex:)) ?? [UInt8](repeating: 0, count: 32)
    }

    func saveHead(_ digest: [UInt8]) throws(DatabaseError) {
        let text = Self.hex(digest)
        try db.run("""
            INSERT INTO seal_head (id, digest, seal) VALUES (1, ?, ?)
            ON CONFLICT (id) DO UPDATE SET digest = excluded.digest, seal = excluded.seal
            """, text, Self.hex(Self.hmac(key: sealKey, Array("head\n\(text)".utf8))))
    }

    static let sealHeadTable = """
        CREATE TABLE IF NOT EXISTS seal_head (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            digest TEXT NOT NULL,                    -- XOR of every transaction's seal
            seal TEXT NOT NULL                       -- HMAC of the digest under the seal key
        );
        """

    // MARK: - Checking (the doctor)

    /// Why the head does not add up with the rows' seals, or nil. Reads only.
    /// `withRecords`: the file is of schema 10 or later, whose head folds the sealed records' seals too.
    static func headProblem(_ db: any LedgerConnection, key: [UInt8], withRecords: Bool = true) throws(DatabaseError) -> String? {
        var digest = [UInt8](repeating: 0, count: 32)
        try db.query(headSealsQuery(withRecords: withRecords), []) { row in
            xorInto(&digest, bytes(hex: row.text(.seal)))
        }
        let head = try db.rows("SELECT digest, seal FROM seal_head WHERE id = 1") { ($0.text(.digest), $0.text(.seal)) }.first
        guard let head else {
            return digest == [UInt8](repeating: 0, count: 32) ? nil
                : "the ledger's sealed head is missing, but transactions are sealed (rows removed or put back)"
        }
        guard head.1 == hex(hmac(key: key, Array("head\n\(head.0)".utf8))) else {
            return "the ledger's head does not match its seal (edited)"
        }
        guard head.0 == hex(digest) else {
            return "the sealed rows do not add up to the ledger's sealed head: a row was deleted, or replaced by an older version of itself (an undone refund, a balance before it was spent)"
        }
        return nil
    }

    // MARK: - Bytes

    package static func sha256(_ bytes: [UInt8]) -> [UInt8] { Digest.sha256(bytes) }

    /// HMAC-SHA256 (RFC 2104) on the one-shot SHA-256.
    package static func hmac(key: [UInt8], _ message: [UInt8]) -> [UInt8] { Digest.hmac(key: key, message) }

    package static func hex(_ bytes: [UInt8]) -> String {
        // Two digits a byte from a table: String(format:) a byte was a tenth of a restore.
        String(unsafeUninitializedCapacity: bytes.count * 2) { buffer in
            for (index, byte) in bytes.enumerated() {
                buffer[2 * index] = hexDigits[Int(byte >> 4)]
                buffer[2 * index + 1] = hexDigits[Int(byte & 0x0F)]
            }
            return bytes.count * 2
        }
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    package static func bytes(hex: String) -> [UInt8] {
        var result: [UInt8] = []
        result.reserveCapacity(hex.utf8.count / 2)
        var high: UInt8?
        for unit in hex.utf8 {
            let nibble: UInt8
            switch unit {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = unit - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): nibble = unit - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): nibble = unit - UInt8(ascii: "A") + 10
            default: continue
            }
            if let h = high { result.append(h << 4 | nibble); high = nil } else { high = nibble }
        }
        return result
    }
}

extension Row {
    /// The columns as stored, each tagged with its type and, for text and blobs, its byte
    /// length: two different rows never give the same bytes.
    func canonicalBytes(columns: [Column]) -> [UInt8] {
        var bytes = CanonicalBytes()
        for column in columns {
            if isNull(column) {
                bytes.appendNull()
            } else if isInteger(column) {
                bytes.append(int64(column))
            } else {
                withTextBytes(column) { bytes.append($0) }
            }
        }
        return bytes.bytes
    }
}

extension Ledger {
    /// ``Row/canonicalBytes(columns:)`` of a row about to be written with these
    /// values: the same bytes, provided each value has its column's type (integers for
    /// INTEGER columns, text for TEXT ones), as SQLite then stores it unchanged.
    static func canonicalBytes(_ values: [any SQLBindable]) -> [UInt8] {
        var bytes = CanonicalBytes()
        for value in values {
            switch value.sqlValue {
            case .null: bytes.appendNull()
            case .integer(let number): bytes.append(number)
            case .text(let text): bytes.appendText(text)
            case .real(let number): bytes.appendText(String(number))
            }
        }
        return bytes.bytes
    }
}

/// The seal's encoding of a row: `n;` for NULL, `i<digits>;` for an integer,
/// `t<byte count>:<bytes>;` for text.
package struct CanonicalBytes {
    package private(set) var bytes: [UInt8] = []

    package init() { bytes.reserveCapacity(4096) }

    mutating func appendNull() { bytes += [UInt8(ascii: "n"), UInt8(ascii: ";")] }

    package mutating func append(_ number: Int64) {
        bytes.append(UInt8(ascii: "i"))
        if number < 0 { bytes.append(UInt8(ascii: "-")) }
        // The decimal digits, as String(number) spells them, without making the String.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { buffer in
            var (value, count) = (number.magnitude, 0)
            repeat {
                buffer[19 - count] = UInt8(ascii: "0") + UInt8(value % 10)
                (value, count) = (value / 10, count + 1)
            } while value > 0
            bytes += buffer[(20 - count)...]
        }
        bytes.append(UInt8(ascii: ";"))
    }

    package mutating func append(_ text: UnsafeRawBufferPointer) {
        bytes.append(UInt8(ascii: "t"))
        bytes += String(text.count).utf8
        bytes.append(UInt8(ascii: ":"))
        bytes += text
        bytes.append(UInt8(ascii: ";"))
    }

    mutating func appendText(_ text: String) {
        var text = text
        text.withUTF8 { append(UnsafeRawBufferPointer($0)) }
    }
}
