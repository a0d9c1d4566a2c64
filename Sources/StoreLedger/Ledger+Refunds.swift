import Foundation

/// The share of each refund the App Store gave back (`revocationPercentage`), beside the
/// transaction it refunds: the tester chooses it (full, or prorated). A table of its own, not a
/// column of `transactions`, as ``commitmentsTable`` is: the rows' seals cover `transactions`'
/// columns in a fixed order, and a row refunded before keeps its row, seal and signature. What a
/// row says here is covered by the transaction's JWS (`revocationType`, `revocationPercentage`):
/// an edit makes the transaction unverified, as any edit of what a JWS signs.
extension Ledger {
    /// New in the file like ``commitmentsTable``, created when a store is opened: a refund without
    /// a row here was made before the share was kept, and keeps the share it was signed with
    /// (``Transaction/revocationPercentage``'s rule of then).
    static let refundsTable = """
        CREATE TABLE IF NOT EXISTS transaction_refunds (
            transaction_id INTEGER PRIMARY KEY,
            revocation_percentage INTEGER NOT NULL   -- milliunits given back: 100000 is the whole
        );
        """

    /// The `SELECT` expression that reads a row's refunded share (`refund_percentage`); NULL when none is kept.
    static let refundExpression = """
        (SELECT revocation_percentage FROM transaction_refunds WHERE transaction_id = transactions.id) AS refund_percentage
        """

    /// Writes (or clears, when not refunded) the refunded share of transaction `transaction.id`, in the caller's write.
    func saveRefund(of transaction: Transaction) throws(DatabaseError) {
        guard transaction.revocationDate != nil, let percentage = transaction.refundPercentage else {
            try db.run("DELETE FROM transaction_refunds WHERE transaction_id = ?", transaction.id)
            return
        }
        try db.run("""
            INSERT INTO transaction_refunds (transaction_id, revocation_percentage) VALUES (?, ?)
            ON CONFLICT (transaction_id) DO UPDATE SET revocation_percentage = excluded.revocation_percentage
            """, transaction.id, percentage)
    }

    /// A row's refunded share, when the row was read with ``refundExpression``.
    static func refundPercentage(_ row: Row) -> Int? {
        guard row.has(.refund_percentage), !row.isNull(.refund_percentage) else { return nil }
        return row.int(.refund_percentage)
    }
}
