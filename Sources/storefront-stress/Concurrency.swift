import Foundation
import Glibc
import StoreEngine
import StorefrontCLI
import Synchronization
import TestSupport

/// Four processes run CLI commands on one store file at once while the paywall
/// runs on it too: every transaction is stored once, ids are unique, the money
/// adds up, and no "database is locked" reaches a user.
enum Concurrency {
    /// What a worker knows between steps.
    struct WorkerState {
        /// The newest transaction this worker bought (for a refund step).
        var lastPurchase: Int64?
    }

    /// One kind of command a worker runs, with how often it is picked.
    struct Step: Sendable {
        var name: String
        var weight: Int
        var arguments: @Sendable (WorkerState) -> [String]?

        init(_ name: String, _ weight: Int, _ arguments: @escaping @Sendable (WorkerState) -> [String]?) {
            self.name = name
            self.weight = weight
            self.arguments = arguments
        }
    }

    static let steps: [Step] = [
        Step("buy", 5) { _ in ["buy", Demo.coins, "--quantity", "2", "--json"] },
        Step("buy-owned", 1) { _ in ["buy", Demo.swiftShopping, "--json"] },
        Step("restore", 2) { _ in ["restore", "--json"] },
        Step("consume", 2) { _ in ["consume", Demo.coins, "--json"] },
        Step("history", 1) { _ in ["transactions", "--json"] },
        // The App Store refunds this worker's newest purchase (each at most once).
        Step("refund", 1) { $0.lastPurchase.map { ["refund", String($0), "--json"] } },
    ]

    // MARK: - A worker process

    /// Runs `operations` random steps through the CLI's own code (each opens the
    /// store afresh, as a new `storefront` process does) and reports each on stdout:
    /// `P id productID quantity alreadyOwned`, `C quantity`, `R id productID quantity`, `E step exit message`.
    static func worker(store: String, catalog: String, operations: Int) async -> Int32 {
        func say(_ line: String) {
            var text = line + "\n"
            text.withUTF8 { _ = write(1, $0.baseAddress, $0.count) }
        }
        var state = WorkerState()
        let total = steps.reduce(0) { $0 + $1.weight }
        for _ in 0..<operations {
            var pick = Int.random(in: 0..<total)
            let step = steps.first { step in
                defer { pick -= step.weight }
                return pick < step.weight
            }!
            guard let arguments = step.arguments(state) else { continue }
            let out = Mutex<[String]>([])
            let err = Mutex<[String]>([])
            let console = Console(out: { line in out.withLock { $0.append(line) } },
                                  err: { line in err.withLock { $0.append(line) } })
            let code = await CLI.run(["--catalog", catalog, "--store", store] + arguments,
                                     environment: ProcessInfo.processInfo.environment, console: console)
            let stdout = out.withLock { $0.joined(separator: "\n") }
            let stderr = err.withLock { $0 }
            for line in stderr where line.contains("delivered unfinished transaction") { say("D") }
            let problems = stderr.filter { !$0.contains("delivered unfinished transaction") }
            guard code == .success else {
                say("E \(step.name) \(code.rawValue) \(problems.joined(separator: " | "))")
                continue
            }
            guard let json = try? JSON.parse(Array(stdout.utf8)) else {
                say("E \(step.name) json \(stdout.prefix(200))")
                continue
            }
            switch step.name {
            case "buy", "buy-owned":
                guard case .object? = json["transaction"], case .number(let id)? = json["transaction"]?["id"],
                      case .number(let quantity)? = json["transaction"]?["purchasedQuantity"],
                      case .bool(let owned)? = json["alreadyOwned"] else {
                    say("E \(step.name) json \(stdout.prefix(200))")
                    continue
                }
                let product = arguments[1]
                say("P \(id) \(product) \(quantity) \(owned)")
                if !owned { state.lastPurchase = Int64(id) }
            case "consume":
                say("C 1")
            case "refund":
                guard case .number(let id)? = json["transaction"]?["id"],
                      case .string(let product)? = json["transaction"]?["productID"],
                      case .number(let quantity)? = json["transaction"]?["purchasedQuantity"] else {
                    say("E refund json \(stdout.prefix(200))")
                    continue
                }
                say("R \(id) \(product) \(quantity)")
                state.lastPurchase = nil
            default:
                break
            }
        }
        return 0
    }

    // MARK: - The parent

