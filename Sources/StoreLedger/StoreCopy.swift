import Foundation
import StoreCatalog

/// A store copied between a file and PostgreSQL, either way (`storefront store copy`): every
/// row of every table as it is, the signing key and its chain among them, so each signature and
/// seal stays valid; checked on arrival. A tester takes the team's sandbox home as a file to
/// reproduce a bug; a file seeds a team's sandbox.
package enum StoreCopy {
    /// What a copy carried, and what the check on arrival found.
    package struct Report: Sendable, Equatable {
        /// Rows copied, by table, in the schema's order.
        package var rows: [String: Int]
        /// Transactions at the destination whose seal matches their row.
        package var sealedTransactions: Int
    }

    /// Every table of a store, in an order where nothing is read before it is written.
    static var tables: [String] {
        let schema = [Ledger.storeTables, Ledger.serveTables, Ledger.verifiedRowsTable, Ledger.commitmentsTable, Ledger.refundsTable,
                      Ledger.sealHeadTable]
            .joined(separator: "\n")
        var names = schema.matches(of: /CREATE TABLE (?:IF NOT EXISTS )?(\w+)/).map { String($0.output.1) }
        names.append("sqlite_sequence")
        var seen = Set<String>()
        return names.filter { seen.insert($0).inserted }
    }

    /// Copies the store at `source` to `destination`, which must not be a store yet (no file
    /// there; or an empty database or schema). Nothing is written to `source`. The destination is
    /// checked as it arrived: its head adds up and every transaction's seal matches its row.
    package static func copy(from source: String, to destination: String) throws -> Report {
        let target = StoreAddress(destination)
        if case .file(let path) = target, FileManager.default.fileExists(atPath: path) {
            throw StoreFileError(path: path, reason: "exists already; a copy goes to a new file (nothing was changed)")
        }
        let from = try Ledger.open(StoreAddress(source), bundleID: Catalog.defaultBundleID, createFolder: false, now: Date.init)
        let to = try Ledger.open(target, bundleID: Catalog.defaultBundleID, createFolder: true, now: Date.init)
        guard try to.db.scalar("SELECT count(*) FROM transactions") == 0,
              try to.db.scalar("SELECT count(*) FROM accounts") == 0 else {
            throw StoreFileError(path: target.shown, reason: "is a store with purchases already; a copy goes to an empty one (nothing was changed)")
        }
        var rows: [String: Int] = [:]
        try from.read {
            try to.write {
                for table in tables {
                    let columns = Set(try from.db.columns(of: table))
                    let shared = try to.db.columns(of: table).filter(columns.contains)
                    guard !shared.isEmpty else { continue }
                    // The new store's own rows (its key, its starting settings) give way to the source's.
                    try to.db.execute("DELETE FROM \(table)")
                    let list = shared.joined(separator: ", ")
                    let insert = "INSERT INTO \(table) (\(list)) VALUES (\(Array(repeating: "?", count: shared.count).joined(separator: ", ")))"
                    var count = 0
                    try from.db.values("SELECT \(list) FROM \(table)") { (values: [SQLValue]) throws(DatabaseError) in
                        try to.db.query(insert, values) { (_: Row) throws(DatabaseError) in }
                        count += 1
                    }
                    rows[table] = count
                }
                try to.continueIdentities(of: tables)
            }
        }
        return Report(rows: rows, sealedTransactions: try checkArrival(destination))
    }

    /// Opens the copy afresh (its key now the source's) and checks its seals: the head adds up,
    /// and every transaction's seal matches its row. The number of transactions sealed.
    static func checkArrival(_ destination: String) throws -> Int {
        let copy = try Ledger.open(StoreAddress(destination), bundleID: Catalog.defaultBundleID, createFolder: false, now: Date.init)
        if let problem = try Ledger.headProblem(copy.db, key: copy.sealKey) {
            throw StoreFileError(path: StoreAddress(destination).shown, reason: "arrived damaged: \(problem)")
        }
        var sealed = 0
        var broken: [Int64] = []
        try copy.db.query("SELECT \(Ledger.columns) FROM transactions WHERE seal IS NOT NULL ORDER BY id", []) { row in
            if copy.isSealed(row) { sealed += 1 } else { broken.append(row.int64(.id)) }
        }
        guard broken.isEmpty else {
            throw StoreFileError(path: StoreAddress(destination).shown,
                                 reason: "arrived with \(broken.count) transaction(s) whose seal does not match: \(broken.prefix(5).map(String.init).joined(separator: ", "))")
        }
        return sealed
    }
}

extension Ledger {
    /// After rows were written with their ids (a copy), each identity column hands out ids after
    /// theirs: PostgreSQL's sequences do not follow explicit ids, SQLite's AUTOINCREMENT does.
    func continueIdentities(of tables: [String]) throws(DatabaseError) {
        guard sqliteFile == nil else { return }
        for table in tables {
            let identities = try db.texts("""
                SELECT column_name::text FROM information_schema.columns
                WHERE table_schema = current_schema() AND table_name = ? AND is_identity = 'YES' AND column_name <> 'rowid'
                """, table)
            for column in identities {
                _ = try db.texts("""
                    SELECT setval(pg_get_serial_sequence(?, ?), (SELECT coalesce(max(\(column)), 0) + 1 FROM \(table)), false)::text
                    """, table, column)
            }
        }
    }
}
