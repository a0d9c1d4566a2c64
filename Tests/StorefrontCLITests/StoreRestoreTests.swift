import Foundation
import Glibc
import Testing
import TestSupport

/// A Python process that opens the store file as any SQLite program does and reads, then holds
/// it (its -wal and -shm mapped) until killed, or until a file `stop` appears beside it: it then
/// writes its log back into the file, closes and exits.
private let readerScript = """
    import os, sqlite3, sys, time
    db = sqlite3.connect(sys.argv[1])
    db.execute("SELECT count(*) FROM transactions").fetchall()
    print("holding", flush=True)
    while not os.path.exists(sys.argv[2]):
        time.sleep(0.05)
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
    db.close()
    print("closed", flush=True)
    """

/// Takes an entry from the index `transactions_by_account` (its leaf says it holds one cell
/// fewer): `integrity_check`'s "wrong # of entries in index", as a copy put over a
/// store under a running process left it.
private let damageScript = """
    import sqlite3, sys
    db = sqlite3.connect(sys.argv[1])
    root = db.execute("SELECT rootpage FROM sqlite_master WHERE name = 'transactions_by_account'").fetchone()[0]
    size = db.execute("PRAGMA page_size").fetchone()[0]
    db.close()
    with open(sys.argv[1], "r+b") as f:
        f.seek((root - 1) * size)
        page = f.read(5)
        assert page[0] == 0x0a, page[0]
        cells = int.from_bytes(page[3:5], "big")
        f.seek((root - 1) * size + 3)
        f.write((cells - 1).to_bytes(2, "big"))
    print("damaged", flush=True)
    """

/// Issue 43 (6): a log left by a killed process, or another store's, is never replayed onto a
/// file it was not written for; a damaged file is never written; `store restore` puts a backup
/// back under running processes. Each failed on the code before.
@Suite("Store restore and the log's owner")
struct StoreRestoreTests {
    /// Starts the reader on the sandbox's store; waits until it has the file open.
    func hold(_ sandbox: Sandbox) async throws -> (process: BackgroundProcess, stop: String) {
        let script = try sandbox.write("reader.py", readerScript)
        let stop = sandbox.path("stop-holding")
        let reader = try BackgroundProcess(URL(fileURLWithPath: "/usr/bin/python3"), [script, sandbox.store, stop], in: sandbox.folder)
        _ = try await reader.wait(for: "(holding)", seconds: 120)
        return (reader, stop)
    }

    /// Kills the reader with SIGKILL: its -wal and -shm stay, with the frames in them.
    func kill9(_ reader: (process: BackgroundProcess, stop: String)) async {
        kill(reader.process.pid, SIGKILL)
        _ = await reader.process.stop()
    }

    func doctor(_ sandbox: Sandbox) async throws -> [String: Any] {
        try await sandbox.run(["doctor", "--store", sandbox.store, "--json"]).jsonObject()
    }

