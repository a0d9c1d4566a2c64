import Foundation
import Glibc
import StoreEngine
import TestSupport

/// The store at its limits: a full disk, huge clock advances, processes that hold its lock.
enum StoreLimits {
    /// Buys under a small file-size limit until a purchase fails: every exit 0 is a purchase
    /// there afterwards, every failure (74) named the system's reason and left nothing charged.
    static func fullDisk(_ context: Context) async -> (Findings, String) {
        let findings = Findings()
        let folder = context.folder("full-disk")
        var reported = 0, refused = 0, warned = 0, rounds = 0
        for round in 0..<(context.quick ? 2 : 6) {
            let store = folder + "/s\(round).sqlite"
            _ = context.run(store, ["buy", Demo.swiftShopping])
            var ids: [String] = []
            var charged = context.transactionCount(store)
            for attempt in 0..<30 {
                let product = attempt == 0 ? Demo.iPhoneRage : Demo.coins
                let run = context.run(store, ["buy", product, "--json"], shell: "trap '' XFSZ; ulimit -f \(40 + round * 6)")
                let after = context.transactionCount(store)
                if run.status == 0 {
                    reported += 1
                    if run.stderr.contains("warning:") { warned += 1 }
                    findings.check(run.stdout.contains("\"transaction\""), "round \(round): exit 0 without the transaction: \(run.summary)")
                    if let id = run.stdout.split(separator: "\n").first(where: { $0.contains("\"id\"") }) { ids.append(String(id)) }
                    findings.check(after == charged + 1, "round \(round): exit 0 but \(after - charged) new transactions")
                } else {
                    refused += 1
                    findings.check(run.status == 74, "round \(round): a failed purchase exited \(run.status): \(run.summary)")
                    // With --json the error is the one JSON error object on stdout (the --json contract),
                    // never a transaction.
                    let printed = try? JSON.parse(Array(run.stdout.utf8))
                    findings.check(printed?["error"] != nil && printed?["transaction"] == nil,
                                   "round \(round): a failed purchase printed more than its --json error: \(run.stdout.prefix(300))")
                    findings.check(run.stderr.contains("File too large") || run.stderr.contains("No space left"),
                                   "round \(round): no system reason: \(run.stderr.prefix(300))")
                    findings.check(after == charged, "round \(round): a failed purchase charged \(after - charged)")
                    break
                }
                charged = after
            }
            rounds += 1
            let doctor = context.run(store, ["doctor"])
            findings.check(doctor.status == 0, "round \(round): doctor after the full disk: \(doctor.summary)")
        }
        return (findings, "\(rounds) stores filled under ulimit -f, \(reported) purchases reported and present (\(warned) with a delivery warning), \(refused) refused with the system's reason and nothing charged")
    }