    static func run(_ context: Context) async -> (Findings, String) {
        let findings = Findings()
        let folder = context.folder("concurrency")
        let store = folder + "/store.sqlite"
        let operations = context.quick ? 15 : 150

        // The workers first, racing to create the file and opening and closing it (each
        // last close checkpoints and removes the -wal); the paywall joins a moment later.
        var workers: [(pid: pid_t, output: String)] = []
        for index in 0..<4 {
            let output = folder + "/worker-\(index).out"
            guard let pid = Processes.spawn([context.stress, "child-worker", store, context.catalog, String(operations)],
                                            stdout: output, stderr: output + ".err") else {
                findings.fail("cannot start worker \(index)")
                continue
            }
            workers.append((pid, output))
        }
        usleep(1_500_000)
        let tui = Tmux(command: paywallCommand(context, folder: folder, store: store), columns: 100, rows: 30, session: "stress", socketPrefix: "storefront-stress")
        findings.check(tui != nil, "cannot start tmux for the paywall")
        _ = tui?.wait { $0.contains { $0.contains("Swift Shopping") } }

        // While they run, the paywall restores, moves and buys (Enter, Enter on the selected row).
        var tuiKeys = 0
        var running = true
        while running {
            running = workers.contains { Processes.isRunning($0.pid) }
            for keys in [["r"], ["j"], ["Enter"], ["Enter"], ["k"]] {
                tui?.send(keys[0])
                tuiKeys += 1
                usleep(150_000)
            }
            if let lines = tui?.screen() {
                let shown = lines.joined(separator: "\n").lowercased()
                findings.check(!shown.contains("locked") && !shown.contains("busy"),
                               "the paywall shows a lock error:\n\(lines.joined(separator: "\n"))")
            }
        }

        var newPurchases: [Int64: Int] = [:]
        var refunded: [Int64: (product: String, quantity: Int)] = [:]
        var consumed = 0, lockErrors = 0, otherErrors = 0, redelivered = 0, reportedIDs = 0, steps = 0
        for (index, worker) in workers.enumerated() {
            let ending = Processes.wait(worker.pid, timeout: 600)
            findings.check(ending.status == 0 && ending.signal == nil,
                           "worker \(index) ended with \(ending.status): \(Processes.read(worker.output + ".err").prefix(500))")
            for line in Processes.read(worker.output).split(separator: "\n") {
                let fields = line.split(separator: " ", maxSplits: 4).map(String.init)
                steps += 1
                switch fields.first {
                case "P":
                    reportedIDs += 1
                    if fields.count == 5, let id = Int64(fields[1]), fields[4] == "false" {
                        findings.check(newPurchases[id] == nil, "transaction \(id) reported as new twice")
                        newPurchases[id] = Int(fields[3]) ?? 0
                    }
                case "C": consumed += 1
                case "R":
                    if fields.count == 4, let id = Int64(fields[1]), let quantity = Int(fields[3]) {
                        findings.check(refunded[id] == nil, "transaction \(id) refunded twice")
                        refunded[id] = (fields[2], quantity)
                    }
                case "D": redelivered += 1; steps -= 1
                case "E":
                    let text = line.lowercased()
                    if text.contains("locked") || text.contains("busy") {
                        lockErrors += 1
                        findings.fail("a lock error reached the user: \(line)")
                    } else if !(fields.count > 2 && fields[1] == "consume" && fields[2] == "1"
                                && text.contains("insufficientbalance")) {
                        otherErrors += 1
                        findings.fail("worker \(index): \(line)")
                    }
                default: break
                }
            }
        }

        // The paywall is still alive and quits cleanly, giving the terminal back.
        if let tui {
            tui.send("Escape")
            tui.send("q")
            let exit = tui.wait { $0.contains { $0.hasPrefix("EXIT=") } }
            findings.check(exit.lines.contains("EXIT=0"), "the paywall did not quit with 0:\n\(exit.lines.joined(separator: "\n"))")
            usleep(300_000)
            findings.check(terminalRestored(folder: folder), "the paywall's terminal settings were not restored")
            tui.stop()
        }

        let checkup = StoreDoctor.examine(path: store)
        findings.check(checkup.isHealthy, "doctor: \(checkup.problems.map(\.message))")
        var transactions = 0, lost = 0, duplicated = 0
        do {
            let opened = try Store(catalog: try Catalog.load(contentsOf: context.catalog), path: store)
            let all = try await opened.appStore.transactions()  // the App Store's whole history (Transaction.all leaves out finished consumables)
            transactions = all.count
            duplicated = all.count - Set(all.map(\.id)).count
            findings.check(duplicated == 0, "transaction ids repeat")
            let ids = Set(all.map(\.id))
            let missing = newPurchases.keys.filter { !ids.contains($0) }
            lost = missing.count
            findings.check(missing.isEmpty, "reported purchases missing: \(missing)")
            // Charged means charged and kept: a refunded copy, bought again after, is not a double charge.
            let owned = all.filter { $0.productID == Demo.swiftShopping && $0.status == .purchased && $0.revocationDate == nil }
            findings.check(owned.count <= 1, "the non-consumable was charged \(owned.count) times")
            duplicated += max(0, owned.count - 1)
            findings.check(try await opened.app.unfinished().isEmpty, "transactions left unfinished")
            let notRevoked = refunded.keys.filter { id in all.first { $0.id == id }?.revocationDate == nil }
            findings.check(notRevoked.isEmpty, "refunds reported but not recorded: \(notRevoked)")
            let bought = all.filter { $0.productID == Demo.coins }.reduce(0) { $0 + $1.purchasedQuantity }
            let balance = try await opened.app.balances()[Demo.coins] ?? 0
            // A refund takes its coins back from the balance, but never below zero: the balance
            // lies between what was bought and consumed, less all that was refunded, and that.
            let refundedCoins = refunded.values.filter { $0.product == Demo.coins }.reduce(0) { $0 + $1.quantity }
            findings.check((bought - consumed - refundedCoins)...(bought - consumed) ~= balance,
                           "coins: \(bought) bought − \(consumed) consumed − up to \(refundedCoins) refunded ≠ balance \(balance)")
        } catch {
            findings.fail("the store did not open: \(error)")
        }
        let figures = "4 processes × \(operations) commands + the paywall (\(tuiKeys) keys), "
            + "\(transactions) transactions checked, \(newPurchases.count) new purchases reported, "
            + "\(refunded.count) refunded, \(lost) lost, "
            + "\(duplicated) duplicated, \(redelivered) delivered by another process, "
            + "\(lockErrors) lock errors, \(otherErrors) other errors"
        return (findings, figures)
    }
}
