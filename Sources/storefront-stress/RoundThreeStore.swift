import Foundation
import Glibc
import StoreEngine
import TestSupport

/// The third round's store-file attacks (issue 30): tamper evidence laundered through a lowered
/// `user_version`, and backups restored under a running `serve`.
enum RoundThreeStore {
    static func sf(_ context: Context, _ store: String, _ arguments: [String]) -> Outcome {
        RoundTwo.sf(context, store, arguments)
    }

    static func sqlite(_ store: String, _ sql: String) -> Outcome { Processes.run(["/usr/bin/sqlite3", store, sql]) }

    /// Each single-column edit of the column-edits part, and an undone refund, followed by
    /// `PRAGMA user_version` set to 5, 1 or 0: the next open migrates without sealing anything
    /// again, the doctor names the edit before and after, and `finished = 0` delivers nothing again.
    static func loweredVersions(_ context: Context) async -> (Findings, String) {
        let findings = Findings()
        let folder = context.folder("lowered-versions")
        let base = folder + "/base.sqlite"
        for product in [Demo.swiftShopping, Demo.coins, Demo.monthly] { _ = sf(context, base, ["buy", product]) }
        let edits = [
            "UPDATE transactions SET finished = 0 WHERE product_id = '\(Demo.coins)'",
            "UPDATE transactions SET status = 'pending' WHERE product_id = '\(Demo.swiftShopping)'",
            "UPDATE transactions SET environment = 'Production'", "UPDATE transactions SET ownership_type = 'FAMILY_SHARED'",
            "UPDATE transactions SET offer_type = NULL WHERE product_id = '\(Demo.monthly)'",
            "UPDATE transactions SET revocation_reason = 'other'",
        ]
        var cases = 0, opened = 0, stillNamed = 0
        for version in [5, 1, 0] {
            for (index, edit) in edits.enumerated() {
                cases += 1
                let store = folder + "/v\(version)-e\(index).sqlite"
                _ = Processes.run(["/usr/bin/cp", base, store])
                let before = sf(context, store, ["balance", "--json"]).stdout
                findings.check(sqlite(store, "\(edit); PRAGMA user_version = \(version)").status == 0, "sqlite3 failed: \(edit)")
                findings.check(sf(context, store, ["doctor"]).status != 0, "doctor healthy before the migration: \(edit), version \(version)")
                let products = sf(context, store, ["products"])
                if findings.check(products.status == 0, "version \(version): the open failed: \(products.summary)") { opened += 1 }
                let doctor = sf(context, store, ["doctor"])
                if findings.check(doctor.status != 0 && doctor.stdout.contains("PROBLEM"), "laundered by the migration: \(edit), version \(version)") {
                    stillNamed += 1
                }
                if index == 0 {
                    findings.check(sf(context, store, ["balance", "--json"]).stdout == before, "finished = 0 under version \(version) delivered the coins again")
                }
            }
        }
        // A refund undone (the row put back with its old JWS and seal), then the version lowered.
        let store = folder + "/undone.sqlite"
        _ = Processes.run(["/usr/bin/cp", base, store])
        _ = sqlite(store, "CREATE TABLE old AS SELECT * FROM transactions")
        let id = sf(context, store, ["transactions", "--json"]).stdout
            .split(separator: "\n").first { $0.contains("\"id\"") }?.filter(\.isNumber) ?? ""
        _ = sf(context, store, ["refund", String(id)])
        _ = sqlite(store, "DELETE FROM transactions; INSERT INTO transactions SELECT * FROM old; DROP TABLE old; PRAGMA user_version = 5")
        _ = sf(context, store, ["products"])
        let doctor = sf(context, store, ["doctor"])
        if findings.check(doctor.status != 0 && doctor.stdout.contains("older version"), "an undone refund laundered: \(doctor.stdout.suffix(300))") {
            stillNamed += 1
        }
        return (findings, "\(cases) edits under user_version 5, 1 and 0 and an undone refund: \(opened)/\(cases) opened, \(stillNamed)/\(cases + 1) still named by doctor after the migration, finished = 0 delivered nothing again")
    }

    /// A backup put in place of the store file while `serve` runs, by `mv` (renamed over) and by
    /// `cp` (overwritten in place, after the server's file grew), 10 times each, with a purchase
    /// right after: every purchase reported is in the file afterwards (none lost), none is refused
    /// without a reason, no file fails integrity_check (none mixed), and `serve` stops each time.
    static func restores(_ context: Context) async -> (Findings, String) {
        let findings = Findings()
        let rounds = context.quick ? 4 : 20
        var refused = 0, made = 0, lost = 0, mixed = 0, stopped = 0
        for round in 0..<rounds {
            let byCopy = round % 2 == 1
            let folder = context.folder("restores/\(round)")
            let store = folder + "/store.sqlite", backup = folder + "/backup.sqlite"
            _ = sf(context, store, ["buy", Demo.swiftShopping])
            _ = sqlite(store, ".backup '\(backup)'")
            let log = folder + "/serve.log"
            guard let server = Processes.spawn([context.storefront, "--catalog", context.catalog, "--store", store,
                                                "serve", "--listen", "127.0.0.1:0"], stdout: log, stderr: log) else {
                findings.fail("round \(round): serve did not start")
                continue
            }
            func served() -> String { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }
            let deadline = Date().addingTimeInterval(30)
            while !served().contains("listening on"), Date() < deadline { usleep(20_000) }
            for _ in 0..<(byCopy ? 30 : 2) { _ = sf(context, store, ["buy", Demo.coins]) }
            if byCopy {
                // The log written into the file (as every 1,000 pages): it grows past the backup.
                _ = sqlite(store, "PRAGMA wal_checkpoint")
                _ = Processes.run(["/usr/bin/cp", backup, store])
            } else {
                rename(backup, store)
            }
            let buy = sf(context, store, ["buy", Demo.monthly, "--json"])
            let id = buy.stdout.split(separator: "\n").first { $0.contains("\"id\"") }?.filter(\.isNumber)
            if buy.status == 0 { made += 1 } else {
                refused += 1
                findings.check(buy.status == 74 && buy.stderr.contains("belong to another file"), "round \(round): refused without the reason: \(buy.summary)")
            }
            let exit = await Processes.exit(of: server, timeout: .seconds(20))
            if exit.timedOut {
                kill(server, SIGKILL)
                _ = await Processes.exit(of: server, timeout: .seconds(10))
            }
            if findings.check(!exit.timedOut && served().contains("was replaced while this process had it open"),
                              "round \(round) (\(byCopy ? "cp" : "mv")): serve went on: \(served().suffix(300))") { stopped += 1 }
            let integrity = sqlite(store, "PRAGMA integrity_check").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            if !findings.check(integrity == "ok", "round \(round): mixed: \(integrity.prefix(200))") { mixed += 1 }
            if buy.status == 0, let id, !id.isEmpty {
                let there = sqlite(store, "SELECT count(*) FROM transactions WHERE id = \(id)").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
                if !findings.check(there == "1", "round \(round): purchase \(id) reported (exit 0) and lost") { lost += 1 }
            }
        }
        return (findings, "\(rounds) backups restored under serve (mv and cp): \(made) purchases right after made, \(refused) refused with the reason, \(lost) lost, \(mixed) mixed files, serve stopped \(stopped)/\(rounds)")
    }
}
