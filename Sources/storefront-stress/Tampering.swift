import Foundation
import Glibc
import StoreEngine
import TestSupport

/// Rows edited with the `sqlite3` command line never entitle anyone (nor leave a balance to
/// consume), and doctor names them; the store file and its -wal and -shm are the owner's alone (0600).
enum Tampering {
    /// One edit: its SQL, the account that must not gain, and the product it must not own.
    struct Edit {
        var name: String
        var sql: String
        var account: String = StoreEngine.Store.defaultAccount
        var product: String
        /// Commands run on the copy before the edit (to make a subscription lapse).
        var before: [[String]] = []
        /// The doctor's check that must name the edit.
        var check = "unverified"
        /// A consumable that must not be consumable after the edit.
        var consumes: String?
    }

    static let thief = "thief@local"
    static let goPro = "com.CephalopodStudio.PurchasePro.GoPro"

    static let edits: [Edit] = [
        Edit(name: "product changed", sql: "UPDATE transactions SET product_id = '\(goPro)' WHERE product_id = '\(Demo.swiftShopping)'",
             product: goPro),
        Edit(name: "price zeroed", sql: "UPDATE transactions SET price = '0' WHERE product_id = '\(Demo.swiftShopping)'",
             product: Demo.swiftShopping),
        Edit(name: "moved to another account",
             sql: "INSERT OR IGNORE INTO accounts VALUES ('\(thief)', 0); UPDATE transactions SET account = '\(thief)' WHERE product_id = '\(Demo.iPhoneRage)'",
             account: thief, product: Demo.iPhoneRage),
        Edit(name: "row copied with its signature",
             sql: """
                INSERT OR IGNORE INTO accounts VALUES ('\(thief)', 0);
                INSERT INTO transactions (original_id, account, product_id, product_type, purchase_date, original_purchase_date,
                  is_upgraded, ownership_type, quantity, environment, storefront, currency, price, reason, status, finished, jws)
                SELECT original_id, '\(thief)', product_id, product_type, purchase_date, original_purchase_date, is_upgraded,
                  ownership_type, quantity, environment, storefront, currency, price, reason, status, finished, jws
                FROM transactions WHERE product_id = '\(Demo.swiftShopping)'
                """,
             account: thief, product: Demo.swiftShopping),
        Edit(name: "subscription extended ten years",
             sql: "UPDATE transactions SET expiration_date = expiration_date + 315360000000 WHERE product_id = '\(Demo.monthly)'",
             product: Demo.monthly),
        Edit(name: "signatures swapped",
             sql: """
                UPDATE transactions SET jws = CASE product_id
                  WHEN '\(Demo.swiftShopping)' THEN (SELECT jws FROM transactions WHERE product_id = '\(Demo.iPhoneRage)')
                  ELSE (SELECT jws FROM transactions WHERE product_id = '\(Demo.swiftShopping)') END
                WHERE product_id IN ('\(Demo.swiftShopping)', '\(Demo.iPhoneRage)')
                """,
             product: Demo.swiftShopping),
        // Issue 43 (7): the rows beside the transactions that decide a grace period and a balance.
        Edit(name: "grace period to 2100 on a lapsed subscription",
             sql: "UPDATE subscriptions SET grace_until = 4102444800000",
             product: Demo.monthly,
             before: [["settings", "set", "billingIssues", "true"], ["clock", "advance", "P40D"]], check: "records"),
        Edit(name: "balance set to 1000", sql: "UPDATE app_balances SET balance = 1000", product: Demo.coins,
             check: "records", consumes: Demo.coins),
        Edit(name: "signature byte changed",
             sql: "UPDATE transactions SET jws = substr(jws, 1, length(jws) - 5) || 'AAAAA' WHERE product_id = '\(Demo.iPhoneRage)'",
             product: Demo.iPhoneRage),
    ]

