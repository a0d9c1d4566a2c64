import Foundation
import StoreCatalog
import StoreSigning

/// Seals (schema 10) on the rows beside the transactions that decide what an account has: each
/// subscription group's renewal state (`subscriptions`: whether it is in billing retry or its grace
/// period, and until when) and each consumable's balance (`app_balances`). As a transaction's, a
/// row's seal is an HMAC under the store's seal key of every column as stored, its table named
/// first; and it is folded into the same sealed head, so a row put back as an older version of
/// itself (a balance before it was spent) does not add up in `doctor`. A row whose seal does not
/// match is read as absent: no grace period, no renewal from it, a balance of 0.
extension Ledger {
    /// A sealed table beside `transactions`: its name, the columns that identify a row, and
    /// every column, in the order the seal covers them.
    package struct SealedRecordTable: Sendable {
        package var name: String
        package var keys: [Column]
        package var columns: [Column]
    }

    package static let sealedSubscriptions = SealedRecordTable(
        name: "subscriptions", keys: [.account, .group_id],
        columns: [.account, .group_id, .original_id, .will_auto_renew, .auto_renew_product_id, .expiration_reason,
                  .billing_retry_since, .grace_until])
    package static let sealedBalances = SealedRecordTable(
        name: "app_balances", keys: [.account, .product_id], columns: [.account, .product_id, .balance])

    /// Every sealed table beside `transactions`.
    package static let sealedRecordTables = [sealedSubscriptions, sealedBalances]

    /// The seal of a row of `table` read with its columns: HMAC of the table's name and the columns.
    package static func recordSeal(of row: Row, in table: SealedRecordTable, key: [UInt8]) -> String {
        hex(hmac(key: key, Array("\(table.name)\n".utf8) + row.canonicalBytes(columns: table.columns)))
    }

    /// ``recordSeal(of:in:key:)`` by this ledger's keyed hasher, fed from SQLite's buffers: every
    /// read of a balance or a renewal state checks one (a delivery's balance read checked them
    /// all, each through three one-shot digests: most of a paint that delivered many consumables).
    func recordSeal(of row: Row, in table: SealedRecordTable) -> String {
        Self.hex(sealHasher.mac(row: row, columns: table.columns, prefix: Array("\(table.name)\n".utf8)))
    }

    /// Whether a row of `table`, read with its columns and `seal`, carries its own seal.
    func isSealed(_ row: Row, in table: SealedRecordTable) -> Bool {
        row.optionalText(.seal) == recordSeal(of: row, in: table)
    }

    static func selectList(_ table: SealedRecordTable) -> String {
        (table.columns + [.seal]).map(\.name).joined(separator: ", ")
    }

    static func whereKeys(_ table: SealedRecordTable) -> String {
        table.keys.map { "\($0.name) = ?" }.joined(separator: " AND ")
    }

    /// Seals the row of `table` keyed by `keys` as it now stands, and folds the change into the head.
    func resealRecord(_ table: SealedRecordTable, _ keys: [any SQLBindable]) throws(DatabaseError) {
        var pair: (old: String?, new: String)?
        try db.query("SELECT \(Self.selectList(table)) FROM \(table.name) WHERE \(Self.whereKeys(table))", keys) { row in
            pair = (row.optionalText(.seal), recordSeal(of: row, in: table))
        }
        guard let pair, pair.old != pair.new else { return }
        try db.query("UPDATE \(table.name) SET seal = ? WHERE \(Self.whereKeys(table))", [pair.new as any SQLBindable] + keys) { (_: Row) throws(DatabaseError) in }
        try foldIntoHead(removing: pair.old, adding: pair.new)
    }

    /// Takes the seal of the row of `table` keyed by `keys` out of the head, before the row is deleted.
    func unsealRecord(_ table: SealedRecordTable, _ keys: [any SQLBindable]) throws(DatabaseError) {
        var old: String?
        try db.query("SELECT seal FROM \(table.name) WHERE \(Self.whereKeys(table))", keys) { old = $0.optionalText(.seal) }
        try foldIntoHead(removing: old, adding: nil)
    }

    /// Seals every row of the sealed tables as it stands, once (the migration to schema 10): a
    /// file of an older schema had no seals to check them by, so they are taken as they are.
    func sealRecordsAsTheyStand() throws(DatabaseError) {
        for table in Self.sealedRecordTables {
            var keys: [[any SQLBindable]] = []
            try db.query("SELECT \(Self.selectList(table)) FROM \(table.name) WHERE seal IS NULL", []) { row in
                keys.append(table.keys.map { row.text($0) as any SQLBindable })  // every key column is text
            }
            for key in keys { try resealRecord(table, key) }
        }
    }

    /// The XOR of the seals of every sealed row beside `transactions`: what the head holds besides theirs.
    func recordsDigest() throws(DatabaseError) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 32)
        try db.query(Self.recordSealsQuery, []) { row in xorInto(&digest, Self.bytes(hex: row.text(.seal))) }
        return digest
    }

    /// Every seal the head folds: the transactions' and, from schema 10, the sealed records'.
    static func headSealsQuery(withRecords: Bool) -> String {
        "SELECT seal FROM transactions WHERE seal IS NOT NULL" + (withRecords ? " UNION ALL " + recordSealsQuery : "")
    }

    static var recordSealsQuery: String {
        sealedRecordTables.map { "SELECT seal FROM \($0.name) WHERE seal IS NOT NULL" }.joined(separator: " UNION ALL ")
    }

    /// Replaces `old` by `new` among the seals the head folds.
    func foldIntoHead(removing old: String?, adding new: String?) throws(DatabaseError) {
        guard old != new else { return }
        var digest = try headDigest()
        if let old { xorInto(&digest, Self.bytes(hex: old)) }
        if let new { xorInto(&digest, Self.bytes(hex: new)) }
        try saveHead(digest)
    }

    // MARK: - Checking (the doctor)

    /// The rows of the sealed tables whose seal does not match, named for people (table, and what
    /// identifies the row), with the subscriptions' original transaction ids. Reads only.
    static func brokenRecordSeals(_ db: any LedgerConnection, key: [UInt8]) throws(DatabaseError) -> (rows: [String], ids: [Int64]) {
        var (rows, ids): ([String], [Int64]) = ([], [])
        for table in sealedRecordTables {
            try db.query("SELECT \(selectList(table)) FROM \(table.name) ORDER BY \(table.keys.map(\.name).joined(separator: ", "))", []) { row in
                guard row.optionalText(.seal) != recordSeal(of: row, in: table, key: key) else { return }
                let named = table.keys.map { "\($0.name) '\(row.text($0))'" }.joined(separator: ", ")
                rows.append("\(table.name) (\(named))")
                if table.name == sealedSubscriptions.name { ids.append(row.int64(.original_id)) }
            }
        }
        return (rows, ids)
    }
}

func xorInto(_ digest: inout [UInt8], _ other: [UInt8]) {
    for index in digest.indices where index < other.count { digest[index] ^= other[index] }
}
