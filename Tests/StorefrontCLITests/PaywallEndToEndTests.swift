import Foundation
import Glibc
import Testing
import TestSupport

/// How long an end-to-end wait may take before it fails: as ProgramTests' `patience`, a ceiling
/// that a loaded machine (load average 5–12 on two cores) never reaches and a working program
/// never needs; a wait that succeeds returns as soon as the screen shows what it waits for.
let patience = Duration.seconds(120)

/// A detached tmux session of a fixed size running the built binary (TestSupport's `Tmux`): the
/// real terminal path, read back with `capture-pane` as a user would see it.
final class TmuxSession {
    let sandbox: Sandbox
    let session: Tmux

    private init(_ sandbox: Sandbox, _ session: Tmux) {
        self.sandbox = sandbox
        self.session = session
    }

    /// Starts `storefront` on the sandbox's store in a `columns`×`rows` session.
    static func start(_ sandbox: Sandbox, columns: Int = 100, rows: Int = 30, environment: String = "LANG=C.UTF-8",
                      catalog: String = Binary.catalog, arguments: [String] = ["--latency", "50"],
                      on host: NetworkHosts.Host? = nil) async throws -> TmuxSession {
        let binary = try #require(Binary.url, "cannot find the storefront binary; set STOREFRONT_BIN")
        let paywall = [binary.path, "--catalog", catalog, "--store", sandbox.store] + arguments
        let quoted = (host?.command(paywall) ?? paywall).map { "'" + $0 + "'" }.joined(separator: " ")
        // After the program ends the pane stays, showing its exit status, until the test stops the
        // server (ten minutes at most: a loaded run once read the screen after a minute's sleep had ended).
        // `timeout`, so a paywall whose test was killed midway does not run on forever: longer than the
        // waits of one test together (each may take `patience`); at 120 s a loaded run killed paywalls
        // whose tests were still waiting for them.
        let command = "cd '\(sandbox.folder.path)' && env HOME='\(sandbox.home)' \(environment) timeout --foreground 600 \(quoted); echo EXIT=$?; sleep 600"
        let session = try #require(Tmux(command: command, columns: columns, rows: rows, session: "paywall",
                                        socketPrefix: "storefront-e2e"), "tmux new-session failed")
        return TmuxSession(sandbox, session)
    }

    /// Stops the session's tmux server and everything in it.
    func stop() async {
        session.stop()
    }

    /// Runs a tmux command on this session's own server and returns what it printed. Waits by
    /// suspending (`Processes.launch`), not blocking one of the pool's two threads, which the
    /// other tests' tasks (StorefrontKit's updates among them) need meanwhile.
    @discardableResult
    func tmux(_ arguments: String...) async throws -> String {
        try await tmux(arguments)
    }

    func tmux(_ arguments: [String]) async throws -> String {
        let outcome = try await Processes.launch(URL(fileURLWithPath: "/usr/bin/tmux"),
                                                 arguments: ["-L", session.socket, "-f", "/dev/null"] + arguments,
                                                 timeout: .seconds(20), mergeOutput: true)
        return outcome.stdout
    }

    /// The screen as lines of text.
    func screen() async throws -> [String] {
        try await tmux("capture-pane", "-p", "-t", session.session).components(separatedBy: "\n")
    }

    func send(_ keys: String...) async throws {
        for key in keys { try await tmux("send-keys", "-t", session.session, key) }
    }

    func resize(columns: Int, rows: Int) async throws {
        try await tmux("resize-window", "-t", session.session, "-x", String(columns), "-y", String(rows))
    }

    /// Waits until the screen satisfies `condition`; records the last screen when it never does.
    /// Wait for what lasts (a row's status, a setting's value, the footer), not for a status-line
    /// note: a note goes after six seconds, and a loaded machine can capture the screen later than that.
    @discardableResult
    func waitFor(_ what: String, timeout: Duration = patience, sourceLocation: SourceLocation = #_sourceLocation,
                 _ condition: ([String]) -> Bool) async throws -> [String] {
        // Off Swift's shared pool: each look resumed at the back of its queue, and a loaded run
        // looked once a minute (TestSupport's OffPoolExecutor).
        try await withTaskExecutorPreference(OffPoolExecutor.shared) {
            let deadline = ContinuousClock.now + timeout
            var lines = try await screen()
            while !condition(lines) {
                if ContinuousClock.now > deadline {
                    Issue.record("timed out waiting for \(what); the screen was:\n\(lines.joined(separator: "\n"))",
                                 sourceLocation: sourceLocation)
                    return lines
                }
                try await Task.sleep(for: .milliseconds(50))
                lines = try await screen()
            }
            return lines
        }
    }

    /// The screen line showing `text`.
    func row(_ text: String, in lines: [String]) -> String? {
        lines.first { $0.contains(text) }
    }
}

