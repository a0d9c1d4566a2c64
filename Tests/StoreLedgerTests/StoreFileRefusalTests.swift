import Foundation
import Testing
@testable import StoreLedger

/// Opening `path` as a store file must fail with a StoreFileError whose reason
/// contains `words`, leaving the file byte-for-byte as it was and adding nothing beside it.
private func expectRefused(_ path: String, in folder: String, saying words: [String],
                           sourceLocation: SourceLocation = #_sourceLocation) throws {
    var isDirectory: ObjCBool = false
    _ = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
    let bytesBefore = isDirectory.boolValue ? nil : try fileBytes(path)
    let folderBefore = try folderContents(folder)
    do {
        _ = try Ledger(path: path)
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

/// The ledger refuses what is not a store file and leaves it as it was.
@Suite("Store file refusals")
struct StoreFileRefusalTests {
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
            try Data(contentsOf: URL(fileURLWithPath: bundledCatalogPath)).write(to: URL(fileURLWithPath: catalog))
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
}
