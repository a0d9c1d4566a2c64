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
}