    static func run(_ context: Context) async -> (Findings, String) {
        let findings = Findings()
        let folder = context.folder("tampering")
        let base = folder + "/base.sqlite"
        // Created under umask 000: the file must still be the owner's alone.
        for product in [Demo.swiftShopping, Demo.iPhoneRage, Demo.monthly, Demo.coins] {
            let run = Processes.shell("umask 000; exec \"$@\"", [context.storefront, "--catalog", context.catalog,
                                                                 "--store", base, "buy", product])
            findings.check(run.status == 0, "setup buy \(product): \(run.summary)")
        }
        var modesChecked = 0
        func checkMode(_ path: String) {
            var info = stat()
            guard stat(path, &info) == 0 else { return }
            modesChecked += 1
            findings.check(info.st_mode & 0o777 == 0o600, "\(path) has mode \(String(info.st_mode & 0o777, radix: 8))")
        }
        checkMode(base)
        // A buyer killed mid-purchase leaves -wal and -shm behind: they are 0600 too.
        let killed = folder + "/killed.sqlite"
        _ = Processes.run(["/usr/bin/cp", base, killed])
        if let pid = Processes.spawn([context.stress, "child-buyer", killed, context.catalog],
                                     stdout: "/dev/null", stderr: "/dev/null") {
            usleep(700_000)
            kill(pid, SIGKILL)
            _ = Processes.wait(pid, timeout: 10)
        }
        for suffix in ["", "-wal", "-shm"] { checkMode(killed + suffix) }

        var entitled = 0, named = 0
        for (index, edit) in edits.enumerated() {
            let path = folder + "/edit-\(index).sqlite"
            guard let bytes = contents(base),
                  FileManager.default.createFile(atPath: path, contents: bytes, attributes: [.posixPermissions: 0o600]) else {
                findings.fail("\(edit.name): cannot copy the store")
                continue
            }
            for command in edit.before {
                let run = Processes.run([context.storefront, "--catalog", context.catalog, "--store", path] + command)
                findings.check(run.status == 0, "\(edit.name): \(command.joined(separator: " ")): \(run.summary)")
            }
            let sqlite = Processes.run(["/usr/bin/sqlite3", path, edit.sql])
            guard findings.check(sqlite.status == 0, "\(edit.name): sqlite3 failed: \(sqlite.stderr)") else { continue }
            let entitlements = Processes.run([context.storefront, "--catalog", context.catalog, "--store", path,
                                              "--account", edit.account, "entitlements", "--json"])
            // The entitlements list only: the renewal info beside it names a subscription's
            // product whether or not the account is entitled to it.
            let listed: [String]? = (try? JSON.parse(Array(entitlements.stdout.utf8))).flatMap { document in
                guard case .array(let items)? = document["entitlements"] else { return nil }
                return items.compactMap { item in if case .string(let id)? = item["productID"] { id } else { nil } }
            }
            if entitlements.status != 0 || listed?.contains(edit.product) != false {
                entitled += 1
                findings.fail("\(edit.name): \(edit.account) is entitled to \(edit.product): \(entitlements.summary)")
            }
            if let product = edit.consumes {
                let consume = Processes.run([context.storefront, "--catalog", context.catalog, "--store", path,
                                             "--account", edit.account, "consume", product])
                if consume.status == 0 {
                    entitled += 1
                    findings.fail("\(edit.name): \(product) consumed after the edit: \(consume.summary)")
                }
            }
            let doctor = Processes.run([context.storefront, "doctor", "--store", path, "--json"])
            if findings.check(doctor.status == 1 && doctor.stdout.contains("\"check\": \"\(edit.check)\""),
                              "\(edit.name): doctor did not name the edited rows: \(doctor.summary)") {
                named += 1
            }
        }
        let figures = "\(edits.count) kinds of sqlite3 edit, \(entitled) entitled, \(named)/\(edits.count) named by doctor, "
            + "\(modesChecked) files (store, -wal, -shm; umask 000) checked 0600"
        return (findings, figures)
    }
}
