import Foundation
import StoreCatalog
import StoreSigning
import Testing
@testable import StoreLedger

/// A purchased, signed, sealed and marked transaction in a new store file at `path`.
private func storeWithPurchase(_ path: String) throws -> Transaction {
    try Ledger(path: path).insertTestPurchase(account: "reader",
                                              appAccountToken: UUID(uuidString: "5B1F3A0E-7A6C-4A58-9E2B-3C1D2E4F5A6B"))
}

/// Rebuilds `transactions` with its columns in the reverse order (values, indexes kept), as a
/// file whose columns were added in another order would have them.
private func reverseTransactionsColumns(_ path: String) throws {
    let db = try SQLiteDatabase(path: path, create: false)
    let columns = try db.rows("SELECT name, type FROM pragma_table_info('transactions') ORDER BY cid DESC") {
        ($0.text(.name), $0.text(.type))
    }
    let indexes = try db.texts("SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'transactions' AND sql IS NOT NULL")
    let names = columns.map(\.0).joined(separator: ", ")
    try db.execute("""
        CREATE TABLE reversed (\(columns.map { "\($0.0) \($0.1)" }.joined(separator: ", ")));
        INSERT INTO reversed (\(names)) SELECT \(names) FROM transactions;
        DROP TABLE transactions;
        ALTER TABLE reversed RENAME TO transactions;
        \(indexes.map { $0 + ";" }.joined(separator: "\n"))
        """)
    #expect(try db.texts("SELECT name FROM pragma_table_info('transactions') ORDER BY cid").first == "seal")
}

@Suite("Row access by column name")
struct RowAccessByNameTests {
    @Test("a table whose columns are in another order reads the same, still verified and sealed")
    func reorderedTable() async throws {
        try await withTemporaryFolder { folder in
            let path = folder + "/store.sqlite"
            let stored = try storeWithPurchase(path)
            let before = try #require(try Ledger(path: path).transactions(account: "reader").first)
            #expect(before.verification == .verified)
            let checkedBefore = StoreDoctor.examine(path: path)
            try reverseTransactionsColumns(path)
            let after = try #require(try Ledger(path: path).transactions(account: "reader").first)
            // By position, the first column would now be the seal and the id the last: a different record.
            #expect(after == before)
            #expect(after.verification == .verified, "the seal hashes the columns by name, in its own order")
            #expect(after.price == Decimal(string: "4.99")! && after.storefront == "USA" && after.id == stored.id)
            let checkedAfter = StoreDoctor.examine(path: path)
            #expect(checkedAfter.isHealthy, "doctor: \(checkedAfter.problems)")
            #expect(checkedAfter.problems == checkedBefore.problems && checkedAfter.notes == checkedBefore.notes)
        }
    }

    @Test("SELECT * and a reordered SELECT list read the record the ledger's own list reads")
    func selectStarAndReorderedList() async throws {
        try await withTemporaryFolder { folder in
            let path = folder + "/store.sqlite"
            _ = try storeWithPurchase(path)
            let db = try SQLiteDatabase(path: path, create: false)
            let listed = try db.rows("SELECT \(Ledger.columns) FROM transactions", as: Ledger.unverifiedTransaction)
            let star = try db.rows("SELECT * FROM transactions", as: Ledger.unverifiedTransaction)
            let reversed = (Ledger.sealedColumns + [.seal]).reversed().map(\.name).joined(separator: ", ")
            let backwards = try db.rows("SELECT \(reversed) FROM transactions", as: Ledger.unverifiedTransaction)
            #expect(listed.count == 1)
            #expect(star == listed)
            #expect(backwards == listed)
            // The seal of the row read backwards is the one stored: it is computed by name.
            let pem = try #require(try db.rows("SELECT private_key FROM signing_key") { $0.text(.private_key) }.first)
            let key = Ledger.sealKey(for: try SigningKey(pem: pem))
            let seals = try db.rows("SELECT \(reversed) FROM transactions") { ($0.text(.seal), Ledger.seal(of: $0, key: key)) }
            #expect(seals.count == 1 && seals[0].0 == seals[0].1)
        }
    }

    @Test("a cached SELECT * finds its columns again after the table is rebuilt in another order")
    func cachedStatementAfterSchemaChange() throws {
        let db = try SQLiteDatabase(path: "file::memory:", create: true, uri: true)
        try db.execute("CREATE TABLE accounts (name TEXT, created INTEGER); INSERT INTO accounts VALUES ('a', 7);")
        let read = { try db.rows("SELECT * FROM accounts") { "\($0.text(.name)) \($0.int64(.created))" } }
        #expect(try read() == ["a 7"])
        try db.execute("""
            DROP TABLE accounts; CREATE TABLE accounts (created INTEGER, name TEXT); INSERT INTO accounts VALUES (8, 'b');
            """)
        #expect(try read() == ["b 8"])
    }

    @Test("a result without the column named says so")
    func absentColumn() throws {
        let db = try SQLiteDatabase(path: "file::memory:", create: true, uri: true)
        let found = try db.rows("SELECT 1 AS prise, 2 AS id, 3 AS id") { [$0.has(.price), $0.has(.id)] }
        #expect(found == [[false, false]], "misspelt, and two of one name: neither can be read")
    }

    /// A misspelt name in a `SELECT` list (or a read of a column it does not select) is a bug in
    /// the program, not in the file: the read stops the process, as an index out of range does,
    /// rather than throw an error every caller would have to pass on (and that one could catch
    /// and carry on, with a wrong or empty value). A misspelt case in Swift does not compile.
    @Test("reading a column the SELECT list misspells stops the process")
    func misspeltColumnTraps() async {
        await #expect(processExitsWith: .failure) {
            let db = try SQLiteDatabase(path: "file::memory:", create: true, uri: true)
            _ = try db.rows("SELECT '4.99' AS prise") { $0.text(.price) }
        }
        await #expect(processExitsWith: .failure) {
            let db = try SQLiteDatabase(path: "file::memory:", create: true, uri: true)
            _ = try db.rows("SELECT 1 AS id, 2 AS id") { $0.int64(.id) }
        }
    }
}
