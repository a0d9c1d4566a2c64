import Foundation
import StoreCatalog

/// Each monthly billing period's place in its 12-month commitment (``TransactionCommitment``),
/// beside the transaction it belongs to. A table of its own, not columns of `transactions`: the
/// rows' seals cover `transactions`' columns in a fixed order, and an up-front transaction (all
/// of them before billing plans) keeps its row, seal and signature as they are. What a row says
/// here is covered by the transaction's JWS (`billingPlanType`, `commitmentInfo`): an edit makes
/// the transaction unverified, as any edit of what a JWS signs.
extension Ledger {
    /// New in the file like ``verifiedRowsTable``, created when a file is opened: a file without
    /// it simply has no commitments. An older build reads a commitment transaction as unverified.
    static let commitmentsTable = """
        CREATE TABLE IF NOT EXISTS transaction_commitments (
            transaction_id INTEGER PRIMARY KEY,
            billing_plan_type TEXT NOT NULL,         -- MONTHLY
            billing_period_number INTEGER NOT NULL,  -- 1 … total_billing_periods
            total_billing_periods INTEGER NOT NULL,  -- 12
            commitment_expires_date INTEGER NOT NULL, -- ms: the commitment's end
            commitment_price TEXT NOT NULL           -- decimal text: the whole commitment
        );
        """

    /// The `SELECT` expression that reads a row's commitment in one column (`commitment`), in
    /// ``TransactionCommitment``'s stored form; NULL for a transaction billed up front.
    static let commitmentExpression = """
        (SELECT billing_plan_type || ' ' || billing_period_number || ' ' || total_billing_periods || ' ' ||
            commitment_expires_date || ' ' || commitment_price
         FROM transaction_commitments WHERE transaction_id = transactions.id) AS commitment
        """

    /// Writes (or clears) the commitment of transaction `transaction.id`, in the caller's write.
    func saveCommitment(of transaction: Transaction) throws(DatabaseError) {
        guard let commitment = transaction.commitment else {
            try db.run("DELETE FROM transaction_commitments WHERE transaction_id = ?", transaction.id)
            return
        }
        try db.run("""
            INSERT INTO transaction_commitments (transaction_id, billing_plan_type, billing_period_number,
                total_billing_periods, commitment_expires_date, commitment_price) VALUES (?, ?, ?, ?, ?, ?)
            ON CONFLICT (transaction_id) DO UPDATE SET billing_plan_type = excluded.billing_plan_type,
                billing_period_number = excluded.billing_period_number, total_billing_periods = excluded.total_billing_periods,
                commitment_expires_date = excluded.commitment_expires_date, commitment_price = excluded.commitment_price
            """, transaction.id, commitment.billingPlanType.rawValue, commitment.billingPeriodNumber,
            commitment.totalBillingPeriods, commitment.commitmentExpiresDate.milliseconds,
            DecimalText.format(commitment.commitmentPrice))
    }

    /// A row's commitment, when the row was read with ``commitmentExpression``.
    static func commitment(_ row: Row) -> TransactionCommitment? {
        guard row.has(.commitment), let text = row.optionalText(.commitment) else { return nil }
        return TransactionCommitment(stored: text)
    }
}
