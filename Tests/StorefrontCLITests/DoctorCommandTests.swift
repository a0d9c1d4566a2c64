import Foundation
import Testing

/// `storefront doctor`: says what is wrong with a store file, and never changes it.
@Suite("doctor (process)")
struct DoctorCommandTests {
    /// Runs `doctor --json` on `path` and checks that the file and its folder are
    /// exactly as before (no -wal or -shm made beside it).
    func doctor(_ sandbox: Sandbox, _ path: String, sourceLocation: SourceLocation = #_sourceLocation) async throws
        -> (run: RunResult, json: [String: Any]) {
        let folder = (path as NSString).deletingLastPathComponent
        let before = FileManager.default.contents(atPath: path)
        let filesBefore = try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
        let run = try await sandbox.run(["doctor", "--store", path, "--json"], sourceLocation: sourceLocation)
        run.expectNoCrashOutput(sourceLocation: sourceLocation)
        #expect(FileManager.default.contents(atPath: path) == before, "doctor changed the file", sourceLocation: sourceLocation)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).sorted() == filesBefore,
                "doctor left files beside it", sourceLocation: sourceLocation)
        return (run, try run.jsonObject(sourceLocation: sourceLocation))
    }

    func checks(_ json: [String: Any], _ key: String = "problems") -> [String] {
        json.objects(key).compactMap { $0["check"] as? String }
    }

    @Test func aHealthyStoreExits0AndCountsItsTransactions() async throws {
        let sandbox = try Sandbox()
        try await sandbox.storefront("buy", Demo.swiftShopping).expect(exit: 0)
        try await sandbox.storefront("buy", Demo.coins).expect(exit: 0)
        let (run, json) = try await doctor(sandbox, sandbox.store)
        run.expect(exit: 0)
        #expect(json["healthy"] as? Bool == true)
        #expect(json["transactions"] as? Int == 2)
        #expect(checks(json).isEmpty)
        let human = try await sandbox.run(["doctor", "--store", sandbox.store])
        human.expect(exit: 0)
        #expect(human.stdout.contains("integrity_check ok"))
        #expect(human.stdout.contains("Healthy."))
    }

    @Test func anEditedRowIsNamedByItsID() async throws {
        let sandbox = try Sandbox()
        let first = try await sandbox.storefront("buy", Demo.swiftShopping, "--json").jsonObject()
        try await sandbox.storefront("buy", Demo.coins).expect(exit: 0)
        let id = try #require((first["transaction"] as? [String: Any])?["id"] as? Int)
        try StoreFileTests.sqlite(sandbox.store, "UPDATE transactions SET price = '0' WHERE id = \(id)")
        let (run, json) = try await doctor(sandbox, sandbox.store)
        run.expect(exit: 1)
        let problem = try #require(json.objects("problems").first { $0["check"] as? String == "unverified" })
        #expect(problem["transactionIDs"] as? [Int] == [id], "only the edited row, by id")
    }

    @Test func unfinishedTransactionsAreANoteNotAProblem() async throws {
        let sandbox = try Sandbox()
        try await sandbox.storefront("settings", "set", "finishTransactions", "false").expect(exit: 0)
        try await sandbox.storefront("buy", Demo.coins).expect(exit: 0)
        let (run, json) = try await doctor(sandbox, sandbox.store)
        run.expect(exit: 0)
        #expect(checks(json, "notes") == ["unfinished"])
    }

    /// Issue 15: `finished = 0` written with sqlite3 re-delivered a consumable (2 → 4 coins) and
    /// doctor called the file healthy. The row's seal covers it now.
    @Test func anUnfinishedFlagWrittenBySQLiteIsAProblemAndDeliversNothing() async throws {
        let sandbox = try Sandbox()
        try await sandbox.storefront("buy", Demo.coins).expect(exit: 0)
        let balance = try await sandbox.storefront("balance").stdout
        try StoreFileTests.sqlite(sandbox.store, "UPDATE transactions SET finished = 0")
        let (run, json) = try await doctor(sandbox, sandbox.store)
        run.expect(exit: 1)
        #expect(checks(json, "problems") == ["unverified"])
        try await sandbox.storefront("products").expect(exit: 0)
        #expect(try await sandbox.storefront("balance").stdout == balance, "delivered again")
    }

    @Test func aMissingKeyIsANoteOnAnEmptyStoreAndAProblemBesideTransactions() async throws {
        let sandbox = try Sandbox()
        try await sandbox.storefront("products").expect(exit: 0)
        // As a store whose creator was killed before its key was written.
        try StoreFileTests.sqlite(sandbox.store, "DELETE FROM signing_key")
        let (empty, emptyJSON) = try await doctor(sandbox, sandbox.store)
        empty.expect(exit: 0)
        #expect(checks(emptyJSON, "notes") == ["key"])

        try await sandbox.storefront("buy", Demo.coins).expect(exit: 0)
        try StoreFileTests.sqlite(sandbox.store, "DELETE FROM signing_key")
        let (run, json) = try await doctor(sandbox, sandbox.store)
        run.expect(exit: 1)
        #expect(checks(json) == ["key"])
    }

    @Test func aStoreFileOthersCanReadIsAProblem() async throws {
        let sandbox = try Sandbox()
        try await sandbox.storefront("buy", Demo.coins).expect(exit: 0)
        chmod(sandbox.store, 0o644)
        let (run, json) = try await doctor(sandbox, sandbox.store)
        run.expect(exit: 1)
        #expect(checks(json) == ["mode"])
    }

    @Test func damagedFilesSayWhatIsWrong() async throws {
        let sandbox = try Sandbox()
        try await sandbox.storefront("buy", Demo.coins).expect(exit: 0)
        let store = try Data(contentsOf: URL(fileURLWithPath: sandbox.store))
        let cases: [(name: String, data: Data?, setup: String?, check: String)] = [
            ("empty.sqlite", Data(), nil, "empty"),
            ("text.sqlite", Data("not a database\n".utf8), nil, "format"),
            ("truncated.sqlite", store.prefix(store.count - 100), nil, "truncated"),
            ("other.sqlite", nil, "CREATE TABLE notes (body TEXT)", "application"),
            ("newer.sqlite", store, "PRAGMA user_version = 99", "schema"),
            ("tables.sqlite", store, "DROP TABLE events", "tables"),
        ]
        for item in cases {
            let path = sandbox.path(item.name)
            if let data = item.data { try sandbox.write(item.name, data) }
            if let sql = item.setup { try StoreFileTests.sqlite(path, sql) }
            chmod(path, 0o600)
            let (run, json) = try await doctor(sandbox, path)
            run.expect(exit: 1)
            #expect(checks(json).contains(item.check), "\(item.name): \(run)")
        }
    }

    @Test func aMissingFileOrAFolderCannotBeRead() async throws {
        let sandbox = try Sandbox()
        for path in [sandbox.path("missing.sqlite"), sandbox.folder.path] {
            let run = try await sandbox.run(["doctor", "--store", path])
            run.expect(exit: 74)
            #expect(run.stderr.contains("cannot be read"))
        }
        #expect(!FileManager.default.fileExists(atPath: sandbox.path("missing.sqlite")))
    }

    @Test func itNeedsNoCatalog() async throws {
        let sandbox = try Sandbox()
        try await sandbox.storefront("buy", Demo.coins).expect(exit: 0)
        let run = try await sandbox.run(["--catalog", sandbox.path("none.json"), "doctor", "--store", sandbox.store])
        run.expect(exit: 0)
    }
}
