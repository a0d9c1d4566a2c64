import Foundation
import Glibc
import StoreEngine
import TestSupport

/// Tamper evidence laundered through a lowered `user_version`: the migration must not seal an
/// edit it finds.
enum LoweredVersions {
    /// Each single-column edit of the column-edits part, and an undone refund, followed by
    /// `PRAGMA user_version` set to 5, 1 or 0: the next open migrates without sealing anything
    /// again, the doctor names the edit before and after, and `finished = 0` delivers nothing again.
    static func run(_ context: Context) async -> (Findings, String) {
        let findings = Findings()
        let folder = context.folder("lowered-versions")
        let base = ColumnEdits.base(context, folder: folder)
        // All but the product type's, as this part has always taken them.
        let edits = ColumnEdits.edits.filter { !$0.contains("product_type") }
        var cases = 0, opened = 0, stillNamed = 0
        for version in [5, 1, 0] {
            for (index, edit) in edits.enumerated() {
                cases += 1
                let store = folder + "/v\(version)-e\(index).sqlite"
                _ = Processes.run(["/usr/bin/cp", base, store])
                let before = context.run(store, ["balance", "--json"]).stdout
                findings.check(sqlite(store, "\(edit); PRAGMA user_version = \(version)").status == 0, "sqlite3 failed: \(edit)")
                findings.check(context.run(store, ["doctor"]).status != 0, "doctor healthy before the migration: \(edit), version \(version)")
                let products = context.run(store, ["products"])
                if findings.check(products.status == 0, "version \(version): the open failed: \(products.summary)") { opened += 1 }
                let doctor = context.run(store, ["doctor"])
                if findings.check(doctor.status != 0 && doctor.stdout.contains("PROBLEM"), "laundered by the migration: \(edit), version \(version)") {
                    stillNamed += 1
                }
                if index == 0 {
                    findings.check(context.run(store, ["balance", "--json"]).stdout == before, "finished = 0 under version \(version) delivered the coins again")
                }
            }
        }
        // A refund undone (the row put back with its old JWS and seal), then the version lowered.
        let store = folder + "/undone.sqlite"
        ColumnEdits.undoRefund(context, base: base, store: store, then: "; PRAGMA user_version = 5")
        _ = context.run(store, ["products"])
        let doctor = context.run(store, ["doctor"])
        if findings.check(doctor.status != 0 && doctor.stdout.contains("older version"), "an undone refund laundered: \(doctor.stdout.suffix(300))") {
            stillNamed += 1
        }
        return (findings, "\(cases) edits under user_version 5, 1 and 0 and an undone refund: \(opened)/\(cases) opened, \(stillNamed)/\(cases + 1) still named by doctor after the migration, finished = 0 delivered nothing again")
    }
}
