import Foundation
import Testing
@testable import StoreEngine
@testable import StoreLedger

/// A verified read of the `transactions` table is reused only while the table is unchanged.
@Suite("read cache: reused while the table is unchanged", .fileStoreOnly)
struct ReadCacheTests {
    @Test("another process's commit, this one's change, a truncate and a rollback are each seen by the next read")
    func everyChangeIsSeen() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            let pro = try await buy(store, "pro")
            let faces = try await buy(store, "faces")
            let ledger = try Ledger(path: fixture.path, bundleID: fixture.catalog.bundleID)
            func ids() throws -> [Int64] { try ledger.transactions(account: Store.defaultAccount).map(\.id) }
            #expect(try ids() == [faces.id, pro.id])
            #expect(try ids() == [faces.id, pro.id], "read again, unchanged")

            // Another connection commits: PRAGMA data_version moves.
            try SQLiteDatabase(path: fixture.path, create: false).run("DELETE FROM transactions WHERE id = ?", faces.id)
            #expect(try ids() == [pro.id])

            // A change inside a transaction that rolls back: the read made inside it is not kept.
            struct Undo: Error {}
            _ = try? ledger.db.transaction { () throws -> Void in
                try ledger.db.run("DELETE FROM transactions WHERE id = ?", pro.id)
                #expect(try ids() == [])
                throw Undo()
            }
            #expect(try ids() == [pro.id])

            // This connection's own change, and a DELETE without WHERE (SQLite's truncate, unseen by its hook).
            try ledger.db.run("UPDATE transactions SET quantity = 2 WHERE id = ?", pro.id)
            #expect(try ledger.transactions(account: Store.defaultAccount).first?.purchasedQuantity == 2)
            try ledger.db.execute("DELETE FROM transactions")
            #expect(try ids() == [])
        }
    }

    @Test("a row verified by one read is taken by another only while unchanged: an edit by another process is refused")
    func keptRowsFollowTheTable() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            let pro = try await buy(store, "pro")
            let ledger = try Ledger(path: fixture.path, bundleID: fixture.catalog.bundleID)
            let account = Store.defaultAccount
            #expect(try ledger.latestRestorableTransactions(account: account).map(\.id) == [pro.id])
            // Another query of the same row (not the same read, which is kept whole).
            let same = try ledger.transactions(account: account, productID: "pro")
            #expect(same.map(\.id) == [pro.id])
            #expect(same.first?.verification.isVerified == true, "the row as the restorable read verified it")

            // Another connection edits the row under its seal: the next read checks it afresh.
            try SQLiteDatabase(path: fixture.path, create: false).run("UPDATE transactions SET quantity = 7 WHERE id = ?", pro.id)
            let edited = try ledger.transactions(account: account, productID: "pro")
            #expect(edited.first?.purchasedQuantity == 7)
            #expect(edited.first?.verification.isVerified == false, "an edited row is not the one kept")
            #expect(try ledger.latestRestorableTransactions(account: account).first?.verification.isVerified == false)
        }
    }
    @Test("restorable rows taken from another read's verified rows are the ones a fresh read verifies, and only while unchanged")
    func restorableFromKeptRows() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            _ = try await buy(store, "pro")
            _ = try await buy(store, "faces")
            _ = try await store.sync()  // the app owns both: the owned read names them
            let account = Store.defaultAccount
            let ledger = try Ledger(path: fixture.path, bundleID: fixture.catalog.bundleID)
            func fresh() throws -> [Transaction] {
                try Ledger(path: fixture.path, bundleID: fixture.catalog.bundleID).latestRestorableTransactions(account: account)
            }
            #expect(try ledger.ownedProductTransactions(account: account).count == 2)
            let kept = try ledger.latestRestorableTransactions(account: account)
            #expect(kept.count == 2)
            #expect(kept == (try fresh()))
            #expect(kept.allSatisfy { $0.verification.isVerified })

            // Another process edits one row: the next read is not answered from the kept rows.
            try SQLiteDatabase(path: fixture.path, create: false).run("UPDATE transactions SET quantity = 3 WHERE id = ?", kept[0].id)
            _ = try ledger.ownedProductTransactions(account: account)
            let edited = try ledger.latestRestorableTransactions(account: account)
            #expect(edited.map(\.id) == kept.map(\.id))
            #expect(edited[0].verification.isVerified == false, "the edited row is checked afresh and refused")
            #expect(edited[1].verification.isVerified)
            #expect(edited == (try fresh()))
        }
    }
}
