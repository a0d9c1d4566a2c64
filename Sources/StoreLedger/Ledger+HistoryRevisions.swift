import Foundation
import StoreCatalog
import StoreSigning

/// The App Store Server API's order of a customer's history: by each transaction's last
/// modification. Every time a transaction is signed — made, renewed, upgraded, refunded,
/// extended, its token set — it takes the next revision, so a backend that keeps the last
/// `revision` of Get Transaction History or Get Refund History, as Apple recommends, sees each
/// later change of an older transaction on its next call.
///
/// A table of its own, keyed by transaction id, not a column of `transactions`: the seals
/// cover every column there, and the order is not a fact about the purchase (an edit of this
/// table reorders pages, it cannot make a row verify).
extension Ledger {
    /// Schema 9: each signed transaction's latest revision (AUTOINCREMENT: a number is never
    /// handed out twice, so a revision a backend kept always means "after this change"). Idempotent.
    static let historyRevisionTables = """
        CREATE TABLE IF NOT EXISTS history_revisions (
            revision INTEGER PRIMARY KEY AUTOINCREMENT,
            transaction_id INTEGER NOT NULL UNIQUE   -- its row is replaced (a new revision) at each change
        );
        """

    /// Schema 9 adds ``historyRevisionTables``; the transactions already signed take revisions in id order.
    static func migrate8to9(_ db: any LedgerConnection) throws(DatabaseError) {
        try db.execute(historyRevisionTables)
        try db.run("""
            INSERT INTO history_revisions (transaction_id)
            SELECT id FROM transactions WHERE jws IS NOT NULL ORDER BY id
            ON CONFLICT DO NOTHING
            """)
    }

    /// Gives transaction `id` the next revision: it was just signed (made or changed).
    func advanceRevision(of id: Int64) throws(DatabaseError) {
        // A new row, so a new revision: what SQLite's INSERT OR REPLACE did, in words both backends speak.
        try db.run("DELETE FROM history_revisions WHERE transaction_id = ?", id)
        try db.run("INSERT INTO history_revisions (transaction_id) VALUES (?)", id)
    }

    /// Transaction `id`'s revision now; nil when it was never signed.
    package func revision(of id: Int64) throws(DatabaseError) -> Int64? {
        try db.scalar("SELECT revision FROM history_revisions WHERE transaction_id = ?", id)
    }
}
