import CSQLite
import Foundation
import Testing

/// The store file under what the system and other programs do to it (issue 15): a full disk,
/// symlinks, a umask, a row put back by hand, a dead creation's drafts. Each failed before its fix.
@Suite("Store file: a full disk, symlinks, permissions, old rows put back and litter (process)")
struct StoreFileHazardTests {
    /// Runs storefront through bash with `prefix` first (a file-size limit, a umask).
    func shell(_ sandbox: Sandbox, _ prefix: String, _ arguments: [String],
               environment: [String: String] = [:]) async throws -> RunResult {
        let binary = try #require(Binary.url)
        var env = ["PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": sandbox.home]
        env.merge(environment) { $1 }
        return try await Sandbox.launch(URL(fileURLWithPath: "/bin/bash"),
                                        arguments: ["-c", "trap '' XFSZ; \(prefix); exec \"$@\"", "bash", binary.path] + arguments,
                                        environment: env, directory: sandbox.folder)
    }

    /// Every transaction in the file (finished consumables are not in `transactions`, as in StoreKit).
    func count(_ sandbox: Sandbox) throws -> Int {
        var db: OpaquePointer?, statement: OpaquePointer?
        defer { sqlite3_finalize(statement); sqlite3_close(db) }
        guard openWithSQLite(sandbox.store, &db, flags: SQLITE_OPEN_READONLY) == SQLITE_OK,
              sqlite3_prepare_v2(db, "SELECT count(*) FROM transactions", -1, &statement, nil) == SQLITE_OK,
              sqlite3_step(statement) == SQLITE_ROW else { return -1 }
        return Int(sqlite3_column_int64(statement, 0))
    }

    /// (1) A purchase committed before the disk filled is reported (exit 0, its transaction),
    /// never exit 74; a refused one names the system's reason and charges nothing. A Buy's
    /// delivery is committed with its purchase (one sync), so the limit leaves room for both
    /// once: the first buy fits, a later one finds the file full.
    @Test func aPurchaseMadeIsReportedOnAFullDisk() async throws {
        let sandbox = try Sandbox()
        try await sandbox.storefront("buy", Demo.swiftShopping).expect(exit: 0)
        var reported = 0
        for _ in 0..<40 {
            let before = try count(sandbox)
            let run = try await shell(sandbox, "ulimit -f 88", ["--catalog", Binary.catalog, "--store", sandbox.store,
                                                                "buy", Demo.coins, "--json"])
            let after = try count(sandbox)
            if run.status == 0 {
                reported += 1
                #expect(after == before + 1 && run.stdout.contains("\"transaction\""), "\(run)")
                continue
            }
            // --json's one failure shape, and no transaction: nothing was bought.
            #expect(run.status == 74 && !run.stdout.contains("\"transaction\""), "\(run)")
            #expect((try run.jsonObject()["error"] as? [String: Any])?["name"] as? String == "storeUnusable", "\(run)")
            #expect(after == before, "charged while reporting failure: \(run)")
            #expect(run.stderr.contains("File too large"), "\(run)")
            break
        }
        #expect(reported > 0)
    }

    /// (5) A store path that is a symlink to a healthy store is that store, for every command and doctor.
    @Test func aSymlinkToAStoreIsFollowedByOneRule() async throws {
        let sandbox = try Sandbox()
        try await sandbox.storefront("buy", Demo.coins).expect(exit: 0)
        let link = sandbox.path("link.sqlite")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: sandbox.store)
        try await sandbox.storefront(["buy", Demo.coins], store: link).expect(exit: 0)
        let doctor = try await sandbox.run(["--store", link, "doctor"])
        doctor.expect(exit: 0)
        let empty = try sandbox.write("empty", Data())
        let toEmpty = sandbox.path("to-empty.sqlite")
        try FileManager.default.createSymbolicLink(atPath: toEmpty, withDestinationPath: empty)
        try await sandbox.storefront(["products"], store: toEmpty).expect(exit: 74)
        #expect(FileManager.default.contents(atPath: empty)?.isEmpty == true)
    }

    /// (6) The default store's folders are 0700 under umask 000; a 0644 store is repaired with a warning.
    @Test func foldersAreOwnerOnlyWhateverTheUmask() async throws {
        let sandbox = try Sandbox()
        let run = try await shell(sandbox, "umask 000", ["--catalog", Binary.catalog, "buy", Demo.coins])
        run.expect(exit: 0)
        func mode(_ path: String) -> Int { ((try? FileManager.default.attributesOfItem(atPath: path))?[.posixPermissions] as? Int) ?? -1 }
        for folder in ["/.local", "/.local/state", "/.local/state/storefront"] {
            #expect(mode(sandbox.home + folder) == 0o700, "\(folder)")
        }
        chmod(sandbox.store, 0o644)
        try await sandbox.storefront("buy", Demo.coins).expect(exit: 0)
        chmod(sandbox.store, 0o644)
        let repaired = try await sandbox.storefront("products")
        #expect(repaired.stderr.contains("warning") && mode(sandbox.store) == 0o600, "\(repaired)")
    }

    /// (8) A refunded row put back with its old JWS (an older signed version of itself) is found by doctor.
    @Test func anUndoneRefundIsFound() async throws {
        let sandbox = try Sandbox()
        let bought = try await sandbox.storefront("buy", Demo.swiftShopping, "--json").jsonObject()
        let id = try #require((bought["transaction"] as? [String: Any])?["id"] as? Int)
        try StoreFileTests.sqlite(sandbox.store, "CREATE TABLE old AS SELECT * FROM transactions")
        try await sandbox.storefront("refund", String(id)).expect(exit: 0)
        try StoreFileTests.sqlite(sandbox.store, "DELETE FROM transactions; INSERT INTO transactions SELECT * FROM old; DROP TABLE old")
        let doctor = try await sandbox.run(["--store", sandbox.store, "doctor"])
        doctor.expect(exit: 1)
        #expect(doctor.stdout.contains("older version of itself"), "\(doctor)")
    }

    /// (9) Drafts of a creation that died go at the next open; empty -wal and -shm are not damage.
    @Test func litterIsRemovedAndEmptyJournalsAreNotDamage() async throws {
        let sandbox = try Sandbox()
        try await sandbox.storefront("buy", Demo.coins).expect(exit: 0)
        let draft = try sandbox.write("store.sqlite.new-999999-1", Data("half".utf8))
        try sandbox.write("store.sqlite.new-999999-1-journal", Data())
        try await sandbox.storefront("products").expect(exit: 0)
        #expect(!FileManager.default.fileExists(atPath: draft))
        #expect(!FileManager.default.fileExists(atPath: draft + "-journal"))
        for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: sandbox.store + suffix) }
        try sandbox.write("store.sqlite-wal", Data())
        try sandbox.write("store.sqlite-shm", Data())
        chmod(sandbox.store + "-wal", 0o600)
        chmod(sandbox.store + "-shm", 0o600)
        let doctor = try await sandbox.run(["--store", sandbox.store, "doctor"])
        doctor.expect(exit: 0)
    }
}
