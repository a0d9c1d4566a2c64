import Foundation
import Glibc
import Testing
import TestSupport

/// A Python process holding the store file open as any SQLite program does (its -wal and -shm
/// mapped), until a file `stop` appears beside it; it then writes its log back into the file it
/// has open and empties it (as storefront's own processes do with a file moved away: SQLite's
/// close leaves a moved file's log beside the path), closes the connection and exits.
private let holderScript = """
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

/// Issue 30 (2, 9, 13, 16), the cases that need processes: each failed on the code before the fix.
@Suite("Reliability, round three: store files (process)")
struct ReliabilityRoundThreeStoreTests {
    /// Starts the holder on the sandbox's store; waits until it has the file open.
    func hold(_ sandbox: Sandbox) async throws -> (process: BackgroundProcess, stop: String) {
        let script = try sandbox.write("holder.py", holderScript)
        let stop = sandbox.path("stop-holding")
        let holder = try BackgroundProcess(URL(fileURLWithPath: "/usr/bin/python3"), [script, sandbox.store, stop],
                                           in: sandbox.folder)
        _ = try await holder.wait(for: "(holding)", seconds: 120)
        return (holder, stop)
    }

    func release(_ holder: (process: BackgroundProcess, stop: String)) async throws {
        _ = FileManager.default.createFile(atPath: holder.stop, contents: Data())
        _ = try await holder.process.wait(for: "(closed)", seconds: 120)
        await holder.process.stop()
    }

    func doctor(_ sandbox: Sandbox) async throws -> [String: Any] {
        try await sandbox.run(["doctor", "--store", sandbox.store, "--json"]).jsonObject()
    }

    /// (2) A backup moved over the store file while another process has it open: the next command
    /// would pair the backup with that process's -wal and -shm (the backup's purchase gone, the old
    /// rows back, integrity_check failing) and exit 0. It is refused, naming the process; once that
    /// process has closed, the backup opens as it was.
    @Test func aBackupMovedOverAnOpenStoreIsNeverPairedWithItsLog() async throws {
        let sandbox = try Sandbox()
        try await sandbox.storefront("buy", Demo.swiftShopping).expect(exit: 0)
        let backup = sandbox.path("backup.sqlite")
        try FileManager.default.copyItem(atPath: sandbox.store, toPath: backup)
        let holder = try await hold(sandbox)
        try await sandbox.storefront("buy", Demo.coins).expect(exit: 0)  // in the log the holder keeps
        #expect(rename(backup, sandbox.store) == 0)
        let refused = try await sandbox.storefront("buy", Demo.coins)
        #expect(refused.status == 74, "\(refused)")
        #expect(refused.stderr.contains("its -wal and -shm belong to another file: process \(holder.process.pid) (python3)"), "\(refused)")
        try await release(holder)
        try await sandbox.storefront("buy", Demo.coins).expect(exit: 0)
        let checkup = try await doctor(sandbox)
        #expect(checkup["healthy"] as? Bool == true, "\(checkup)")
        #expect(checkup["transactions"] as? Int == 2, "the backup's purchase and the one after it: \(checkup)")
    }

    /// (2) `serve` stops, with the reason, when its store file is replaced under it: it went on
    /// answering from (and recording deliveries in) the file that was moved away.
    @Test func serveStopsWhenItsStoreFileIsReplaced() async throws {
        let sandbox = try Sandbox()
        try await sandbox.storefront("buy", Demo.swiftShopping).expect(exit: 0)
        let backup = sandbox.path("backup.sqlite")
        try FileManager.default.copyItem(atPath: sandbox.store, toPath: backup)
        let binary = try #require(Binary.url)
        let server = try BackgroundProcess(binary, ["--catalog", Binary.catalog, "--store", sandbox.store, "serve", "--listen", "127.0.0.1:0"],
                                           in: sandbox.folder, environment: ["PATH": "/usr/bin:/bin", "HOME": sandbox.home])
        defer { Task { await server.stop() } }
        _ = try await server.wait(for: #"listening on http://127\.0\.0\.1:(\d+)"#)
        #expect(rename(backup, sandbox.store) == 0)
        let reason = try await server.wait(for: "stopped: (.* was replaced while this process had it open)", seconds: 20)
        #expect(reason.contains(sandbox.store))
        #expect(await server.stop() == 1)
        try await sandbox.storefront("buy", Demo.coins).expect(exit: 0)
        #expect(try await doctor(sandbox)["healthy"] as? Bool == true)
    }

    /// (16) A -wal deleted while a process has it open: every command failed, and the doctor said
    /// Healthy (it read the main file alone). The doctor names it, a command refuses with the way
    /// out, and once the process closes (writing its log back into the file) nothing is lost.
    @Test func aDeletedWALIsNamedNotCalledHealthy() async throws {
        let sandbox = try Sandbox()
        try await sandbox.storefront("buy", Demo.swiftShopping).expect(exit: 0)
        let holder = try await hold(sandbox)
        try await sandbox.storefront("buy", Demo.coins).expect(exit: 0)
        #expect(unlink(sandbox.store + "-wal") == 0)
        let run = try await sandbox.run(["doctor", "--store", sandbox.store, "--json"])
        run.expect(exit: 1)
        let problem = try run.jsonObject().objects("problems").first { $0["check"] as? String == "wal" }
        #expect((problem?["message"] as? String)?.contains("its -wal file was deleted while process \(holder.process.pid)") == true, "\(run)")
        let refused = try await sandbox.storefront("buy", Demo.coins)
        #expect(refused.status == 74 && refused.stderr.contains("Stop that process"), "\(refused)")
        try await release(holder)
        let checkup = try await doctor(sandbox)
        #expect(checkup["healthy"] as? Bool == true && checkup["transactions"] as? Int == 2, "\(checkup)")
    }

    /// (9) `-c /dev/zero`, and a scenario whose catalog line names it, under a 2 GB address-space
    /// limit: the read went on until memory ran out. Each is refused at once, naming the file.
    @Test func aCatalogThatIsADeviceIsRefusedAtOnce() async throws {
        let sandbox = try Sandbox()
        let binary = try #require(Binary.url)
        let scenario = try sandbox.write("zero.scenario", "catalog /dev/zero\nbuy premium\n")
        for arguments in [["--catalog", "/dev/zero", "--store", sandbox.store, "products"], ["replay", scenario]] {
            let run = try await Sandbox.launch(URL(fileURLWithPath: "/bin/bash"),
                                               arguments: ["-c", "ulimit -v 2000000; exec \"$@\"", "bash", binary.path] + arguments,
                                               environment: ["PATH": "/usr/bin:/bin", "HOME": sandbox.home], directory: sandbox.folder)
            #expect(run.status != 0 && run.stderr.contains("/dev/zero: is a character device, not a regular file"), "\(run)")
            run.expectNoCrashOutput()
        }
    }

    /// (13) The paywall as a script's background job (a process group of its own, as under
    /// `timeout`), then its terminal gone: no SIGHUP reaches it, every read of the terminal fails at
    /// once, and it spun at full speed for ever. It stops within seconds, saying why.
    @Test func thePaywallStopsWhenItsTerminalIsGone() async throws {
        let sandbox = try Sandbox()
        let binary = try #require(Binary.url)
        let job = "'\(binary.path)' --catalog '\(Binary.catalog)' --store '\(sandbox.store)' 2>paywall.err & echo $! > paywall.pid; wait $!"
        let escaped = job.replacingOccurrences(of: "$", with: "\\$")
        let command = "cd '\(sandbox.folder.path)' && env HOME='\(sandbox.home)' LANG=C.UTF-8 bash -c \"trap '' TTIN TTOU; set -m; \(escaped)\"; sleep 60"
        let session = try #require(Tmux(command: command, columns: 100, rows: 30, session: "gone", socketPrefix: "storefront-e2e"))
        func pid() -> pid_t? {
            Int32((try? String(contentsOfFile: sandbox.path("paywall.pid"), encoding: .utf8))?
                .trimmingCharacters(in: .whitespacesAndNewlines) ?? "")
        }
        defer {
            session.stop()
            if let pid = pid() { kill(pid, SIGKILL) }
        }
        let shown = await session.waitFor(timeout: .seconds(60)) { $0.contains { $0.contains("Swift Shopping") } }
        #expect(shown.ok, "\(shown.lines.joined(separator: "\n"))")
        let paywall = try #require(pid())
        session.stop()  // the terminal goes away
        let deadline = ContinuousClock.now + .seconds(20)
        while kill(paywall, 0) == 0, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(100)) }
        #expect(kill(paywall, 0) != 0, "the paywall still runs 20 s after its terminal went away")
        let message = (try? String(contentsOfFile: sandbox.path("paywall.err"), encoding: .utf8)) ?? ""
        #expect(message.contains("the paywall stops (nothing is lost"), "\(message)")
    }
}