/// Runs `body` against a paywall in tmux, and stops the tmux server afterwards, also on failure.
func withPaywall(_ sandbox: Sandbox, columns: Int = 100, rows: Int = 30, environment: String = "LANG=C.UTF-8",
                 catalog: String = Binary.catalog, on host: NetworkHosts.Host? = nil,
                 _ body: (TmuxSession) async throws -> Void) async throws {
    let session = try await TmuxSession.start(sandbox, columns: columns, rows: rows, environment: environment, catalog: catalog,
                                              on: host)
    do {
        try await body(session)
    } catch {
        await session.stop()
        throw error
    }
    await session.stop()
}

/// The few flows that prove the whole stack: binary, ncurses, engine, store file, second process.
@Suite("paywall end to end (tmux)")
struct PaywallEndToEndTests {
    @Test("buying a non-consumable puts a checkmark on its row")
    func buyShowsCheckmark() async throws {
        let sandbox = try Sandbox()
        try await withPaywall(sandbox) { session in
            try await session.waitFor("the product table") { $0.contains { $0.contains("Swift Shopping") } }
            try await session.send("Down", "Down", "Down", "Enter")  // the three plans, then Swift Shopping
            // Until its buttons, drawn last: a capture can land while the sheet is half drawn.
            let sheet = try await session.waitFor("the confirmation sheet") { lines in
                lines.contains { $0.contains("App Store") } && lines.contains { $0.contains("[ Confirm") }
            }
            #expect(sheet.contains { $0.contains("Swift Shopping") && $0.contains("│") })
            #expect(sheet.contains { $0.contains("Non-consumable · $0.99") })
            try await session.send("Enter")
            let lines = try await session.waitFor("the checkmark") { lines in
                lines.contains { $0.contains("✓") && $0.contains("Swift Shopping") && $0.contains("Owned") }
            }
            #expect(session.row("iPhone Rage", in: lines)?.contains("✓") == false, "only the bought row is checked")
        }
        // The purchase is in the store file, as a second process sees it.
        let history = try await sandbox.storefront("transactions", "--json").jsonObject()
        let transactions = try #require(history["transactions"] as? [[String: Any]])
        #expect(transactions.map { $0["productID"] as? String } == [Demo.swiftShopping])
    }

    @Test("reset app from a second process removes the checkmark live; r brings it back")
    func resetAndRestore() async throws {
        let sandbox = try Sandbox()
        try await sandbox.storefront("buy", Demo.swiftShopping).expect(exit: 0)
        try await withPaywall(sandbox) { session in
            try await session.waitFor("the owned checkmark") { lines in
                lines.contains { $0.contains("✓") && $0.contains("Swift Shopping") }
            }
            try await sandbox.storefront("reset", "app").expect(exit: 0)
            // No key is pressed: the paywall notices the other process's write by itself.
            try await session.waitFor("the checkmark to go", timeout: .seconds(3)) { lines in
                lines.contains { $0.contains("Swift Shopping") && !$0.contains("✓") }
            }
            try await session.send("r")
            // The row's ✓ may come from the store's change before the restore's own note, and the note
            // goes after a few seconds (a loaded run's screen reads came too far apart to see it): the
            // log's line stays.
            try await session.waitFor("the restore in the row and the log") { lines in
                lines.contains { $0.contains("✓") && $0.contains("Swift Shopping") }
                    && lines.contains { $0.contains(" restored ") && $0.contains(Demo.swiftShopping) }
            }
        }
    }

    @Test("with canMakePayments off prices say Not available and a purchase fails with Product.PurchaseError.purchaseNotAllowed")
    func cannotMakePayments() async throws {
        let sandbox = try Sandbox()
        try await sandbox.storefront("settings", "set", "canMakePayments", "false").expect(exit: 0)
        try await withPaywall(sandbox) { session in
            let lines = try await session.waitFor("Not available") { lines in
                lines.contains { $0.contains("Swift Shopping") && $0.contains("Not available") }
            }
            #expect(!lines.contains { $0.contains("$0.99") })
            // As StoreKit with payments restricted: no App Store sheet (no Confirm, no price), refused at once.
            try await session.send("Down", "Down", "Down", "Enter")  // the three plans, then Swift Shopping
            let alert = try await session.waitFor("the alert") { $0.contains { $0.contains("Purchase Failed") } }
            #expect(alert.contains { $0.contains("purchaseNotAllowed") })
            #expect(!alert.contains { $0.contains("✓") })
            #expect(!alert.contains { $0.contains("[ Confirm") })
        }
    }

