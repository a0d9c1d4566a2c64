import Foundation
import Glibc
import Testing
@testable import StoreEngine

/// Issue 30 (2): a store that keeps its file open notices when the path names another file, and
/// uses it no more. Before, it went on buying into a file no one would read again (moved over)
/// or laid its old log over a copy put in its place.
@Suite("Store file replaced", .fileStoreOnly)
struct StoreFileReplacementTests {
    /// A backup moved over the file (`mv backup.sqlite store.sqlite`): the open store refuses its
    /// next purchase, naming the reason, instead of making it in the file that was moved away.
    @Test func aFileMovedOverItIsNoticed() async throws {
        try await withStoreFixture { fixture in
            let backup = fixture.folder + "/backup.sqlite"
            do { _ = try await buy(try Store(catalog: fixture.catalog, path: backup, now: fixture.clock.closure), "pro") }
            let store = try fixture.open()
            _ = try await buy(store, "faces")
            #expect(await store.fileReplacement() == nil)
            #expect(rename(backup, fixture.path) == 0)
            do {
                _ = try await buy(store, "coins")
                Issue.record("bought into the file moved away")
            } catch {
                #expect("\(error)".contains("was replaced while this process had it open: its path names another file now"), "\(error)")
            }
            #expect(await store.fileReplacement()?.contains("moved, renamed over, or deleted") == true)
            // Every use refuses from then on, reads too.
            await #expect(throws: (any Error).self) { try await store.transactions() }
        }
    }

    /// A copy put over it in place (`cp backup.sqlite store.sqlite`: the same inode, shorter): the open
    /// store refuses its next purchase instead of writing it over the copy's pages.
    @Test func aCopyPutOverItInPlaceIsNoticed() async throws {
        try await withStoreFixture { fixture in
            do { _ = try await buy(try fixture.open(), "pro") }  // closed: the file is whole, no -wal
            let backup = try Data(contentsOf: URL(fileURLWithPath: fixture.path))
            do {
                let store = try fixture.open()
                for _ in 0..<40 { _ = try await buy(store, "coins") }
                // The log written into the file, as a checkpoint does after 1,000 pages: it grows.
                try SQLiteDatabase(path: fixture.path, create: false).execute("PRAGMA wal_checkpoint(TRUNCATE)")
                _ = try await store.transactions()  // a read, as a running process makes: it sees the file grown
                let handle = try #require(FileHandle(forWritingAtPath: fixture.path))
                try handle.truncate(atOffset: 0)
                try handle.write(contentsOf: backup)
                try handle.close()
                do {
                    _ = try await buy(store, "coins")
                    Issue.record("bought into a file overwritten under it")
                } catch {
                    #expect("\(error)".contains("it was overwritten (copied over, say): it shrank"), "\(error)")
                }
            }
            // The copy as it was put there: whole, with its one purchase.
            let reopened = try fixture.open()
            #expect(try await reopened.transactions().map(\.productID) == ["pro"])
            #expect(StoreDoctor.examine(path: fixture.path).isHealthy)
        }
    }

    /// Issue 43 (6): `store restore` under an open store is one more commit, not a replacement: the
    /// file shrinks at the checkpoint after it, but with its change counter raised, so the open store
    /// goes on, reading the backup's purchases and buying into the restored file.
    @Test func aRestoreUnderItIsOneMoreChange() async throws {
        try await withStoreFixture { fixture in
            do { _ = try await buy(try fixture.open(), "pro") }
            let backup = fixture.folder + "/backup.sqlite"
            try FileManager.default.copyItem(atPath: fixture.path, toPath: backup)
            let store = try fixture.open()
            for _ in 0..<40 { _ = try await buy(store, "coins") }
            try SQLiteDatabase(path: fixture.path, create: false).execute("PRAGMA wal_checkpoint(TRUNCATE)")
            _ = try await store.transactions()  // it sees the file grown
            let grown = try #require(try FileManager.default.attributesOfItem(atPath: fixture.path)[.size] as? Int)
            #expect(try StoreRestore.restore(from: backup, into: fixture.path).transactions == 1)
            try SQLiteDatabase(path: fixture.path, create: false).execute("PRAGMA wal_checkpoint(TRUNCATE)")
            #expect(try #require(try FileManager.default.attributesOfItem(atPath: fixture.path)[.size] as? Int) < grown)
            #expect(try await store.transactions().map(\.productID) == ["pro"])
            _ = try await buy(store, "coins")
            #expect(await store.fileReplacement() == nil)
            #expect(StoreDoctor.examine(path: fixture.path).isHealthy)
        }
    }
}
