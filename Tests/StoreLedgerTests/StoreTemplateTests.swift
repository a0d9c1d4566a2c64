import Foundation
import Glibc
import Testing
@testable import StoreLedger

/// A new store file made from a closed store's bytes (a test session's template, issue 44): made as
/// any new store is, a draft linked into place, so none of an existing file's checks run on it.
@Suite("Ledger: a new store made from a template")
struct StoreTemplateTests {
    /// A store made, written to and closed at `path`: its bytes and its public key.
    static func closedStore(at path: String) throws -> (bytes: [UInt8], key: String) {
        let key = try {
            let ledger = try Ledger(path: path)
            try StoreLogOwnerTests.write(ledger, 1)
            return ledger.signingIdentity.publicKeyPEM
        }()
        // Closed: its log written back into the file.
        return (try [UInt8](Data(contentsOf: URL(fileURLWithPath: path))), key)
    }

    @Test("made from the bytes: the template's key, the owner's alone, no draft left, and this process's open files never read")
    func madeThroughTheCreationPath() async throws {
        try await withTemporaryFolder { folder in
            let template = try Self.closedStore(at: folder + "/template.sqlite")
            #expect(!FileManager.default.fileExists(atPath: folder + "/template.sqlite-wal"))
            let kept = try Ledger(path: folder + "/kept.sqlite")
            let reads = StoreFileCompanions.Counter()
            let made = try StoreFileCompanions.$openFileReads.withValue(reads) {
                try Ledger(path: folder + "/store.sqlite", durability: .processCrashSafe, template: template.bytes)
            }
            #expect(reads.count.load(ordering: .relaxed) == 0)
            #expect(made.signingIdentity.publicKeyPEM == template.key)
            #expect(made.signingIdentity.publicKeyPEM != kept.signingIdentity.publicKeyPEM)
            var info = stat()
            #expect(stat(folder + "/store.sqlite", &info) == 0 && info.st_mode & 0o777 == 0o600)
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.contains(".new-") }.isEmpty)
            // Its first write records its own file, not the template's.
            try StoreLogOwnerTests.write(made, 1)
            #expect(try made.db.scalar("SELECT inode FROM store_file") == Int64(bitPattern: UInt64(info.st_ino)))
            // The counter sees the check an existing file gets: the template's file opened again.
            let existing = try StoreFileCompanions.$openFileReads.withValue(reads) { try Ledger(path: folder + "/template.sqlite") }
            #expect(reads.count.load(ordering: .relaxed) > 0)
            withExtendedLifetime((kept, existing)) {}
        }
    }

    @Test("a file at the path is opened as it is: the template is for a new store only")
    func anExistingFileIsNotReplaced() async throws {
        try await withTemporaryFolder { folder in
            let template = try Self.closedStore(at: folder + "/template.sqlite")
            let existing = try Self.closedStore(at: folder + "/store.sqlite")
            let opened = try Ledger(path: folder + "/store.sqlite", template: template.bytes)
            #expect(opened.signingIdentity.publicKeyPEM == existing.key)
        }
    }
}
