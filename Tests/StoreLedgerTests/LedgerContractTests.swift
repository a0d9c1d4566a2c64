import Foundation
import Synchronization
import Testing
@testable import StoreLedger

/// What the ledger promises the engine, whichever backend keeps the store: each test runs on a
/// SQLite file and on the run's PostgreSQL cluster. (What each refuses, a foreign or newer store,
/// is backend-shaped: StoreFileRefusalTests and PostgreSQLLedgerTests.)
@Suite("Ledger contract, on both backends")
struct LedgerContractTests {
    /// A new, empty store on `backend`, and a way to open ledgers on it (each its own connection).
    final class FreshStore: Sendable {
        let address: StoreAddress
        private let folder: TemporaryFolder?

        init(_ backend: TestBackend, named name: String) throws {
            switch backend {
            case .sqlite:
                let folder = try TemporaryFolder(prefix: "ledger-contract")
                self.folder = folder
                address = .file(folder.path("store.sqlite"))
            case .postgreSQL:
                folder = nil
                address = .postgreSQL(try PostgreSQLServer.shared().freshSchema(named: name))
            }
        }

        func open() throws -> Ledger {
            try Ledger.open(address, bundleID: "com.example.contract", createFolder: false, now: Date.init)
        }
    }

    static let backends: [TestBackend] = [.sqlite, .postgreSQL]