    /// The documented restore after a SIGKILL (stop every process, move the backup into place):
    /// the dead process's log was replayed into the backup (its 2 transactions became 5) and the
    /// doctor passed it. It is refused, the doctor names it, and with the log moved aside the
    /// backup is as it was.
    @Test func aKilledProcesssLogIsNotReplayedOntoTheBackupMovedIntoPlace() async throws {
        let sandbox = try Sandbox()
        try await sandbox.storefront("buy", Demo.swiftShopping).expect(exit: 0)
        try await sandbox.storefront("buy", Demo.coins).expect(exit: 0)
        let backup = sandbox.path("backup.sqlite")
        try FileManager.default.copyItem(atPath: sandbox.store, toPath: backup)
        let reader = try await hold(sandbox)
        for _ in 0..<3 { try await sandbox.storefront("buy", Demo.coins).expect(exit: 0) }
        await kill9(reader)
        #expect(FileManager.default.fileExists(atPath: sandbox.store + "-wal"))
        #expect(rename(backup, sandbox.store) == 0)
        let refused = try await sandbox.storefront("buy", Demo.coins)
        #expect(refused.status == 74, "\(refused)")
        #expect(refused.stderr.contains("its -wal holds another file's changes"), "\(refused)")
        #expect(refused.stderr.contains("store restore BACKUP"), "\(refused)")
        let checkup = try await doctor(sandbox)
        #expect(checkup["healthy"] as? Bool == false, "\(checkup)")
        #expect(checkup.objects("problems").contains { $0["check"] as? String == "wal" }, "\(checkup)")
        for suffix in ["-wal", "-shm"] { #expect(rename(sandbox.store + suffix, sandbox.path("aside" + suffix)) == 0) }
        try await sandbox.storefront("buy", Demo.coins).expect(exit: 0)
        let after = try await doctor(sandbox)
        #expect(after["healthy"] as? Bool == true && after["transactions"] as? Int == 3, "\(after)")
    }

    /// Store A's -wal and -shm beside store B replaced B's purchases with A's, and the next buy
    /// wrote into the mixed file. Refused; `store restore` from B's backup puts B back.
    @Test func anotherStoresLogBesideAStoreIsRefused() async throws {
        let first = try Sandbox()
        try await first.storefront("buy", Demo.swiftShopping).expect(exit: 0)
        let reader = try await hold(first)
        for _ in 0..<3 { try await first.storefront("buy", Demo.coins).expect(exit: 0) }
        await kill9(reader)
        let second = try Sandbox()
        try await second.storefront("buy", Demo.goPro).expect(exit: 0)
        let backup = second.path("backup.sqlite")
        try FileManager.default.copyItem(atPath: second.store, toPath: backup)
        for suffix in ["-wal", "-shm"] { try FileManager.default.copyItem(atPath: first.store + suffix, toPath: second.store + suffix) }
        let refused = try await second.storefront("buy", Demo.coins)
        #expect(refused.status == 74 && refused.stderr.contains("its -wal holds another file's changes"), "\(refused)")
        let restored = try await second.storefront("store", "restore", backup)
        restored.expect(exit: 0)
        #expect(restored.stdout.contains("1 transaction."), "\(restored)")
        try await second.storefront("buy", Demo.coins).expect(exit: 0)
        let checkup = try await doctor(second)
        #expect(checkup["healthy"] as? Bool == true && checkup["transactions"] as? Int == 2, "\(checkup)")
        let listed = try await second.storefront("transactions", "--json").jsonObject()
        #expect(listed.objects("transactions").first?["productID"] as? String == Demo.goPro, "B's own purchase: \(listed)")
    }

    /// `store restore` under a running reader: one more commit to it, the backup's purchases read
    /// at once by every process, and the file whole when the reader closes.
    @Test func restoreUnderARunningReader() async throws {
        let sandbox = try Sandbox()
        try await sandbox.storefront("buy", Demo.swiftShopping).expect(exit: 0)
        let backup = sandbox.path("backup.sqlite")
        try FileManager.default.copyItem(atPath: sandbox.store, toPath: backup)
        for _ in 0..<2 { try await sandbox.storefront("buy", Demo.coins).expect(exit: 0) }
        let reader = try await hold(sandbox)
        let restored = try await sandbox.storefront("store", "restore", backup, "--json")
        restored.expect(exit: 0)
        #expect(try restored.jsonObject()["transactions"] as? Int == 1, "\(restored)")
        let listed = try await sandbox.storefront("transactions", "--json").jsonObject()
        #expect(listed.objects("transactions").map { $0["productID"] as? String } == [Demo.swiftShopping], "\(listed)")
        _ = FileManager.default.createFile(atPath: reader.stop, contents: Data())
        _ = try await reader.process.wait(for: "(closed)", seconds: 120)
        await reader.process.stop()
        let checkup = try await doctor(sandbox)
        #expect(checkup["healthy"] as? Bool == true && checkup["transactions"] as? Int == 1, "\(checkup)")
    }

    /// A backup that is not sound (here: damaged) is refused before anything is changed.
    @Test func anUnsoundBackupIsNotRestored() async throws {
        let sandbox = try Sandbox()
        try await sandbox.storefront("buy", Demo.swiftShopping).expect(exit: 0)
        let backup = sandbox.path("backup.sqlite")
        try FileManager.default.copyItem(atPath: sandbox.store, toPath: backup)
        let script = try sandbox.write("damage.py", damageScript)
        #expect(Processes.run(["/usr/bin/python3", script, backup]).stdout.contains("damaged"))
        try await sandbox.storefront("buy", Demo.coins).expect(exit: 0)
        let before = try Data(contentsOf: URL(fileURLWithPath: sandbox.store))
        let refused = try await sandbox.storefront("store", "restore", backup)
        #expect(refused.status == 74 && refused.stderr.contains("is not a sound store file to restore"), "\(refused)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: sandbox.store)) == before)
    }

    /// A damaged store file (an index that misses an entry): the next buy exited 0 and wrote into
    /// it. It is refused with 74, naming quick_check's finding, and the file is left as it was.
    @Test func aDamagedFileIsRefusedBeforeAWrite() async throws {
        let sandbox = try Sandbox()
        for _ in 0..<3 { try await sandbox.storefront("buy", Demo.coins).expect(exit: 0) }
        let script = try sandbox.write("damage.py", damageScript)
        #expect(Processes.run(["/usr/bin/python3", script, sandbox.store]).stdout.contains("damaged"))
        let before = try Data(contentsOf: URL(fileURLWithPath: sandbox.store))
        let refused = try await sandbox.storefront("buy", Demo.coins)
        #expect(refused.status == 74, "\(refused)")
        #expect(refused.stderr.contains("is damaged (PRAGMA quick_check:"), "\(refused)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: sandbox.store)) == before)
    }
}
