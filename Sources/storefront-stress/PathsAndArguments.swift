import Foundation
import Glibc
import TestSupport

/// Attacks through paths and arguments: NUL ids, symlinks, umask, escapes in
/// arguments, column edits.
enum PathsAndArguments {
    /// Catalogs with NUL and control characters in ids: refused (65) with the place.
    static func nulIDs(_ context: Context) async -> (Findings, String) {
        let findings = Findings()
        let folder = context.folder("nul-ids")
        var refused = 0
        let ids = ["pro\\u0000.basic", "pro\\u0001x", "pro\\u001b[2J", "pro\\u0085", "pro\\u007f"]
        for (index, id) in ids.enumerated() {
            let catalog = folder + "/c\(index).json"
            let text = """
                {"products": [{"id": "\(id)", "type": "nonConsumable", "displayName": "Basic", "price": "0.99"},
                              {"id": "pro", "type": "nonConsumable", "displayName": "Ultimate", "price": "99.99"}]}
                """
            _ = FileManager.default.createFile(atPath: catalog, contents: Data(text.utf8))
            let check = Processes.run([context.storefront, "catalog", "check", catalog])
            let buy = context.run(folder + "/s.sqlite", ["buy", "pro"], catalog: catalog)
            if check.status == 65, buy.status == 65 { refused += 1 }
            findings.check(check.status == 65, "catalog check of \(id) exited \(check.status): \(check.summary)")
            findings.check(check.stderr.contains("products[0].id"), "the place not named: \(check.stderr.prefix(300))")
            findings.check(!check.stderr.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" }, "raw control in the message")
        }
        return (findings, "\(ids.count) catalogs with NUL, C0, ESC, C1 and DEL in an id: \(refused) refused (65) by catalog check and every command, with the place")
    }

    /// A store path that is a symlink: to a healthy store (used, doctor healthy), to an empty file
    /// and to nothing (refused, nothing created); a relative link.
    static func symlinks(_ context: Context) async -> (Findings, String) {
        let findings = Findings()
        let folder = context.folder("symlinks")
        let real = folder + "/real.sqlite"
        _ = context.run(real, ["buy", Demo.coins])
        symlink(real, folder + "/link.sqlite")
        symlink("real.sqlite", folder + "/relative.sqlite")
        for link in ["link.sqlite", "relative.sqlite"] {
            let buy = context.run(folder + "/" + link, ["buy", Demo.coins])
            findings.check(buy.status == 0, "buy through \(link): \(buy.summary)")
            let doctor = context.run(folder + "/" + link, ["doctor"])
            findings.check(doctor.status == 0 && doctor.stdout.contains("Healthy"), "doctor through \(link): \(doctor.summary)")
        }
        findings.check(context.transactionCount(real) == 3, "purchases through the links not in the real file")
        _ = FileManager.default.createFile(atPath: folder + "/empty", contents: Data())
        symlink(folder + "/empty", folder + "/to-empty.sqlite")
        symlink(folder + "/nowhere", folder + "/dangling.sqlite")
        var refused = 0
        for link in ["to-empty.sqlite", "dangling.sqlite"] {
            let buy = context.run(folder + "/" + link, ["buy", Demo.coins])
            if findings.check(buy.status == 74, "buy through \(link) exited \(buy.status)") { refused += 1 }
            let doctor = context.run(folder + "/" + link, ["doctor"])
            findings.check(doctor.status != 0, "doctor called \(link) healthy")
        }
        findings.check(contents(folder + "/empty")?.isEmpty == true, "the empty file was written")
        findings.check(!FileManager.default.fileExists(atPath: folder + "/nowhere"), "a store was created through a dangling link")
        return (findings, "2 links to a healthy store used (absolute, relative), doctor healthy through both, \(refused)/2 links to an empty file and to nothing refused, nothing created")
    }

    /// Folders and files under umask 000 and 077; a store file made readable by others is repaired.
    static func umask(_ context: Context) async -> (Findings, String) {
        let findings = Findings()
        let folder = context.folder("umask")
        var checked = 0
        func mode(_ path: String) -> mode_t { var info = stat(); stat(path, &info); return info.st_mode & 0o777 }
        for mask in ["000", "022", "077"] {
            let home = folder + "/home\(mask)"
            let run = Processes.shell("umask \(mask); exec \"$@\"", ["/usr/bin/env", "HOME=\(home)", "XDG_STATE_HOME=", context.storefront,
                                                                  "--catalog", context.catalog, "buy", Demo.coins])
            findings.check(run.status == 0, "buy with the default store under umask \(mask): \(run.summary)")
            for path in [home + "/.local", home + "/.local/state", home + "/.local/state/storefront"] {
                checked += 1
                findings.check(mode(path) == 0o700, "\(path) has mode \(String(mode(path), radix: 8)) under umask \(mask)")
            }
            for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: home + "/.local/state/storefront/store.sqlite" + suffix) {
                checked += 1
                let file = home + "/.local/state/storefront/store.sqlite" + suffix
                findings.check(mode(file) == 0o600, "\(file) has mode \(String(mode(file), radix: 8))")
            }
        }
        let store = folder + "/home000/.local/state/storefront/store.sqlite"
        chmod(store, 0o644)
        let repaired = context.run(store, ["products"])
        findings.check(repaired.status == 0 && repaired.stderr.contains("warning"), "a 0644 store: \(repaired.summary)")
        findings.check(mode(store) == 0o600, "a 0644 store left \(String(mode(store), radix: 8))")
        return (findings, "umask 000, 022, 077: \(checked) folders and files checked 0700/0600, a 0644 store repaired to 0600 with a warning")
    }