    /// Huge clock advances: refused past 100 years (64); 100 years of a monthly subscription
    /// for 20 testers caught up in batches while purchases from another process go through.
    static func hugeClock(_ context: Context) async -> (Findings, String) {
        let findings = Findings()
        let store = context.folder("huge-clock") + "/s.sqlite"
        let testers = context.quick ? 4 : 20
        for index in 0..<testers {
            _ = context.run(store, ["accounts", "create", "t\(index)@local"])
            let buy = context.run(store, ["--account", "t\(index)@local", "buy", Demo.monthly])
            findings.check(buy.status == 0, "setup: \(buy.summary)")
        }
        let refused = context.run(store, ["clock", "advance", "P1000000Y"])
        findings.check(refused.status == 64, "clock advance P1000000Y exited \(refused.status)")
        // The clock runs at real time meanwhile: unmoved means within a minute, not 101 years ahead.
        func storeTime() -> Date? {
            let run = context.run(store, ["clock", "--json"])
            guard case .string(let now)? = (try? JSON.parse(Array(run.stdout.utf8)))?["now"] else { return nil }
            return try? Date(now, strategy: .iso8601)
        }
        let before = storeTime()
        findings.check(context.run(store, ["clock", "advance", "P101Y"]).status == 64, "P101Y not refused")
        let after = storeTime()
        findings.check(before != nil && after != nil && abs(after!.timeIntervalSince(before!)) < 60,
                       "a refused advance moved the clock: \(String(describing: before)) → \(String(describing: after))")
        // Meanwhile another process buys: each purchase waits at most for one batch.
        let started = Date()
        guard let pid = Processes.spawn([context.storefront, "--catalog", context.catalog, "--store", store,
                                         "clock", "advance", "P100Y"], stdout: "/dev/null", stderr: "/dev/null") else {
            findings.fail("cannot start clock advance")
            return (findings, "")
        }
        var slowest = 0.0, bought = 0
        while Processes.isRunning(pid) && bought < 20 {
            let start = Date()
            let buy = context.run(store, ["buy", Demo.coins])
            slowest = max(slowest, Date().timeIntervalSince(start))
            findings.check(buy.status == 0, "a purchase during the catch-up: \(buy.summary)")
            bought += 1
        }
        let ending = Processes.wait(pid, timeout: 600)
        let seconds = Date().timeIntervalSince(started)
        findings.check(ending.status == 0, "clock advance P100Y exited \(ending.status)")
        func all() -> Int { Int(Processes.run(["/usr/bin/sqlite3", store, "SELECT count(*) FROM transactions"]).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1 }
        let total = all()
        // At most one batch (Store.renewalBatch, 500 renewals, each its own write) between a purchase
        // and the lock: the bound is this run's own batch time (a loaded machine signs slower), where
        // a purchase starved by the whole catch-up would wait all of it (and be refused as busy).
        let batches = max(1, Int(((Double(total - bought) / 500).rounded(.up))))
        let batchSeconds = seconds / Double(batches)
        findings.check(slowest < max(10, 2 * batchSeconds),
                       "a purchase waited \(String(format: "%.1f", slowest)) s for the lock, a batch took \(String(format: "%.1f", batchSeconds)) s")
        // Idempotent: nothing more to do, another command adds nothing.
        _ = context.run(store, ["products"])
        _ = context.run(store, ["clock", "advance", "PT1S"])
        findings.check(all() == total, "a second catch-up added renewals")
        let expected = testers * 1201 + bought
        findings.check(total >= expected - testers && total <= expected + testers,
                       "\(total) transactions, expected about \(expected)")
        return (findings, "P1000000Y and P101Y refused (64), P100Y for \(testers) testers: \(total - bought) subscription transactions in \(String(format: "%.0f", seconds)) s (\(batches) batches, \(String(format: "%.1f", batchSeconds)) s each), \(bought) purchases by another process meanwhile, slowest \(String(format: "%.2f", slowest)) s, a second catch-up added 0")
    }

    /// A process holding the write lock until the purchase behind it has given up: the purchase waits
    /// the busy timeout, then says busy (75), not 74.
    static func lockHogs(_ context: Context) async -> (Findings, String) {
        let findings = Findings()
        let store = context.folder("lock-hogs") + "/s.sqlite"
        _ = context.run(store, ["buy", Demo.coins])
        // The purchase starts behind another process's write lock, held until the purchase gives up.
        guard let hog = WriteLockHolder(store: store, folder: context.folder("lock-hogs")) else {
            findings.fail("sqlite3 did not take the write lock in 20 s")
            return (findings, "")
        }
        let began = Date()
        let buy = context.run(store, ["buy", Demo.coins, "--json"])
        let waited = Date().timeIntervalSince(began)
        hog.letGo()
        findings.check(buy.status == 75, "a purchase behind a lock hog exited \(buy.status), not 75: \(buy.summary)")
        findings.check(buy.stderr.contains("again"), "no retry hint: \(buy.stderr.prefix(300))")
        findings.check(!buy.stderr.contains("left as it is"), "busy called unusable")
        findings.check(context.transactionCount(store) == 1, "the busy purchase was charged")
        let again = context.run(store, ["buy", Demo.coins])
        findings.check(again.status == 0, "the retry: \(again.summary)")
        return (findings, "a write lock held until the purchase gave up: it exited \(buy.status) (busy) with a retry hint after \(String(format: "%.1f", waited)) s (the 30 s busy timeout), nothing charged, the retry bought")
    }
}
