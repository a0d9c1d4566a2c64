import CSQLite
import Foundation
import Testing
import TestSupport

/// Where the store file is, and what happens to files that are not store files.
@Suite("Store file (process)")
struct StoreFileTests {
    /// Runs SQL on a database file with SQLite itself, as another application would.
    static func sqlite(_ path: String, _ sql: String) throws {
        var db: OpaquePointer?
        defer { sqlite3_close(db) }
        guard openWithSQLite(path, &db) == SQLITE_OK else {
            throw SQLiteFailure(message: String(cString: sqlite3_errmsg(db)))
        }
        var message: UnsafeMutablePointer<CChar>?
        guard sqlite3_exec(db, sql, nil, nil, &message) == SQLITE_OK else {
            defer { sqlite3_free(message) }
            throw SQLiteFailure(message: message.map { String(cString: $0) } ?? "?")
        }
    }

    struct SQLiteFailure: Error { var message: String }

    func transactionCount(_ run: RunResult) throws -> Int {
        try run.jsonObject().objects("transactions").count
    }

    // MARK: - Location

    @Test func theStoreFlagWinsOverTheEnvironment() async throws {
        let sandbox = try Sandbox()
        let flagged = sandbox.path("flag.sqlite")
        let fromEnv = sandbox.path("env.sqlite")
        let env = ["STOREFRONT_STORE": fromEnv]
        let buy = try await sandbox.run(["-c", Binary.catalog, "--store", flagged, "buy", Demo.swiftShopping],
                                        environment: env)
        buy.expect(exit: 0)
        #expect(FileManager.default.fileExists(atPath: flagged))
        #expect(!FileManager.default.fileExists(atPath: fromEnv))

        let flag = try await sandbox.run(["-c", Binary.catalog, "--store=\(flagged)", "transactions", "--json"],
                                         environment: env)
        #expect(try transactionCount(flag) == 1)
    }

    @Test func theEnvironmentIsUsedWithoutTheFlag() async throws {
        let sandbox = try Sandbox()
        let fromEnv = sandbox.path("env.sqlite")
        let env = ["STOREFRONT_STORE": fromEnv]
        try await sandbox.run(["-c", Binary.catalog, "buy", Demo.swiftShopping], environment: env).expect(exit: 0)
        #expect(FileManager.default.fileExists(atPath: fromEnv))
        #expect(!FileManager.default.fileExists(atPath: sandbox.home + "/.local/state/storefront/store.sqlite"))

        let again = try await sandbox.run(["-c", Binary.catalog, "transactions", "--json"], environment: env)
        #expect(try transactionCount(again) == 1)
        // Another process without the variable uses another (the default) store.
        let other = try await sandbox.run(["-c", Binary.catalog, "transactions", "--json"])
        #expect(try transactionCount(other) == 0)
    }

    @Test func anEmptyEnvironmentVariableMeansTheDefault() async throws {
        let sandbox = try Sandbox()
        let run = try await sandbox.run(["-c", Binary.catalog, "buy", Demo.coins], environment: ["STOREFRONT_STORE": ""])
        run.expect(exit: 0)
        #expect(FileManager.default.fileExists(atPath: sandbox.home + "/.local/state/storefront/store.sqlite"))
    }

    @Test func theDefaultStoreIsCreatedWithItsFolderUnderHome() async throws {
        let sandbox = try Sandbox()
        let expected = sandbox.home + "/.local/state/storefront/store.sqlite"
        #expect(!FileManager.default.fileExists(atPath: sandbox.home + "/.local"))
        try await sandbox.run(["-c", Binary.catalog, "buy", Demo.swiftShopping]).expect(exit: 0)
        #expect(FileManager.default.fileExists(atPath: expected))

        // A second process finds the purchase there, and so does one naming the file.
        let second = try await sandbox.run(["-c", Binary.catalog, "transactions", "--json"])
        #expect(try transactionCount(second) == 1)
        let named = try await sandbox.run(["-c", Binary.catalog, "-s", expected, "transactions", "--json"])
        #expect(try transactionCount(named) == 1)
    }

    @Test func theDefaultStoreFollowsXDGStateHome() async throws {
        let sandbox = try Sandbox()
        let state = sandbox.path("xdg/state")
        try await sandbox.run(["-c", Binary.catalog, "buy", Demo.swiftShopping],
                              environment: ["XDG_STATE_HOME": state]).expect(exit: 0)
        #expect(FileManager.default.fileExists(atPath: state + "/storefront/store.sqlite"))
        #expect(!FileManager.default.fileExists(atPath: sandbox.home + "/.local/state/storefront/store.sqlite"))
    }

