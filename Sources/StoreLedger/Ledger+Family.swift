import Foundation
import StoreCatalog
import StoreSigning

/// What schema 8 keeps: families and the link from each family-shared transaction to
/// the purchase it shares (FamilySharing), and refund requests (RefundRequests).
extension Ledger {
    // MARK: - Families

    /// Every family, by name, each with its members (the organizer first, then as they joined).
    package func families() throws(DatabaseError) -> [Family] {
        var families = try db.rows("SELECT name, organizer, created FROM families ORDER BY created, name") { row in
            Family(name: row.text(.name), organizer: row.text(.organizer), members: [], created: Date(milliseconds: row.int64(.created)))
        }
        for index in families.indices {
            let members = try db.rows("SELECT account FROM family_members WHERE family = ? ORDER BY joined, account",
                                      families[index].name) { $0.text(.account) }
            families[index].members = [families[index].organizer].filter(members.contains)
                + members.filter { $0 != families[index].organizer }
        }
        return families
    }

    /// The family `account` belongs to, if any.
    package func family(of account: String) throws(DatabaseError) -> Family? {
        guard let name = try db.rows("SELECT family FROM family_members WHERE account = ?", account, as: { $0.text(.family) }).first
        else { return nil }
        return try families().first { $0.name == name }
    }

    package func insertFamily(_ name: String, organizer: String, at date: Date) throws(DatabaseError) {
        try db.run("INSERT INTO families (name, organizer, created) VALUES (?, ?, ?)", name, organizer, date.milliseconds)
        try insertMember(organizer, family: name, at: date)
    }

    package func insertMember(_ account: String, family: String, at date: Date) throws(DatabaseError) {
        try db.run("INSERT INTO family_members (account, family, joined) VALUES (?, ?, ?)", account, family, date.milliseconds)
    }

    package func deleteMember(_ account: String) throws(DatabaseError) {
        try db.run("DELETE FROM family_members WHERE account = ?", account)
    }

    package func deleteFamily(_ name: String) throws(DatabaseError) {
        try db.run("DELETE FROM family_members WHERE family = ?", name)
        try db.run("DELETE FROM families WHERE name = ?", name)
    }

    // MARK: - Shared transactions

    /// Records that `transactionID` (a member's) shares the purchaser's `purchaseID`.
    package func saveShare(_ transactionID: Int64, purchase purchaseID: Int64) throws(DatabaseError) {
        try db.run("""
            INSERT INTO family_shares (transaction_id, purchase_id) VALUES (?, ?)
            ON CONFLICT (transaction_id) DO UPDATE SET purchase_id = excluded.purchase_id
            """, transactionID, purchaseID)
    }

    /// The members' transactions that share the purchaser's transaction `purchaseID`.
    package func shares(of purchaseID: Int64) throws(DatabaseError) -> [Transaction] {
        try verifiedTransactions("""
            SELECT \(Self.verifiedColumns) FROM transactions
            WHERE id IN (SELECT transaction_id FROM family_shares WHERE purchase_id = ?) ORDER BY id
            """, [purchaseID])
    }

    /// The purchaser's transaction a member's shared transaction shares.
    package func sharedPurchase(of transactionID: Int64) throws(DatabaseError) -> Transaction? {
        guard let id = try db.rows("SELECT purchase_id FROM family_shares WHERE transaction_id = ?", transactionID,
                                   as: { $0.int64(.purchase_id) }).first else { return nil }
        return try transaction(id: id)
    }

    /// Where `account`'s shares of the purchaser's subscription `originalID` began: the original
    /// id and purchase date of the member's own chain, when it has shared that subscription before.
    package func sharedChain(account: String, purchaseOriginalID originalID: Int64) throws(DatabaseError) -> (id: Int64, date: Date)? {
        try db.rows("""
            SELECT t.original_id, t.original_purchase_date FROM transactions t
            JOIN family_shares s ON s.transaction_id = t.id JOIN transactions p ON p.id = s.purchase_id
            WHERE t.account = ? AND p.original_id = ? ORDER BY t.id LIMIT 1
            """, account, originalID) { ($0.int64(.original_id), Date(milliseconds: $0.int64(.original_purchase_date))) }.first
    }

    /// The newest transaction of each of `account`'s shared subscriptions (one per chain).
    package func latestSharedSubscriptions(account: String) throws(DatabaseError) -> [Transaction] {
        try verifiedTransactions("""
            SELECT \(Self.verifiedColumns) FROM transactions
            WHERE id IN (SELECT max(id) FROM transactions
                         WHERE account = ? AND ownership_type = 'familyShared' AND product_type = 'autoRenewable'
                           AND status = 'purchased'
                         GROUP BY original_id)
            ORDER BY id
            """, [account], reusable: true)
    }

    /// `account`'s shared transactions that still grant something: not revoked, not upgraded away.
    package func unrevokedShares(account: String) throws(DatabaseError) -> [Transaction] {
        try verifiedTransactions("""
            SELECT \(Self.verifiedColumns) FROM transactions
            WHERE account = ? AND ownership_type = 'familyShared' AND status = 'purchased'
              AND revocation_date IS NULL AND is_upgraded = 0
            ORDER BY id
            """, [account], reusable: true)
    }

    // MARK: - Refund requests

    static let refundRequestColumns = "transaction_id, account, reason, requested, status, decided"

    package func refundRequest(_ row: Row) -> RefundRequest {
        RefundRequest(transactionID: row.int64(.transaction_id), account: row.text(.account),
                      reason: RefundRequestReason(appStoreName: row.text(.reason)) ?? .other,
                      requestDate: Date(milliseconds: row.int64(.requested)),
                      status: RefundRequest.Status(rawValue: row.text(.status)) ?? .pending,
                      decisionDate: row.optionalInt64(.decided).map(Date.init(milliseconds:)))
    }

    package func refundRequest(transactionID: Int64) throws(DatabaseError) -> RefundRequest? {
        try db.rows("SELECT \(Self.refundRequestColumns) FROM refund_requests WHERE transaction_id = ?", transactionID,
                    as: refundRequest).first
    }

    /// Every refund request, oldest first; only those of `status` when given.
    package func refundRequests(status: RefundRequest.Status? = nil) throws(DatabaseError) -> [RefundRequest] {
        try db.rows("""
            SELECT \(Self.refundRequestColumns) FROM refund_requests WHERE CAST(? AS TEXT) IS NULL OR status = ? ORDER BY requested, transaction_id
            """, status?.rawValue, status?.rawValue, as: refundRequest)
    }

    /// The refund requests of one account, oldest first.
    package func refundRequests(account: String) throws(DatabaseError) -> [RefundRequest] {
        try db.rows("SELECT \(Self.refundRequestColumns) FROM refund_requests WHERE account = ? ORDER BY requested, transaction_id",
                    account, as: refundRequest)
    }

    package func saveRefundRequest(_ request: RefundRequest) throws(DatabaseError) {
        try db.run("""
            INSERT INTO refund_requests (transaction_id, account, reason, requested, status, decided)
            VALUES (?, ?, ?, ?, ?, ?)
            ON CONFLICT (transaction_id) DO UPDATE SET account = excluded.account, reason = excluded.reason,
                requested = excluded.requested, status = excluded.status, decided = excluded.decided
            """, request.transactionID, request.account, request.reason.appStoreName, request.requestDate.milliseconds,
            request.status.rawValue, request.decisionDate?.milliseconds)
    }
}
