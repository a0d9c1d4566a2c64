import Foundation
import Testing
@testable import StoreLedger

/// How far a store file's commits wait for the disk (``Durability``): a user's store waits for
/// every purchase; a test session's never waits; a record that may be made again waits less.
@Suite("Ledger: durability of a store file's commits")
struct StoreDurabilityTests {
    /// `PRAGMA synchronous` on the ledger's own connection: 0 OFF, 1 NORMAL, 2 FULL.
    static func synchronous(_ ledger: Ledger) throws -> Int64? {
        try #require(ledger.sqliteFile).scalar("PRAGMA synchronous")
    }

    @Test("a store file waits for the disk at every commit; a process-crash-safe one never does, before and after a write that need not be durable")
    func eachDurabilityKeepsItsSetting() throws {
        let folder = try TemporaryFolder(prefix: "durability")
        let full = try Ledger(path: folder.path("full.sqlite"))
        let scratch = try Ledger(path: folder.path("scratch.sqlite"), durability: .processCrashSafe)
        #expect(try Self.synchronous(full) == 2)
        #expect(try Self.synchronous(scratch) == 0)
        for ledger in [full, scratch] {
            try ledger.write(durable: false) { try ledger.setSetting("note", account: "", value: "made again if lost") }
        }
        // The lighter commit of a record is this write's alone: each connection is back to its own.
        #expect(try Self.synchronous(full) == 2)
        #expect(try Self.synchronous(scratch) == 0)
        // Another connection to the scratch file (another process, `storefront --store`) waits as a user's does.
        let other = try Ledger(path: folder.path("scratch.sqlite"))
        #expect(try Self.synchronous(other) == 2)
        #expect(try other.setting("note", account: "") == "made again if lost")
    }
}
