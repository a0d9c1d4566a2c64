import Foundation
import Testing
@testable import StoreLedger

/// Opening a store file of the current schema creates what it lacks, and skips the schema's
/// statements only when the file already holds every object a store file has.
@Suite("Ledger: preparing a store file at open")
struct StorePreparationTests {
    static func indexes(_ ledger: Ledger) throws -> Int64? {
        try #require(ledger.sqliteFile).scalar("SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name = 'transactions_pending'")
    }

    @Test("an index dropped from a current store file is made again at the next open, after a complete file was opened in the process")
    func aMissingObjectIsMadeAgain() throws {
        let folder = try TemporaryFolder(prefix: "prepare")
        let path = folder.path("store.sqlite")
        // Made, then opened whole: the process knows what a complete file holds.
        do { _ = try Ledger(path: path) }
        do {
            let whole = try Ledger(path: path)
            #expect(try Self.indexes(whole) == 1)
            try #require(whole.sqliteFile).execute("DROP INDEX transactions_pending")
        }
        let reopened = try Ledger(path: path)
        #expect(try Self.indexes(reopened) == 1)
    }
}
