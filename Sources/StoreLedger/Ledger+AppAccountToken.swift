import Foundation
import StoreCatalog
import StoreSigning

extension Ledger {
    /// Sets the `appAccountToken` of every signed transaction of the purchase whose original
    /// id is `originalID` (its renewals too) and signs each again; returns their ids.
    package func setAppAccountToken(_ token: UUID, originalID: Int64) throws(DatabaseError) -> [Int64] {
        let ids = try db.rows("SELECT id FROM transactions WHERE original_id = ? AND jws IS NOT NULL ORDER BY id", originalID) {
            $0.int64(.id)
        }
        try db.run("UPDATE transactions SET app_account_token = ? WHERE original_id = ? AND jws IS NOT NULL",
                   token.uuidString, originalID)
        for id in ids { try sign(id) }  // re-signed and resealed: the token is in both
        return ids
    }
}
