import Foundation
import StoreCatalog
import StoreSigning

extension Ledger {
    /// How many times these codes (uppercased) were redeemed, by anyone.
    package func codeRedemptions(codes: [String]) throws(DatabaseError) -> (total: Int, codes: [String]) {
        var total = 0
        for code in codes {
            total += Int(try db.scalar("SELECT count(*) FROM offer_code_redemptions WHERE code = ?", code) ?? 0)
        }
        return (total, codes)
    }

    /// How many times the account redeemed the offer.
    package func offerRedemptions(offerID: String, account: String) throws(DatabaseError) -> Int {
        Int(try db.scalar("SELECT count(*) FROM offer_code_redemptions WHERE offer_id = ? AND account = ?", offerID, account) ?? 0)
    }

    package func recordCodeRedemption(code: String, offerID: String, account: String, transactionID: Int64, at date: Date) throws(DatabaseError) {
        try db.run("""
            INSERT INTO offer_code_redemptions (code, offer_id, account, transaction_id, date) VALUES (?, ?, ?, ?, ?)
            """, code, offerID, account, transactionID, date.milliseconds)
    }
}