    @Test("a write is all or nothing: one that throws midway leaves no change for anyone", arguments: backends)
    func writeIsAtomic(_ backend: TestBackend) throws {
        let store = try FreshStore(backend, named: "atomic")
        let writer = try store.open()
        struct Stop: Error {}
        #expect(throws: Stop.self) {
            try writer.write {
                try writer.setSetting("first", account: "", value: "1")
                try writer.setSetting("second", account: "", value: "2")
                throw Stop()
            }
        }
        for ledger in [writer, try store.open()] {
            #expect(try ledger.setting("first", account: "") == nil)
            #expect(try ledger.setting("second", account: "") == nil)
        }
        try writer.write(durable: false) { try writer.setSetting("first", account: "", value: "kept") }
        #expect(try store.open().setting("first", account: "") == "kept")
    }

    @Test("inside a write a setting reads as last written, a failed inner write's changes are gone, and the next write sees another ledger's", arguments: backends)
    func writeReadsItsOwnSettings(_ backend: TestBackend) throws {
        let store = try FreshStore(backend, named: "own_settings")
        let ledger = try store.open(), other = try store.open()
        struct Stop: Error {}
        try ledger.write {
            #expect(try ledger.setting("mode", account: "a") == nil)
            try ledger.setSetting("mode", account: "a", value: "one")
            try ledger.setSetting("kept", account: "a", value: "yes")
            #expect(try ledger.setting("mode", account: "a") == "one")
            #expect(throws: Stop.self) {
                try ledger.write {
                    try ledger.setSetting("mode", account: "a", value: "two")
                    try ledger.removeSetting("kept", account: "a")
                    #expect(try ledger.setting("mode", account: "a") == "two")
                    #expect(try ledger.setting("kept", account: "a") == nil)
                    throw Stop()
                }
            }
            #expect(try ledger.setting("mode", account: "a") == "one")
            #expect(try ledger.setting("kept", account: "a") == "yes")
            try ledger.removeSetting("mode", account: "a")
            #expect(try ledger.setting("mode", account: "a") == nil)
        }
        try other.write { try other.setSetting("mode", account: "a", value: "theirs") }
        #expect(try ledger.write { try ledger.setting("mode", account: "a") } == "theirs")
        #expect(try ledger.read { try ledger.setting("kept", account: "a") } == "yes")
    }

    @Test("a read sees one state while another ledger commits; the next read sees the commit", arguments: backends)
    func readIsOneState(_ backend: TestBackend) throws {
        let store = try FreshStore(backend, named: "snapshot")
        let reader = try store.open(), writer = try store.open()
        try writer.write { try writer.setSetting("colour", account: "", value: "red") }
        let (before, during) = try reader.read { () throws -> (String?, String?) in
            let before = try reader.setting("colour", account: "")
            try writer.write { try writer.setSetting("colour", account: "", value: "blue") }
            return (before, try reader.setting("colour", account: ""))
        }
        #expect(before == "red" && during == "red")
        #expect(try reader.setting("colour", account: "") == "blue")
    }

    @Test("writes from two ledgers at once are serialised: no increment is lost", arguments: backends)
    func concurrentWritesSerialise(_ backend: TestBackend) async throws {
        let store = try FreshStore(backend, named: "counter")
        let first = try store.open()
        try first.write { try first.setSetting("count", account: "", value: "0") }
        let perWriter = 40
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<2 {
                let ledger = try store.open()
                group.addTask {
                    for _ in 0..<perWriter {
                        try ledger.write {
                            let count = Int(try ledger.setting("count", account: "") ?? "") ?? -1_000
                            try ledger.setSetting("count", account: "", value: String(count + 1))
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try store.open().setting("count", account: "") == String(2 * perWriter))
    }

    @Test("transaction ids are above 2,000,000,000, rise, and are never reused after a delete", arguments: backends)
    func idsRiseAndAreNeverReused(_ backend: TestBackend) throws {
        let store = try FreshStore(backend, named: "ids")
        let one = try store.open(), other = try store.open()
        let first = try one.write { try one.insertTestPurchase(account: "contract") }
        try one.write { try one.delete(transactionID: first.id) }
        let second = try other.write { try other.insertTestPurchase(account: "contract") }
        #expect(first.id > 2_000_000_000)
        #expect(second.id > first.id)
        #expect(try other.transaction(id: first.id) == nil)
        #expect(try one.transaction(id: second.id)?.productID == "com.example.monthly")
    }

    @Test("the signing identity is the store's: every ledger on it signs with the same key", arguments: backends)
    func signingIdentityIsKeptInTheStore(_ backend: TestBackend) throws {
        let store = try FreshStore(backend, named: "key")
        let keys = try (0..<3).map { _ in try store.open().signingIdentity.publicKeyPEM }
        #expect(Set(keys).count == 1)
        #expect(keys[0].hasPrefix("-----BEGIN PUBLIC KEY-----"))
    }

    @Test("the receipt signer is the store's: issued at first need, RSA, every ledger on it signs with the same key; a store made before its table gets both", arguments: backends)
    func receiptSignerIsKeptInTheStore(_ backend: TestBackend) throws {
        let store = try FreshStore(backend, named: "receiptkey")
        let first = try store.open()
        #expect(try first.db.scalar("SELECT count(*) FROM receipt_signing_key") == 0, "none until the first receipt")
        let signer = try first.receiptSigner()
        #expect(signer.key.isRSA && signer.chain.root.der != first.signingIdentity.rootCertificate.der)
        let keys = try (0..<2).map { _ in try store.open().receiptSigner().key.publicKeyPEM }
        #expect(Set(keys + [signer.key.publicKeyPEM]).count == 1)

        // A store of the storefront before it: no table. Opening makes it; the first receipt issues the key.
        try first.db.execute("DROP TABLE receipt_signing_key")
        let older = try store.open()
        #expect(try older.db.scalar("SELECT count(*) FROM receipt_signing_key") == 0)
        let issued = try older.receiptSigner()
        #expect(issued.key.isRSA && issued.key.publicKeyPEM != signer.key.publicKeyPEM)
        #expect(try store.open().receiptSigner().chain.x5c == issued.chain.x5c)
    }

    @Test("own changes count this ledger's writes, not another's: the feed tells them apart by it", arguments: backends)
    func ownChangesAreOwn(_ backend: TestBackend) throws {
        let store = try FreshStore(backend, named: "own")
        let mine = try store.open(), theirs = try store.open()
        let start = mine.ownChanges
        try theirs.write { try theirs.setSetting("theirs", account: "", value: "1") }
        #expect(mine.ownChanges == start)
        try mine.write { try mine.setSetting("mine", account: "", value: "1") }
        #expect(mine.ownChanges > start)
        // Reads change nothing, on either backend (libpq counts a SELECT's rows).
        let after = mine.ownChanges
        _ = try mine.read { try mine.setting("theirs", account: "") }
        #expect(mine.ownChanges == after)
    }
}
