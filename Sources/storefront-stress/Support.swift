import Foundation
import Glibc
import TestSupport

/// What every part needs: the binaries under test, the bundled catalog, a scratch folder.
struct Context: Sendable {
    /// The `storefront` executable under test.
    var storefront: String
    /// This executable, re-run as a child (a crash-test buyer, a concurrent worker).
    var stress: String
    /// The bundled products.json.
    var catalog: String
    /// The libFuzzer binary of the catalog readers, and the seed corpus.
    var fuzzer: String?
    var corpus: String
    /// A private folder for this run, removed at the end.
    var work: String
    /// Fewer iterations (for a quick look; `make stress` runs the full counts).
    var quick: Bool

    /// A fresh folder inside the work folder.
    func folder(_ name: String) -> String {
        let path = work + "/" + name
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }
}

extension Context {
    /// Runs `storefront` on `store` with `arguments` (after `prefix`, a shell line such as a
    /// `ulimit`, when given).
    func run(_ store: String, _ arguments: [String], catalog: String? = nil, shell prefix: String? = nil) -> Outcome {
        let command = [storefront, "--catalog", catalog ?? self.catalog, "--store", store] + arguments
        guard let prefix else { return Processes.run(command, timeout: 120) }
        return Processes.shell("\(prefix); exec \"$@\"", command)
    }

    /// Every row of the store's transactions table, read with sqlite3 (finished consumables are
    /// not in `transactions`, as in StoreKit's Transaction.all); -1 when it cannot be read.
    func transactionCount(_ store: String) -> Int {
        Int(Processes.run(["/usr/bin/sqlite3", store, "SELECT count(*) FROM transactions"]).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
    }
}

/// `sqlite3 STORE SQL`: the store file as another program sees it.
func sqlite(_ store: String, _ sql: String) -> Outcome { Processes.run(["/usr/bin/sqlite3", store, sql]) }

/// Product ids of the bundled products.json.
enum Demo {
    static let coins = "com.example.storefront.coins100"
    static let swiftShopping = "com.razeware.razefaces.swiftshopping"
    static let iPhoneRage = "com.razeware.razefaces.iphonerage"
    static let monthly = "barcode_month_subscription"
}

/// Failures found by one part, and its figures for the report line.
final class Findings {
    private(set) var failures: [String] = []

    /// Records `message` when `condition` is false; returns `condition`.
    @discardableResult
    func check(_ condition: Bool, _ message: @autoclosure () -> String) -> Bool {
        if !condition { failures.append(message()) }
        return condition
    }

    func fail(_ message: String) { failures.append(message) }
}

// MARK: - Processes and tmux: TestSupport's `Processes`, `ProcessOutcome` and `Tmux`

/// How a child process ended, and what it printed.
typealias Outcome = ProcessOutcome

/// The bytes of a file, or nil when it is missing.
func contents(_ path: String) -> Data? {
    FileManager.default.contents(atPath: path)
}

/// A shell line that runs the paywall in a pane, records the terminal settings
/// before and after (`stty -g`) to compare, and shows the exit status.
func paywallCommand(_ context: Context, folder: String, store: String, catalog: String? = nil,
                    environment: String = "LANG=C.UTF-8 TERM=xterm-256color") -> String {
    let program = [context.storefront, "--catalog", catalog ?? context.catalog, "--store", store, "--latency", "0"]
        .map { "'" + $0 + "'" }.joined(separator: " ")
    return "cd '\(folder)' && stty -g > stty.before; env \(environment) timeout --foreground 300 \(program); "
        + "echo EXIT=$?; stty -g > stty.after; sleep 300"
}

/// True when the pane's terminal settings after the paywall equal those before it.
func terminalRestored(folder: String) -> Bool {
    guard let before = contents(folder + "/stty.before"), let after = contents(folder + "/stty.after") else { return false }
    return !before.isEmpty && before == after
}

/// `sqlite3`, another process, holding a store's write lock until let go (at most 120 s), not for
/// a fixed time: SQLite counts a busy timeout in the sleeps it asked for, which a loaded machine
/// stretches (a fixed 40 s hold once ended before a 30 s timeout had counted out).
struct WriteLockHolder {
    let pid: pid_t
    private let release: String

    /// Starts it with its files in `folder`, and returns once `sqlite3` says it holds the lock,
    /// however long a loaded machine takes to start it (half a second was not always enough);
    /// nil when it did not within 20 s.
    init?(store: String, folder: String) {
        let said = folder + "/holder.out"
        release = folder + "/release"
        try? FileManager.default.removeItem(atPath: said)
        try? FileManager.default.removeItem(atPath: release)
        let script = "(echo 'BEGIN IMMEDIATE;'; echo \"SELECT 'locked';\"; for i in $(seq 1200); do [ -e \"$1\" ] && break; sleep 0.1; done; echo 'COMMIT;') | sqlite3 \"$0\""
        guard let pid = Processes.spawn(["/bin/bash", "-c", script, store, release], stdout: said, stderr: "/dev/null") else { return nil }
        self.pid = pid
        let deadline = Date().addingTimeInterval(20)
        while !Processes.read(said).contains("locked"), Date() < deadline { usleep(10_000) }
        guard Processes.read(said).contains("locked") else {
            kill(pid, SIGKILL)
            return nil
        }
    }

    /// Lets the lock go and waits for `sqlite3` to end.
    func letGo() {
        _ = FileManager.default.createFile(atPath: release, contents: nil)
        _ = Processes.wait(pid, timeout: 30)
    }
}
