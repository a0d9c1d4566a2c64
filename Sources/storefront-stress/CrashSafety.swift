import Foundation
import Glibc
import StoreEngine
import TestSupport

/// A child process buys in a loop and is killed with SIGKILL at a random moment,
/// again and again. After each kill the store file must open cleanly, hold every
/// purchase the child reported exactly once, and deliver what was left unfinished.
enum CrashSafety {
    // MARK: - The child

    /// The buyer: as an app, it first delivers what an earlier (killed) run left
    /// unfinished, then buys consumables, finishing about half at once. Each step
    /// is reported on stdout only after the call returned, so a reported purchase
    /// is a durable one: `P id token quantity`, `F id` (finished), `D id` (redelivered).
    static func child(store path: String, catalog catalogPath: String) async -> Int32 {
        func say(_ line: String) {
            var text = line + "\n"
            text.withUTF8 { _ = write(1, $0.baseAddress, $0.count) }
        }
        do {
            let store = try Store(catalog: try Catalog.load(contentsOf: catalogPath), path: path)
            for transaction in try await store.app.unfinished() {
                try await store.app.finish(transaction)
                say("D \(transaction.id)")
            }
            while true {
                let token = UUID()
                let quantity = Int.random(in: 1...3)
                guard case .purchased(let transaction, _) = try await store.app.purchase(Demo.coins, quantity: quantity,
                                                                                 appAccountToken: token) else {
                    say("X the purchase did not succeed")
                    return 3
                }
                say("P \(transaction.id) \(token.uuidString) \(quantity)")
                if Bool.random() {
                    try await store.app.finish(transaction)
                    say("F \(transaction.id)")
                }
            }
        } catch {
            say("X \(error)")
            return 2
        }
    }

    // MARK: - The parent

    static func run(_ context: Context) async -> (Findings, String) {
        let findings = Findings()
        let folder = context.folder("crash")
        let kills = context.quick ? 40 : 300
        // A fresh store file every ten kills keeps each check's full verification short: a
        // purchase takes well under a millisecond now, so a child buys dozens before each kill.
        let killsPerStore = 10
        var reported = 0, checked = 0, lost = 0, duplicated = 0, redelivered = 0, integrityOK = 0
        var beforeCreated = 0, leftovers = 0
        var purchases: [Int64: (token: String, quantity: Int)] = [:]
        var finished: Set<Int64> = []
        var store = ""

        for kill in 0..<kills {
            if kill % killsPerStore == 0 {
                store = folder + "/store-\(kill / killsPerStore).sqlite"
                purchases = [:]
                finished = []
            }
            let output = folder + "/child-\(kill).out"
            guard let pid = Processes.spawn([context.stress, "child-buyer", store, context.catalog],
                                            stdout: output, stderr: output + ".err") else {
                findings.fail("cannot start the buyer")
                break
            }
            // From "still starting" to "deep in the loop": a kill may land anywhere.
            usleep(UInt32.random(in: 1_000...400_000))
            Glibc.kill(pid, SIGKILL)
            let ending = Processes.wait(pid, timeout: 30)
            let lines = Processes.read(output).split(separator: "\n")
            if ending.signal != SIGKILL {
                findings.fail("kill \(kill): the buyer ended by itself (\(ending.status)): \(lines.last ?? "") \(Processes.read(output + ".err").prefix(300))")
                continue
            }
            for line in lines {
                let fields = line.split(separator: " ").map(String.init)
                guard fields.count >= 2, let id = Int64(fields[1]) else { continue }
                switch fields[0] {
                case "P" where fields.count == 4:
                    purchases[id] = (fields[2], Int(fields[3]) ?? 0)
                    reported += 1
                case "F": finished.insert(id)
                default: break
                }
            }
            unlink(output)
            unlink(output + ".err")

            guard FileManager.default.fileExists(atPath: store) else {
                // Killed before the file existed: nothing may have been reported.
                findings.check(purchases.isEmpty, "kill \(kill): purchases reported but no store file")
                beforeCreated += 1
                continue
            }

            // 1. The file: SQLite's integrity check, every signature, modes (read-only).
            let checkup = StoreDoctor.examine(path: store)
            if findings.check(checkup.isHealthy, "kill \(kill): doctor: \(checkup.problems.map(\.message))") {
                integrityOK += 1
            }

            // 2. Open it as the next run of the app would.
            do {
                let opened = try Store(catalog: try Catalog.load(contentsOf: context.catalog), path: store)
                let all = try await opened.appStore.transactions()
                checked += all.count
                var byToken: [String: Int] = [:]
                for transaction in all {
                    byToken[transaction.appAccountToken?.uuidString ?? "none", default: 0] += 1
                    if case .unverified(let reason) = transaction.verification {
                        findings.fail("kill \(kill): transaction \(transaction.id) unverified: \(reason)")
                    }
                }
                let duplicates = byToken.filter { $0.value > 1 }
                duplicated += duplicates.count
                findings.check(duplicates.isEmpty, "kill \(kill): purchases stored twice: \(duplicates)")
                let stored = Dictionary(all.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
                findings.check(stored.count == all.count, "kill \(kill): a transaction id appears twice")
                for (id, purchase) in purchases {
                    guard let transaction = stored[id], transaction.appAccountToken?.uuidString == purchase.token,
                          transaction.purchasedQuantity == purchase.quantity else {
                        lost += 1
                        findings.fail("kill \(kill): reported purchase \(id) is missing or changed")
                        continue
                    }
                }
                // 3. What was left unfinished is delivered again, and nothing finished is.
                let unfinished = try await opened.app.unfinished()
                for transaction in unfinished {
                    findings.check(!finished.contains(transaction.id),
                                   "kill \(kill): transaction \(transaction.id) was finished but is delivered again")
                    try await opened.app.finish(transaction)
                    finished.insert(transaction.id)
                    redelivered += 1
                }
                findings.check(try await opened.app.unfinished().isEmpty, "kill \(kill): unfinished after delivery")
                // 4. Money: the app's balance is exactly what was bought, each purchase delivered once.
                let bought = all.filter { $0.productID == Demo.coins }.reduce(0) { $0 + $1.purchasedQuantity }
                let balance = try await opened.app.balances()[Demo.coins] ?? 0
                findings.check(balance == bought, "kill \(kill): balance \(balance), but \(bought) bought")
            } catch {
                findings.fail("kill \(kill): the store did not open cleanly: \(error)")
            }
        }
        leftovers = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [])
            .filter { $0.contains(".new-") }.count
        let figures = "\(kills) kills, \(reported) purchases reported, \(checked) transactions checked, "
            + "\(lost) lost, \(duplicated) duplicated, \(redelivered) unfinished delivered again, "
            + "integrity_check ok \(integrityOK)×, \(beforeCreated) kills before the file existed"
            + (leftovers > 0 ? ", \(leftovers) half-made temporary files left" : "")
        return (findings, figures)
    }
}
