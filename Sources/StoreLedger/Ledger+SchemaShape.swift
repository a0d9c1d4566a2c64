import Foundation
import StoreCatalog
import StoreSigning

/// The schema a store file's columns show, whatever its `user_version` says: a version set
/// back by hand (`sqlite3 store.sqlite 'PRAGMA user_version=5'`) must neither have a migration
/// seal again rows it cannot verify, nor make every open fail (`CREATE TABLE` over tables there
/// are, a column added twice), nor pass the doctor.
extension Ledger {
    /// The lowest schema whose columns the file has, from what each migration adds in the one
    /// write that also sets the version: the balances' seal column (10), the transactions' seal column (6), the offer payment mode (5), the
    /// promotional offer id (3), why a transaction is pending (2), the tables at all (1); 0 for none.
    /// (Tables a migration adds before the write that sets the version are no evidence: a process
    /// killed between the two leaves them.)
    package static func shapeVersion(of db: any LedgerConnection) throws(DatabaseError) -> Int64 {
        let columns = Set(try db.texts("SELECT name FROM pragma_table_info('transactions')"))
        if columns.isEmpty { return 0 }
        if try db.scalar("SELECT count(*) FROM pragma_table_info('app_balances') WHERE name = 'seal'") == 1 { return 10 }
        if columns.contains("seal") { return 6 }
        if columns.contains("offer_discount_type") { return 5 }
        if columns.contains("offer_id") { return 3 }
        if columns.contains("pending_reason") { return 2 }
        return 1
    }

    /// Why a file's `user_version` cannot be its schema (it is lower than its columns show), or nil.
    package static func loweredVersion(stated: Int64, shape: Int64) -> String? {
        guard stated < shape else { return nil }
        return "its user_version is \(stated), but its columns are schema \(shape)'s\(shape >= 6 ? " or later" : ""): the version was set back by hand (sqlite3)"
    }
}
