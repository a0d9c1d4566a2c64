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
    return try db.texts(sql)
}

@Suite("Store file", .fileStoreOnly)
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
