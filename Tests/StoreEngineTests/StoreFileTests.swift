import Foundation
import Testing
@testable import StoreEngine

/// Opening `path` as a store file must fail with a StoreFileError whose reason
/// contains `words`, leaving the file byte-for-byte as it was and adding nothing beside it.
private func expectRefused(_ path: String, in folder: String, saying words: [String],
                           sourceLocation: SourceLocation = #_sourceLocation) throws {
    let catalog = try fixtureCatalog()
    var isDirectory: ObjCBool = false
    _ = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
    let bytesBefore = isDirectory.boolValue ? nil : try fileBytes(path)
    let folderBefore = try folderContents(folder)
    do {
        _ = try Store(catalog: catalog, path: path)
        Issue.record("the store file was accepted", sourceLocation: sourceLocation)
    } catch {
        #expect(error.path == path, sourceLocation: sourceLocation)
        for word in words {
            #expect(error.reason.contains(word), "reason: \(error.reason)", sourceLocation: sourceLocation)
        }
        #expect(error.description == "\(path): \(error.reason)", sourceLocation: sourceLocation)
    }
    if let bytesBefore {
        #expect(try fileBytes(path) == bytesBefore, "the refused file was modified", sourceLocation: sourceLocation)
    }
    #expect(try folderContents(folder) == folderBefore, "files appeared or vanished beside the refused file",
            sourceLocation: sourceLocation)
}

/// Makes an SQLite database at `path` by running `sql`, then closes it.
private func makeDatabase(_ path: String, _ sql: String) throws {
    let db = try SQLiteDatabase(path: path, create: true)
    try db.execute(sql)
}

/// Reads one text value from the database at `path`.
private func textValue(_ path: String, _ sql: String) throws -> [String] {
    let db = try SQLiteDatabase(path: path, create: false)
    return try db.rows(sql) { $0.text(0) }
}

@Suite("Store file")
struct StoreFileTests {
    @Test("a purchase survives a restart: a second Store on the file sees it")
    func persistence() async throws {
        try await withStoreFixture { fixture in
            let first: Transaction
            do {
                let store = try fixture.open()
                first = try await buy(store, "pro")
                try await store.finish(first)
                try await store.setSetting("storefront", to: "GBR")
            }
            let reopened = try fixture.open()
            #expect(try await reopened.transactions() == [try await reopened.transaction(id: first.id)])
            let stored = try await reopened.transaction(id: first.id)
            #expect(stored.productID == "pro")
            #expect(stored.purchaseDate == first.purchaseDate)
            #expect(stored.price == first.price)
            #expect(stored.isFinished)
            #expect(try await reopened.isEntitled(to: "pro"))
            #expect(try await reopened.ownedProducts()["pro"]?.id == first.id)
            #expect(try await reopened.storefront().countryCode == "GBR")
            // Ids keep increasing across the restart.
            #expect(try await buy(reopened, "faces").id > first.id)
        }
    }

    @Test("two stores open on one file see each other's writes at once")
    func twoConnections() async throws {
        try await withStoreFixture { fixture in
            let a = try fixture.open()
            let b = try fixture.open()
            let versionBefore = try await b.dataVersion()
            let bought = try await buy(a, "pro")
            #expect(try await b.dataVersion() != versionBefore)
            #expect(try await b.transactions().map(\.id) == [bought.id])
            try await b.finish(bought)
            #expect(try await a.ownedProducts()["pro"]?.id == bought.id)
            #expect(try await a.unfinished().isEmpty)
        }
    }

