import Foundation
@testable import StoreLedger
import StoreCatalog
import Testing

/// A store path is a path (issue 43): its folder is found without Foundation's trap on one
/// character, and SQLite is never handed a name it would read as an in-memory database.
@Suite("Store paths")
struct StorePathTests {
    @Test("pathFolder is deletingLastPathComponent's answer, and one character is no crash")
    func folders() {
        for path in ["a/b", "/b", "/", "ab", "a//b", "a/b/", "/x/y/z.sqlite", "./q", "../q", "a b/c"] {
            #expect(path.pathFolder == (path as NSString).deletingLastPathComponent, "\(path)")
        }
        // Foundation on Linux traps (SIGILL) on these: the values NSString gives for two characters.
        for path in ["q", "-", "z", ":"] { #expect(path.pathFolder == "") }
    }

    @Test("plainPath puts ./ before a relative path, so :memory:, file:…?mode=memory and an empty path are files")
    func plainPaths() {
        #expect(SQLiteDatabase.plainPath(":memory:") == "./:memory:")
        #expect(SQLiteDatabase.plainPath("file:x?mode=memory") == "./file:x?mode=memory")
        #expect(SQLiteDatabase.plainPath("q") == "./q")
        #expect(SQLiteDatabase.plainPath("") == "./")
        #expect(SQLiteDatabase.plainPath("/tmp/s.sqlite") == "/tmp/s.sqlite")
    }
}
