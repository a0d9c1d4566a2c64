import Foundation
import StoreCatalog
import StoreSigning

/// Verdicts kept with the store file, so that a row the store has verified (or signed itself)
/// is not checked again by every process that reads it: a P-256 check is ~0.1 ms, and a
/// restore of 800 entitlements made 800 of them at each launch.
///
/// Sound because a row's seal (LedgerSeals) is an HMAC of every column, the JWS included,
/// under a key only the private key's holder has: the mark says "the row sealed so verified
/// for this bundle id under this schema", is itself an HMAC under that key, and is bound to
/// the seal, so any change to the row (or its seal) leaves it without a mark and it is checked
/// in full again. A row whose seal or JWS does not verify is refused exactly as before: a
/// mark is made only when the store signs a row, or keeps one across a change the JWS does
/// not cover (`finished`). A mark copied to another row, or an old row put back with its old
/// seal and mark, gains nothing: that JWS verified as it stands.
extension Ledger {
    /// New in the file like the indexes, without a schema change: an older build ignores it
    /// (a row it changes gets a new seal, which has no mark, and is checked in full).
    static let verifiedRowsTable = """
        CREATE TABLE IF NOT EXISTS verified_rows (
            transaction_id INTEGER PRIMARY KEY,      -- by id: a new purchase's mark goes on the last page
            row_seal TEXT NOT NULL,                  -- the row's seal when its JWS was verified or made
            mark TEXT NOT NULL                       -- HMAC under the seal key of the verdict, bound to row_seal
        );
        """

    /// ``columns`` and the row's mark, if any (for the seal it has now): what verified reads select.
    static let verifiedColumns = columns + """
        , (SELECT mark FROM verified_rows WHERE transaction_id = transactions.id AND row_seal = transactions.seal) AS mark
        """

    /// The mark of a row whose seal is `seal`: HMAC of the verdict, the payload rule it was
    /// checked by (``verifiedMarkRule``), the bundle id the payload was checked against, and the seal.
    package func mark(forSeal seal: String) -> String {
        Self.hex(sealHasher.mac(Array("verified\n\(Self.verifiedMarkRule)\n\(bundleID)\n\(seal)".utf8)))
    }

    /// What a transaction's JWS must say to verify, as marks name it. Change it with anything that
    /// changes what a row's JWS must carry (``Transaction/signedPayload(bundleID:signedDate:rule:)``'s
    /// current fields, the header, the key) unless every row is signed anew: every mark then lapses,
    /// and rows are checked in full again. (Not the schema version: a schema that only adds
    /// tables would make every existing row pay a P-256 check at every read.)
    package static let verifiedMarkRule = "payload 5"

    /// Whether a row read with ``verifiedColumns`` whose seal was found good carries its mark.
    func hasMark(_ row: Row) -> Bool {
        guard row.has(.mark), let stored = row.optionalText(.mark), let seal = row.optionalText(.seal) else { return false }
        return stored == mark(forSeal: seal)
    }

    /// Marks row `id`, sealed `seal`, as verified (replacing the mark of its previous seal).
    package func saveMark(id: Int64, seal: String) throws(DatabaseError) {
        try db.run("""
            INSERT INTO verified_rows (transaction_id, row_seal, mark) VALUES (?, ?, ?)
            ON CONFLICT (transaction_id) DO UPDATE SET row_seal = excluded.row_seal, mark = excluded.mark
            """, id, seal, mark(forSeal: seal))
    }

    /// Whether row `id`, as stored now, is sealed and marked verified: read before a change the
    /// JWS does not cover (`finished`), so the changed row may keep the verdict. Never carried
    /// by the seal alone: a row edited under an old seal and mark must not have them renewed.
    func isMarkedAsStored(_ id: Int64) throws(DatabaseError) -> Bool {
        var marked = false
        try db.query("SELECT \(Self.verifiedColumns) FROM transactions WHERE id = ?", [id]) { row in
            marked = isSealed(row) && hasMark(row)
        }
        return marked
    }

    func forgetMark(id: Int64) throws(DatabaseError) {
        try db.run("DELETE FROM verified_rows WHERE transaction_id = ?", id)
    }

    /// Drops the marks of rows there are no more (after a reset deleted rows).
    func forgetStaleMarks() throws(DatabaseError) {
        try db.run("DELETE FROM verified_rows WHERE transaction_id NOT IN (SELECT id FROM transactions)")
        try db.run("DELETE FROM transaction_commitments WHERE transaction_id NOT IN (SELECT id FROM transactions)")
        try db.run("DELETE FROM transaction_refunds WHERE transaction_id NOT IN (SELECT id FROM transactions)")
    }
}

/// The last few verified reads of the `transactions` table, kept while the table is unchanged:
/// no other connection has committed (`PRAGMA data_version`) and this one has changed no row
/// of it (``LedgerConnection/transactionsGeneration``). Small results only, a few of them.
/// And the rows those reads verified, by id, for other reads of the same rows meanwhile (the
/// paywall's owned products and the account's entitlements are mostly the same transactions).
package struct ReadCache {
    package struct State: Equatable {
        package var dataVersion: Int64
        package var generation: Int64
    }

    private var state: State?
    private var reads: [String: [Transaction]] = [:]
    private var rows: [Int64: Transaction] = [:]
    static let maximumRows = 5_000
    static let maximumReads = 16

    package static func key(_ sql: String, _ parameters: [any SQLBindable]) -> String {
        parameters.reduce(sql) { key, parameter in
            switch parameter.sqlValue {
            case .null: key + "\u{0}n"
            case .integer(let value): key + "\u{0}i\(value)"
            case .real(let value): key + "\u{0}r\(value)"
            case .text(let value): key + "\u{0}t" + value
            }
        }
    }

    package func lookup(_ key: String, _ now: State) -> [Transaction]? {
        state == now ? reads[key] : nil
    }

    package mutating func keep(_ read: [Transaction], for key: String, _ now: State) {
        moveOn(to: now)
        guard read.count <= Self.maximumRows, reads.count < Self.maximumReads else { return }
        reads[key] = read
    }

    /// Row `id` as a read verified it, while the table is as it was then.
    package func row(_ id: Int64, _ now: State) -> Transaction? {
        state == now ? rows[id] : nil
    }

    /// Keeps verified rows by id (up to ``maximumRows`` in all).
    package mutating func keep(rows read: [Transaction], _ now: State) {
        moveOn(to: now)
        guard rows.count + read.count <= Self.maximumRows else { return }
        for transaction in read { rows[transaction.id] = transaction }
    }

    private mutating func moveOn(to now: State) {
        guard state != now else { return }
        reads = [:]
        rows = [:]
        state = now
    }
}