    @Test("four stores buying, finishing and consuming at the same time all succeed, with unique ids")
    func concurrentWriters() async throws {
        try await withStoreFixture { fixture in
            let stores = try (0..<4).map { _ in try fixture.open() }
            let ids = try await withThrowingTaskGroup(of: Int64.self) { group in
                for index in 0..<40 {
                    let store = stores[index % 4]
                    group.addTask {
                        let bought = try await buy(store, "coins")
                        try await store.finish(bought)
                        try await store.consume("coins")
                        return bought.id
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(Set(ids).count == 40)
            #expect(try await stores[0].transactions().count == 40)
            #expect(try await stores[1].balances()["coins"] == 0)
        }
    }

    @Test("a new store file is a WAL SQLite database marked as a store file")
    func newFile() async throws {
        try await withStoreFixture { fixture in
            _ = try await buy(try fixture.open(), "pro")
            #expect(try textValue(fixture.path, "PRAGMA journal_mode") == ["wal"])
            #expect(try textValue(fixture.path, "PRAGMA application_id") == [String(Ledger.applicationID)])
            #expect(try textValue(fixture.path, "PRAGMA user_version") == [String(Ledger.schemaVersion)])
            // Store side and app side in separate tables.
            let tables = Set(try textValue(fixture.path, "SELECT name FROM sqlite_master WHERE type = 'table'"))
            #expect(tables.isSuperset(of: ["accounts", "transactions", "settings", "events", "app_owned", "app_balances"]))
        }
    }

    @Test("a file of random bytes is refused and left untouched")
    func randomBytes() async throws {
        try await withTemporaryFolder { folder in
            let path = folder + "/garbage.sqlite"
            var generator = SystemRandomNumberGenerator()
            var bytes = (0..<8192).map { _ in UInt8.random(in: 0...255, using: &generator) }
            bytes[0] = 0x00  // never the SQLite magic by chance
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            try expectRefused(path, in: folder, saying: ["not a store file"])
        }
    }

    @Test("a text file is refused and left untouched")
    func textFile() async throws {
        try await withTemporaryFolder { folder in
            let short = folder + "/notes.txt"
            try Data("hello\nthis is not a database\n".utf8).write(to: URL(fileURLWithPath: short))
            try expectRefused(short, in: folder, saying: ["not a store file"])
            // The catalog passed as the store file by mistake.
            let catalog = folder + "/products.json"
            try Data(fixtureCatalogText.utf8).write(to: URL(fileURLWithPath: catalog))
            try expectRefused(catalog, in: folder, saying: ["not a store file"])
        }
    }

    @Test("a zero-byte file is refused and left in place")
    func zeroBytes() async throws {
        try await withTemporaryFolder { folder in
            let path = folder + "/empty.sqlite"
            #expect(FileManager.default.createFile(atPath: path, contents: Data()))
            try expectRefused(path, in: folder, saying: ["empty"])
            #expect(try fileBytes(path).isEmpty)
        }
    }

    @Test("another application's SQLite database is refused and left untouched")
    func foreignDatabase() async throws {
        try await withTemporaryFolder { folder in
            let notes = folder + "/notes.db"
            try makeDatabase(notes, """
                CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL);
                INSERT INTO notes (body) VALUES ('buy milk'), ('call mum');
                """)
            try expectRefused(notes, in: folder, saying: ["another application"])
            #expect(try textValue(notes, "SELECT body FROM notes ORDER BY id") == ["buy milk", "call mum"])

            // Marked with another application id, even without tables.
            let marked = folder + "/marked.db"
            try makeDatabase(marked, "PRAGMA application_id = 1234;")
            try expectRefused(marked, in: folder, saying: ["another application"])

            // An application id of ours is not enough when the schema is not.
            let withTables = folder + "/other-wal.db"
            try makeDatabase(withTables, """
                PRAGMA journal_mode = WAL;
                CREATE TABLE t (x);
                INSERT INTO t VALUES (1);
                """)
            try expectRefused(withTables, in: folder, saying: ["another application"])
        }
    }

    @Test("a blank database that another application has versioned is refused and left untouched")
    func versionedBlankDatabase() async throws {
        try await withTemporaryFolder { folder in
            // No tables and no application id, but a schema version of its own: not ours to take.
            let path = folder + "/versioned.db"
            try makeDatabase(path, "PRAGMA user_version = 7;")
            try expectRefused(path, in: folder, saying: ["another application"])
            #expect(try textValue(path, "PRAGMA user_version") == ["7"])
        }
    }

    @Test("a blank SQLite database (no id, no version, no tables) becomes a working store file")
    func blankDatabaseAdopted() async throws {
        try await withTemporaryFolder { folder in
            let path = folder + "/blank.db"
            try makeDatabase(path, "CREATE TABLE t (x); DROP TABLE t;")
            #expect(try fileBytes(path).count > 0)
            let store = try Store(catalog: try fixtureCatalog(), path: path)
            _ = try await buy(store, "pro")
            #expect(try await store.transactions().count == 1)
        }
    }

    @Test("many stores creating one new file at the same moment all succeed and share it")
    func concurrentCreation() async throws {
        try await withTemporaryFolder { folder in
            let path = folder + "/store.sqlite"
            let catalog = try fixtureCatalog()
            let ids = try await withThrowingTaskGroup(of: Int64.self) { group in
                for index in 0..<8 {
                    group.addTask {
                        let store = try Store(catalog: catalog, path: path, account: "tester\(index)@local")
                        return try await buy(store, "pro").id
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(Set(ids).count == 8)
            let accounts = try await Store(catalog: catalog, path: path).accounts()
            #expect(accounts.count == 8)
        }
    }

    @Test("creating a store file leaves nothing else behind once closed")
    func noLeftovers() async throws {
        try await withStoreFixture { fixture in
            do {
                let store = try fixture.open()
                _ = try await buy(store, "pro")
            }
            #expect(try folderContents(fixture.folder) == ["store.sqlite"])
        }
    }

    @Test("half-made store files of a process killed while creating the store are removed, a live one's kept")
    func abandonedDrafts() async throws {
        try await withStoreFixture { fixture in
            // No process has this id (pid_max is far lower); this test process is alive.
            let dead = "store.sqlite.new-2147483646-7", alive = "store.sqlite.new-\(getpid())-7"
            for name in [dead, dead + "-journal", alive] {
                #expect(FileManager.default.createFile(atPath: fixture.folder + "/" + name, contents: Data("x".utf8)))
            }
            _ = try await buy(try fixture.open(), "pro")
            #expect(try folderContents(fixture.folder) == [alive, "store.sqlite"].sorted())
        }
    }

    @Test("a store file of a newer schema is refused and left untouched")
    func newerSchema() async throws {
        try await withStoreFixture { fixture in
            do {
                let store = try fixture.open()
                _ = try await buy(store, "pro")
            }
            try makeDatabase(fixture.path, "PRAGMA user_version = \(Ledger.schemaVersion + 1);")
            #expect(try textValue(fixture.path, "PRAGMA user_version") == [String(Ledger.schemaVersion + 1)])
            try expectRefused(fixture.path, in: fixture.folder, saying: ["newer", "\(Ledger.schemaVersion + 1)"])
            #expect(try textValue(fixture.path, "PRAGMA user_version") == [String(Ledger.schemaVersion + 1)])
        }
    }

    @Test("a folder is refused and left alone")
    func folder() async throws {
        try await withTemporaryFolder { folder in
            let path = folder + "/store.sqlite"
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
            try Data("keep".utf8).write(to: URL(fileURLWithPath: path + "/inside.txt"))
            try expectRefused(path, in: folder, saying: ["folder"])
            #expect(try folderContents(path) == ["inside.txt"])
        }
    }

    @Test("a missing parent folder is an error unless createFolder is set")
    func missingFolder() async throws {
        try await withTemporaryFolder { folder in
            let path = folder + "/a/b/store.sqlite"
            let catalog = try fixtureCatalog()
            do {
                _ = try Store(catalog: catalog, path: path)
                Issue.record("a store file was made in a folder that does not exist")
            } catch let error as StoreFileError {
                #expect(error.path == path)
                #expect(error.reason.contains(folder + "/a/b"))
            }
            #expect(!FileManager.default.fileExists(atPath: folder + "/a"))

            let store = try Store(catalog: catalog, path: path, createFolder: true)
            _ = try await buy(store, "pro")
            #expect(FileManager.default.fileExists(atPath: path))
            #expect(try await Store(catalog: catalog, path: path).transactions().count == 1)
        }
    }
}

@Suite("Store file opening failures")
struct StoreFileOpeningFailureTests {
    @Test("a lock held past the timeout while the key loads or the schema migrates is busy, not damage",
          arguments: ["has an unusable signing key", "cannot be upgraded to the schema", "cannot be used"])
    func busyAtEveryStep(step: String) {
        let locked = SQLiteError(code: 5 /* SQLITE_BUSY */, message: "database is locked")
        let failure = Ledger.openingFailure(of: "/tmp/store.sqlite", step, locked)
        #expect(failure.isBusy)
        #expect(failure.reason == "is busy: database is locked")
        let sharedCache = SQLiteError(code: 6 /* SQLITE_LOCKED */, message: "database table is locked")
        #expect(Ledger.openingFailure(of: "/tmp/store.sqlite", step, sharedCache).isBusy)
    }

    @Test("any other failure keeps its step and is not busy")
    func otherFailures() {
        let damaged = SQLiteError(code: 11 /* SQLITE_CORRUPT */, message: "database disk image is malformed")
        let failure = Ledger.openingFailure(of: "/tmp/store.sqlite", "has an unusable signing key", damaged)
        #expect(!failure.isBusy)
        #expect(failure.reason == "has an unusable signing key: database disk image is malformed")
    }
}