    @Test func aNamedStoreInAMissingFolderIsRefused() async throws {
        let sandbox = try Sandbox()
        let path = sandbox.path("no/such/folder/store.sqlite")
        let run = try await sandbox.run(["-c", Binary.catalog, "--store", path, "buy", Demo.coins])
        run.expect(exit: 74)
        #expect(run.stdout.isEmpty)
        #expect(run.stderr.contains(sandbox.path("no/such/folder")), "\(run)")
        #expect(!FileManager.default.fileExists(atPath: sandbox.path("no")))
    }

    // MARK: - Files that are not store files (74, untouched)

    /// Runs several commands against `path` and checks each exits 74 naming the
    /// file, and that the file and its folder are exactly as they were.
    func expectRefused(_ sandbox: Sandbox, _ path: String, saying reason: String,
                       sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let folder = (path as NSString).deletingLastPathComponent
        let filesBefore = try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
        for arguments in [["products"], ["buy", Demo.swiftShopping], ["reset", "all"],
                          ["settings", "set", "canMakePayments", "false"]] {
            let run = try await sandbox.run(["-c", Binary.catalog, "--store", path] + arguments,
                                            sourceLocation: sourceLocation)
            run.expect(exit: 74, sourceLocation: sourceLocation)
            #expect(run.stdout.isEmpty, "\(run)", sourceLocation: sourceLocation)
            #expect(run.stderr.contains(path), "names the file:\n\(run)", sourceLocation: sourceLocation)
            #expect(run.stderr.contains(reason), "says why:\n\(run)", sourceLocation: sourceLocation)
        }
        let after = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(after == before, "the file was modified", sourceLocation: sourceLocation)
        // No -wal, -shm or -journal file left beside it either.
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).sorted() == filesBefore,
                sourceLocation: sourceLocation)
    }

    @Test func randomBytesAreRefusedAndLeftUnchanged() async throws {
        let sandbox = try Sandbox()
        var generator = SystemRandomNumberGenerator()
        let bytes = Data((0..<8192).map { _ in UInt8.random(in: 0...255, using: &generator) })
        let path = try sandbox.write("random.sqlite", bytes)
        try await expectRefused(sandbox, path, saying: "not a store file")
    }

    @Test func aTextFileIsRefusedAndLeftUnchanged() async throws {
        let sandbox = try Sandbox()
        let path = try sandbox.write("notes.txt", "shopping list:\n- milk\n")
        try await expectRefused(sandbox, path, saying: "not a store file")
    }

    @Test func anotherApplicationsDatabaseIsRefusedAndLeftUnchanged() async throws {
        let sandbox = try Sandbox()
        let path = sandbox.path("other.db")
        try Self.sqlite(path, "CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('keep me');")
        try await expectRefused(sandbox, path, saying: "another application")
    }

    @Test func aDatabaseWithAnotherApplicationIDIsRefused() async throws {
        let sandbox = try Sandbox()
        let path = sandbox.path("tagged.db")
        // Empty of tables, but claimed by another application.
        try Self.sqlite(path, "PRAGMA application_id = 1234; CREATE TABLE t (x); DROP TABLE t;")
        try await expectRefused(sandbox, path, saying: "another application")
    }

    @Test func aStoreFromANewerStorefrontIsRefusedAndLeftUnchanged() async throws {
        let sandbox = try Sandbox()
        try await sandbox.storefront("buy", Demo.swiftShopping).expect(exit: 0)
        try Self.sqlite(sandbox.store, "PRAGMA wal_checkpoint(TRUNCATE); PRAGMA user_version = 99;")
        try await expectRefused(sandbox, sandbox.store, saying: "newer")
    }

    @Test func anEmptyFileIsRefused() async throws {
        let sandbox = try Sandbox()
        let path = try sandbox.write("empty.sqlite", Data())
        try await expectRefused(sandbox, path, saying: "empty")
    }

    @Test func aFolderIsRefused() async throws {
        let sandbox = try Sandbox()
        let path = sandbox.path("folder.sqlite")
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        let run = try await sandbox.storefront(["products"], store: path)
        run.expect(exit: 74)
        #expect(run.stderr.contains("folder"), "\(run)")
    }

    // MARK: - Damaged files, full disks, read-only files (74, untouched)

    /// A store file with a few purchases, checkpointed, so the main file holds everything.
    func storeWithPurchases(_ sandbox: Sandbox) async throws -> Data {
        try await sandbox.storefront("buy", Demo.swiftShopping).expect(exit: 0)
        for _ in 0..<3 { try await sandbox.storefront("buy", Demo.coins).expect(exit: 0) }
        return try Data(contentsOf: URL(fileURLWithPath: sandbox.store))
    }

    @Test func aTruncatedStoreIsRefusedAndLeftUnchanged() async throws {
        let sandbox = try Sandbox()
        let store = try await storeWithPurchases(sandbox)
        // Cut inside the last page: SQLite alone would open this and write to it.
        let path = try sandbox.write("truncated.sqlite", store.prefix(store.count - 1))
        chmod(path, 0o600)
        try await expectRefused(sandbox, path, saying: "truncated")
        let halved = try sandbox.write("halved.sqlite", store.prefix(store.count / 2))
        chmod(halved, 0o600)
        try await expectRefused(sandbox, halved, saying: "damaged")
    }

    @Test func aFullDiskIsAClearErrorAndLosesNothing() async throws {
        let sandbox = try Sandbox()
        let before = try await storeWithPurchases(sandbox)
        let binary = try #require(Binary.url)
        // A file-size limit below SQLite's shared-memory file: the first write fails, as on a full disk.
        let run = try await Sandbox.launch(
            URL(fileURLWithPath: "/bin/bash"),
            arguments: ["-c", "trap '' XFSZ; ulimit -f 8; exec \"$0\" \"$@\"", binary.path,
                        "--catalog", Binary.catalog, "--store", sandbox.store, "buy", Demo.coins],
            environment: ["PATH": "/usr/bin:/bin", "HOME": sandbox.home], directory: sandbox.folder)
        run.expect(exit: 74)
        #expect(run.stdout.isEmpty, "no purchase is reported")
        #expect(run.stderr.contains("File too large"), "says why:\n\(run)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: sandbox.store)) == before)
        // With room again, the store works and has exactly what it had (finished consumables included).
        try await sandbox.storefront("settings", "set", "includeConsumablesInHistory", "true").expect(exit: 0)
        let history = try await sandbox.storefront("transactions", "--json")
        #expect(try transactionCount(history) == 4)
    }

    @Test func aStoreOnAReadOnlyFileSystemIsRefusedAndLeftUnchanged() async throws {
        let sandbox = try Sandbox()
        let before = try await storeWithPurchases(sandbox)
        // Root writes through any file mode, so root gets a read-only bind mount instead.
        let mounted = getuid() == 0
        if mounted {
            let folder = sandbox.folder.path
            let mount = try await Sandbox.launch(
                URL(fileURLWithPath: "/bin/sh"),
                arguments: ["-c", "mount --bind \"$0\" \"$0\" && mount -o remount,ro,bind \"$0\"", folder],
                environment: ["PATH": "/usr/sbin:/usr/bin:/sbin:/bin"], directory: URL(fileURLWithPath: "/"))
            try #require(mount.status == 0, "cannot mount read-only here: \(mount.stderr)")
        } else {
            chmod(sandbox.store, 0o400)
        }
        defer {
            if mounted { _ = Processes.run(["/bin/umount", sandbox.folder.path]) }
        }
        for arguments in [["buy", Demo.coins], ["products"]] {
            let run = try await sandbox.storefront(arguments)
            run.expect(exit: 74)
            #expect(run.stderr.contains("read-only"), "\(run)")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: sandbox.store)) == before)
    }

    @Test func aNewStoreAndItsWALAreReadableByTheOwnerOnly() async throws {
        let sandbox = try Sandbox()
        try await sandbox.storefront("buy", Demo.coins).expect(exit: 0)
        // Keep a connection open so -wal and -shm exist, as while the paywall runs.
        var db: OpaquePointer?
        #expect(openWithSQLite(sandbox.store, &db) == SQLITE_OK)
        defer { sqlite3_close(db) }
        #expect(sqlite3_exec(db, "SELECT count(*) FROM transactions", nil, nil, nil) == SQLITE_OK)
        for file in [sandbox.store, sandbox.store + "-wal", sandbox.store + "-shm"] {
            let mode = try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int
            #expect(mode == 0o600, "\(file)")
        }
    }
}
