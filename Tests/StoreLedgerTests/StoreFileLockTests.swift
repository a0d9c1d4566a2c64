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
    /// The locks this process holds on the file at `path`.
    static func locksHeldHere(on path: String) -> [String] {
        StoreFileCompanions.locks(on: path).filter { $0.pid == getpid() }.map(\.lock).sorted()
    }

    @Test("Opening the store a second time in a process keeps the first connection's locks on the file and its -shm")
    func aSecondOpenKeepsTheFirstsLocks() async throws {
        try await withTemporaryFolder { folder in
            let path = folder + "/store.sqlite"
            let first = try Ledger(path: path)
            // An empty -wal: the checks before opening read the file's header only then.
            try first.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            _ = try first.db.scalar("SELECT count(*) FROM sqlite_master")
            let fileLocks = Self.locksHeldHere(on: path)
            let shmLocks = Self.locksHeldHere(on: path + "-shm")
            #expect(!fileLocks.isEmpty, "the first connection holds no lock on the file to lose")
            #expect(!shmLocks.isEmpty, "the first connection holds no lock on the -shm to lose")

            let second = try Ledger(path: path)
            #expect(Self.locksHeldHere(on: path) == fileLocks)
            #expect(Self.locksHeldHere(on: path + "-shm") == shmLocks)
            withExtendedLifetime(second) {}
            withExtendedLifetime(first) {}
        }
    }
}
