import Foundation
import Glibc
import Testing
@testable import StoreLedger

/// SQLite's POSIX locks on the store file and its -shm belong to the process, and a close of any
/// other descriptor on the same file lets them all go ("How To Corrupt An SQLite Database File",
/// 2.2). The checks made before a store opens read those files: never in a process that has
/// the store open already.
@Suite("Ledger: SQLite's locks in one process")
struct StoreFileLockTests {
    /// The locks (kind and byte range, from /proc/locks) this process holds on the file at `path`.
    static func locksHeldHere(on path: String) throws -> [String] {
        var info = stat()
        guard stat(path, &info) == 0 else { return [] }
        let device = UInt64(info.st_dev)
        let major = ((device >> 8) & 0xFFF) | ((device >> 32) & ~UInt64(0xFFF))
        let minor = (device & 0xFF) | ((device >> 12) & ~UInt64(0xFF))
        let name = String(format: "%02llx:%02llx:%llu", major, minor, UInt64(info.st_ino))
        let text = try String(contentsOfFile: "/proc/locks", encoding: .utf8)
        // "1: POSIX  ADVISORY  READ 1234 08:02:131 128 128": the line's number changes with others' locks.
        return text.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ")
            guard !line.contains("->"), let index = fields.firstIndex(where: { $0 == name }), index >= 2,
                  fields[index - 1] == "\(getpid())" else { return nil }
            return ([fields[index - 2]] + fields[(index + 1)...]).joined(separator: " ")
        }.sorted()
    }

    @Test("Opening the store a second time in a process keeps the first connection's locks on the file and its -shm")
    func aSecondOpenKeepsTheFirstsLocks() async throws {
        try await withTemporaryFolder { folder in
            let path = folder + "/store.sqlite"
            let first = try Ledger(path: path)
            // An empty -wal: the checks before opening read the file's header only then.
            try first.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            _ = try first.db.scalar("SELECT count(*) FROM sqlite_master")
            let fileLocks = try Self.locksHeldHere(on: path)
            let shmLocks = try Self.locksHeldHere(on: path + "-shm")
            #expect(!fileLocks.isEmpty, "the first connection holds no lock on the file to lose")
            #expect(!shmLocks.isEmpty, "the first connection holds no lock on the -shm to lose")

            let second = try Ledger(path: path)
            #expect(try Self.locksHeldHere(on: path) == fileLocks)
            #expect(try Self.locksHeldHere(on: path + "-shm") == shmLocks)
            withExtendedLifetime(second) {}
            withExtendedLifetime(first) {}
        }
    }
}
