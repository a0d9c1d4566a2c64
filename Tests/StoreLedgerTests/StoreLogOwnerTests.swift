import Foundation
import Glibc
import Testing
@testable import StoreLedger

/// Issue 43 (6), at the ledger: which file a log belongs to, and what a closing ledger does with it.
@Suite("Ledger: the log's owner")
struct StoreLogOwnerTests {
    static func write(_ ledger: Ledger, _ count: Int) throws {
        for index in 0..<count {
            try ledger.write { try ledger.db.run("INSERT OR REPLACE INTO settings (account, name, value) VALUES ('', ?, ?)", "note\(index)", String(repeating: "x", count: 2000)) }
        }
    }

    /// Each write records the file's inode in the log; a ledger's own leftover log is its file's.
    @Test func aLeftoverLogIsItsOwnFilesUntilTheFileIsReplaced() async throws {
        try await withTemporaryFolder { folder in
            let path = folder + "/store.sqlite", other = folder + "/other.sqlite"
            do { _ = try Ledger(path: other) }
            let ledger = try Ledger(path: path)
            try Self.write(ledger, 2)
            // Copies of the log as a kill leaves it, while the ledger still has it open.
            for suffix in ["-wal", "-shm"] { try FileManager.default.copyItem(atPath: path + suffix, toPath: folder + "/left" + suffix) }
            withExtendedLifetime(ledger) {}
            var info = stat()
            #expect(stat(path, &info) == 0)
            let recorded = try ledger.db.scalar("SELECT inode FROM store_file")
            #expect(recorded == Int64(bitPattern: UInt64(info.st_ino)))
            for suffix in ["-wal", "-shm"] { try FileManager.default.copyItem(atPath: folder + "/left" + suffix, toPath: other + suffix) }
            #expect(stat(other, &info) == 0)
            #expect(StoreFileCompanions.foreignLog(of: other, info: info)?.contains("its -wal holds another file's changes") == true)
        }
    }

    /// A killed process's log beside a path where no file is: a store made there (from a template,
    /// as a test session's is, or not) refuses it and is removed again, so the next open refuses it too.
    @Test func aNewStoreRefusesALogLeftWhereNoFileWas() async throws {
        try await withTemporaryFolder { folder in
            let path = folder + "/store.sqlite", other = folder + "/other.sqlite"
            let template = try StoreTemplateTests.closedStore(at: folder + "/template.sqlite")
            let ledger = try Ledger(path: other)
            try Self.write(ledger, 2)
            for suffix in ["-wal", "-shm"] { try FileManager.default.copyItem(atPath: other + suffix, toPath: folder + "/left" + suffix) }
            withExtendedLifetime(ledger) {}
            for bytes in [nil, template.bytes] {
                for suffix in ["-wal", "-shm"] {
                    try? FileManager.default.removeItem(atPath: path + suffix)
                    try FileManager.default.copyItem(atPath: folder + "/left" + suffix, toPath: path + suffix)
                }
                let error = #expect(throws: StoreFileError.self) { try Ledger(path: path, template: bytes) }
                #expect(error?.reason.contains("its -wal holds another file's changes") == true, "\(String(describing: error))")
                #expect(!FileManager.default.fileExists(atPath: path))
            }
            // With the log moved aside, as the message says: the template's store, without the other's rows.
            for suffix in ["-wal", "-shm"] { try FileManager.default.removeItem(atPath: path + suffix) }
            let made = try Ledger(path: path, template: template.bytes)
            #expect(try made.db.scalar("SELECT count(*) FROM settings WHERE name LIKE 'note%'") == 1)
        }
    }
}