    /// Escapes in every command's arguments never reach standard error raw.
    static func argumentEscapes(_ context: Context) async -> (Findings, String) {
        let findings = Findings()
        let folder = context.folder("argument-escapes")
        let store = folder + "/s.sqlite"
        _ = context.run(store, ["buy", Demo.coins])
        let evil = "x\u{1B}]0;owned\u{07}\u{1B}[2J\u{202E}\u{9B}y"
        let commands: [[String]] = [
            ["buy", evil], ["consume", evil], ["status", evil], ["expire", evil], ["reset", evil], ["refund", evil],
            ["approve", evil], ["clock", "advance", evil], ["settings", "set", evil, "1"], ["settings", "set", "latency", evil],
            ["accounts", "switch", evil], [evil],
        ]
        var scanned = 0
        for arguments in commands + [["--store", folder + "/" + evil + "/s.sqlite", "products"]] {
            let run = arguments.first == "--store"
                ? Processes.run([context.storefront, "--catalog", context.catalog] + arguments)
                : context.run(store, arguments)
            scanned += 1
            let raw = (run.stderr + run.stdout).unicodeScalars.filter {
                ($0.value < 0x20 && $0 != "\n") || (0x7F...0x9F).contains($0.value) || (0x202A...0x202E).contains($0.value)
            }
            findings.check(raw.isEmpty, "\(arguments.prefix(2).joined(separator: " ")): raw control characters in its output: \(run.summary.debugDescription.prefix(300))")
        }
        return (findings, "\(scanned) commands with ESC, OSC, BEL, CSI, U+202E and C1 in their arguments, 0 raw control characters on stderr or stdout")
    }

    /// Single-column edits of what decides entitlement or delivery, and a refund undone with the old row.
    static func columnEdits(_ context: Context) async -> (Findings, String) {
        let findings = Findings()
        let folder = context.folder("column-edits")
        let base = ColumnEdits.base(context, folder: folder)
        let edits = ColumnEdits.edits
        var named = 0
        for (index, edit) in edits.enumerated() {
            let store = folder + "/e\(index).sqlite"
            _ = Processes.run(["/usr/bin/cp", base, store])
            let sql = Processes.run(["/usr/bin/sqlite3", store, edit])
            findings.check(sql.status == 0, "sqlite3: \(sql.summary)")
            let doctor = context.run(store, ["doctor"])
            if findings.check(doctor.status != 0 && doctor.stdout.contains("PROBLEM"), "doctor healthy after: \(edit)") { named += 1 }
            if index == 0 {
                let before = context.run(store, ["balance", "--json"]).stdout
                _ = context.run(store, ["products"])
                findings.check(context.run(store, ["balance", "--json"]).stdout == before, "finished = 0 delivered the coins again")
            }
        }
        // A refund undone: the row put back as it was before, with its old JWS and seal.
        let store = folder + "/undone.sqlite"
        ColumnEdits.undoRefund(context, base: base, store: store)
        let doctor = context.run(store, ["doctor"])
        if findings.check(doctor.status != 0 && doctor.stdout.contains("older version"), "an undone refund not found: \(doctor.stdout.suffix(300))") { named += 1 }
        return (findings, "\(edits.count) single-column edits (finished, status, environment, ownership, offer, product type, revocation reason) and an undone refund: \(named)/\(edits.count + 1) named by doctor, finished = 0 delivered nothing again")
    }
}

/// What the column-edits and lowered-versions parts edit: a store with a non-consumable, coins
/// and a monthly plan bought, and one-column `sqlite3` edits of what decides entitlement or delivery.
enum ColumnEdits {
    /// The store every edit starts from, made in `folder`.
    static func base(_ context: Context, folder: String) -> String {
        let base = folder + "/base.sqlite"
        for product in [Demo.swiftShopping, Demo.coins, Demo.monthly] { _ = context.run(base, ["buy", product]) }
        return base
    }

    /// One column each: finished, status, environment, ownership, offer, product type, revocation reason.
    static let edits = [
        "UPDATE transactions SET finished = 0 WHERE product_id = '\(Demo.coins)'",
        "UPDATE transactions SET status = 'pending' WHERE product_id = '\(Demo.swiftShopping)'",
        "UPDATE transactions SET environment = 'Production'", "UPDATE transactions SET ownership_type = 'FAMILY_SHARED'",
        "UPDATE transactions SET offer_type = NULL WHERE product_id = '\(Demo.monthly)'",
        "UPDATE transactions SET product_type = 'garbage' WHERE product_id = '\(Demo.swiftShopping)'",
        "UPDATE transactions SET revocation_reason = 'other'",
    ]

    /// A copy of `base` at `store` whose first transaction was refunded, then put back as it was
    /// before, with its old JWS and seal; `then` is SQL run after that, in the same `sqlite3` call.
    static func undoRefund(_ context: Context, base: String, store: String, then: String = "") {
        _ = Processes.run(["/usr/bin/cp", base, store])
        _ = sqlite(store, "CREATE TABLE old AS SELECT * FROM transactions")
        let id = context.run(store, ["transactions", "--json"]).stdout
            .split(separator: "\n").first { $0.contains("\"id\"") }?.filter(\.isNumber) ?? ""
        _ = context.run(store, ["refund", String(id)])
        _ = sqlite(store, "DELETE FROM transactions; INSERT INTO transactions SELECT * FROM old; DROP TABLE old" + then)
    }
}
