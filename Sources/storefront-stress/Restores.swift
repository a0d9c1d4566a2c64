import Foundation
import Glibc
import StoreEngine
import TestSupport

/// Backups put back beside a running or killed `serve`: by `storefront store restore` (the
/// documented way), and by `mv` and `cp` (the ways docs/reliability.md warns against).
enum Restores {
    /// How a round puts its backup back.
    enum Way: String, CaseIterable {
        /// `store restore` while `serve` runs: serve goes on with the restored store.
        case restoreUnderServe = "store restore under serve"
        /// `serve` SIGKILLed with its `-wal` full, then `store restore`.
        case restoreAfterKill = "SIGKILL, then store restore"
        /// `serve` SIGKILLed, then the backup moved into place: the `-wal` is another file's.
        case moveAfterKill = "SIGKILL, then mv"
        /// The backup renamed over the file while `serve` runs.
        case moveUnderServe = "mv under serve"
        /// The backup copied over the file in place, after it grew, while `serve` runs.
        case copyUnderServe = "cp under serve"

        var killsServe: Bool { self == .restoreAfterKill || self == .moveAfterKill }
    }

    /// Each way in turn (20 rounds, 4 of each; 5 with --quick), a backup of one purchase put back
    /// after coins were bought, then a subscription bought: every purchase reported is in the file
    /// afterwards; a refusal is 74 with its reason; no file fails `integrity_check`; a restore
    /// leaves exactly the backup's rows and the new one; serve goes on after `store restore` and
    /// stops with the reason after `mv` and `cp`; a moved backup beside a killed process's `-wal`
    /// is refused unchanged, and `store restore` then recovers it.
    static func run(_ context: Context) async -> (Findings, String) {
        let findings = Findings()
        let rounds = context.quick ? Way.allCases.count : 4 * Way.allCases.count
        var made = 0, refused = 0, lost = 0, mixed = 0, servedOn = 0, stopped = 0, recovered = 0
        for round in 0..<rounds {
            let way = Way.allCases[round % Way.allCases.count]
            let name = "round \(round) (\(way.rawValue))"
            let folder = context.folder("restores/\(round)")
            let store = folder + "/store.sqlite", backup = folder + "/backup.sqlite", spare = folder + "/spare.sqlite"
            _ = context.run(store, ["buy", Demo.swiftShopping])
            _ = sqlite(store, ".backup '\(backup)'")
            _ = Processes.run(["/usr/bin/cp", backup, spare])
            let log = folder + "/serve.log"
            guard let server = Processes.spawn([context.storefront, "--catalog", context.catalog, "--store", store,
                                                "serve", "--listen", "127.0.0.1:0"], stdout: log, stderr: log) else {
                findings.fail("\(name): serve did not start")
                continue
            }
            func served() -> String { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }
            let deadline = Date().addingTimeInterval(30)
            while !served().contains("listening on"), Date() < deadline { usleep(20_000) }
            // Coins the backup does not have; serve keeps the file open, so they stay in its -wal.
            for _ in 0..<(way == .copyUnderServe ? 30 : 3) { _ = context.run(store, ["buy", Demo.coins]) }
            if way.killsServe {
                kill(server, SIGKILL)
                _ = await Processes.exit(of: server, timeout: .seconds(10))
                findings.check(FileManager.default.fileExists(atPath: store + "-wal"), "\(name): serve left no -wal to test with")
            }
            switch way {
            case .restoreUnderServe, .restoreAfterKill:
                let restore = context.run(store, ["store", "restore", backup])
                findings.check(restore.status == 0, "\(name): store restore failed: \(restore.summary)")
            case .moveAfterKill:
                rename(backup, store)
                let before = contents(store)
                let refusal = context.run(store, ["buy", Demo.monthly])
                let named = refusal.status == 74 && refusal.stderr.contains("another file's changes")
                if findings.check(named, "\(name): the moved backup was opened with the other file's -wal: \(refusal.summary)") { refused += 1 }
                findings.check(contents(store) == before, "\(name): the refused file was written to")
                // The recovery the message names.
                let restore = context.run(store, ["store", "restore", spare])
                if findings.check(restore.status == 0, "\(name): store restore did not recover: \(restore.summary)") { recovered += 1 }
            case .moveUnderServe:
                rename(backup, store)
            case .copyUnderServe:
                // The log written into the file (as every 1,000 pages): it grows past the backup.
                _ = sqlite(store, "PRAGMA wal_checkpoint")
                _ = Processes.run(["/usr/bin/cp", backup, store])
            }
            let buy = context.run(store, ["buy", Demo.monthly, "--json"])
            let id = buy.stdout.split(separator: "\n").first { $0.contains("\"id\"") }?.filter(\.isNumber)
            if buy.status == 0 { made += 1 } else {
                refused += 1
                findings.check(buy.status == 74 && buy.stderr.contains("belong to another file"), "\(name): refused without the reason: \(buy.summary)")
            }
            if way.killsServe {
                // Nothing to stop.
            } else if way == .restoreUnderServe {
                let alive = kill(server, 0) == 0 && !served().contains("was replaced while this process had it open")
                if findings.check(alive, "\(name): serve did not go on after store restore: \(served().suffix(300))") { servedOn += 1 }
                kill(server, SIGTERM)
                let exit = await Processes.exit(of: server, timeout: .seconds(20))
                findings.check(!exit.timedOut, "\(name): serve did not stop on SIGTERM")
                if exit.timedOut { kill(server, SIGKILL) }
            } else {
                let exit = await Processes.exit(of: server, timeout: .seconds(20))
                if exit.timedOut {
                    kill(server, SIGKILL)
                    _ = await Processes.exit(of: server, timeout: .seconds(10))
                }
                if findings.check(!exit.timedOut && served().contains("was replaced while this process had it open"),
                                  "\(name): serve went on: \(served().suffix(300))") { stopped += 1 }
            }
            let integrity = sqlite(store, "PRAGMA integrity_check").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            if !findings.check(integrity == "ok", "\(name): mixed: \(integrity.prefix(200))") { mixed += 1 }
            if buy.status == 0, let id, !id.isEmpty {
                let there = sqlite(store, "SELECT count(*) FROM transactions WHERE id = \(id)").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
                if !findings.check(there == "1", "\(name): purchase \(id) reported (exit 0) and lost") { lost += 1 }
            }
            if way != .moveUnderServe && way != .copyUnderServe {
                // The backup's one purchase and the new one: the coins went with the restore.
                findings.check(context.transactionCount(store) == 2, "\(name): \(context.transactionCount(store)) rows after the restore, not the backup's 1 and the new 1")
            }
        }
        let each = rounds / Way.allCases.count
        return (findings, "\(rounds) backups put back (\(each) each: \(Way.allCases.map(\.rawValue).joined(separator: ", "))): "
            + "\(made) purchases right after made, \(refused) refused with the reason, \(lost) lost, \(mixed) mixed files; "
            + "serve went on after store restore \(servedOn)/\(each), stopped after mv or cp \(stopped)/\(2 * each); "
            + "a moved backup beside a killed serve's -wal recovered by store restore \(recovered)/\(each)")
    }
}