    @Test("resizing redraws at once, says when too small, and comes back")
    func resize() async throws {
        try await withPaywall(try Sandbox()) { session in
            try await session.waitFor("the paywall") { $0.contains { $0.contains("Swift Shopping") } }
            try await session.resize(columns: 80, rows: 24)
            let small = try await session.waitFor("the 80×24 layout") { lines in
                lines.count >= 24 && lines[23].contains("q quit") && lines[3].hasPrefix(String(repeating: "─", count: 60))
                    && lines[3].hasSuffix(" 1/9 ──") && lines[3].count == 80
            }
            // Thirteen lines of table in twelve rows: the last heading shows, with the mark that a row is below.
            #expect(small.contains { $0.contains("Non-renewing subscriptions") && $0.hasSuffix("↓") }, "\(small.joined(separator: "\n"))")
            try await session.resize(columns: 50, rows: 12)
            try await session.waitFor("the too-small message") { $0.contains { $0.contains("needs 60×16") } }
            try await session.resize(columns: 100, rows: 30)
            try await session.waitFor("the full paywall again") { lines in
                lines.count >= 30 && lines[29].contains("q quit") && lines.contains { $0.contains("Swift Shopping") }
            }
        }
    }

    @Test("q quits with exit code 0 and gives the terminal back")
    func quit() async throws {
        try await withPaywall(try Sandbox()) { session in
            try await session.waitFor("the paywall") { $0.contains { $0.contains("Swift Shopping") } }
            try await session.send("q")
            let lines = try await session.waitFor("the exit status") { $0.contains { $0.contains("EXIT=") } }
            #expect(lines.contains("EXIT=0"))
            #expect(!lines.contains { $0.contains("Swift Shopping") }, "the paywall's screen is gone")
        }
    }

    @Test("an unknown TERM is one clear line and exit code 2")
    func unknownTerm() async throws {
        try await withPaywall(try Sandbox(), environment: "LANG=C.UTF-8 TERM=no-such-terminal") { session in
            let lines = try await session.waitFor("the exit status") { $0.contains { $0.contains("EXIT=") } }
            #expect(lines.contains("EXIT=2"))
            #expect(lines.contains { $0.contains("no-such-terminal") && $0.contains("unknown") })
        }
    }

    @Test("TERM=dumb is one clear line and exit code 2")
    func dumbTerminal() async throws {
        try await withPaywall(try Sandbox(), environment: "LANG=C.UTF-8 TERM=dumb") { session in
            let lines = try await session.waitFor("the exit status") { $0.contains { $0.contains("EXIT=") } }
            #expect(lines.contains("EXIT=2"))
            #expect(lines.contains { $0.contains("TERM=dumb") })
        }
    }

    @Test("a non-UTF-8 locale gets an ASCII paywall that quits cleanly")
    func asciiLocale() async throws {
        try await withPaywall(try Sandbox(), environment: "LANG=C LC_ALL=C") { session in
            let lines = try await session.waitFor("the paywall") { lines in
                lines.contains { $0.contains("Swift Shopping") } && lines.contains { $0.contains("q quit") }
            }
            #expect(lines.allSatisfy { $0.unicodeScalars.allSatisfy(\.isASCII) }, "\(lines.joined(separator: "\n"))")
            try await session.send("q")
            let exit = try await session.waitFor("the exit status") { $0.contains { $0.contains("EXIT=") } }
            #expect(exit.contains("EXIT=0"))
        }
    }

    @Test("a burst of resizes down to 1×1 and back leaves a whole paywall")
    func resizeBurst() async throws {
        try await withPaywall(try Sandbox()) { session in
            try await session.waitFor("the paywall") { $0.contains { $0.contains("Swift Shopping") } }
            for (columns, rows) in [(1, 1), (200, 60), (2, 1), (1, 40), (61, 17), (30, 5), (1, 1), (150, 3)] {
                try await session.resize(columns: columns, rows: rows)
            }
            try await session.resize(columns: 100, rows: 30)
            try await session.waitFor("the full paywall again") { lines in
                lines.count >= 30 && lines[29].contains("q quit") && lines.contains { $0.contains("Swift Shopping") }
            }
            try await session.send("q")
            let exit = try await session.waitFor("the exit status") { $0.contains { $0.contains("EXIT=") } }
            #expect(exit.contains("EXIT=0"))
        }
    }
}
