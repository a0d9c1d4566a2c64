import Foundation
import Glibc
import Testing

/// The paywall on real terminal types, locales and input: the mouse in both encodings,
/// NO_COLOR, the C locale, and terminals without an alternate screen.
@Suite("paywall terminals end to end (tmux)")
struct PaywallTerminalEndToEndTests {
    /// A left click at a screen cell in the encoding `TERM` asks for: X10 (`\e[M`) for
    /// screen, SGR (`\e[<`) for xterm-256color; pressed and released.
    static func click(_ session: TmuxSession, x: Int, y: Int, sgr: Bool) async throws {
        if sgr {
            try await session.tmux("send-keys", "-t", "paywall", "-l", "\u{1B}[<0;\(x + 1);\(y + 1)M")
            try await session.tmux("send-keys", "-t", "paywall", "-l", "\u{1B}[<0;\(x + 1);\(y + 1)m")
        } else {
            let bytes = { (button: Int) in ["1b", "5b", "4d"] + [32 + button, 33 + x, 33 + y].map { String($0, radix: 16) } }
            for button in [0, 3] {
                let hex = bytes(button)
                try await session.tmux("send-keys", "-t", "paywall", "-H", hex[0], hex[1], hex[2], hex[3], hex[4], hex[5])
            }
        }
    }

    @Test("after a click, in either mouse encoding, the screen keeps following the store without a key",
          arguments: [("TERM=screen", false), ("TERM=xterm-256color", true)])
    func clickDoesNotStall(term: String, sgr: Bool) async throws {
        let sandbox = try Sandbox()
        try await withPaywall(sandbox, environment: "LANG=C.UTF-8 \(term)") { session in
            let lines = try await session.waitFor("the product table") { $0.contains { $0.contains("100 Coins") } }
            let row = try #require(lines.firstIndex { $0.contains("100 Coins") })
            try await Self.click(session, x: 10, y: row, sgr: sgr)
            try await session.waitFor("the clicked row selected") { lines in
                // A screen cut short (tmux gone) has no such row: keep waiting, do not trap.
                lines.indices.contains(row) && lines[row].contains("▸") && lines[row].contains("[ Buy ]")
            }
            // No key is pressed from here on.
            try await sandbox.storefront("buy", Demo.swiftShopping).expect(exit: 0)
            try await session.waitFor("the other process's purchase", timeout: .seconds(3)) { lines in
                lines.contains { $0.contains("✓") && $0.contains("Swift Shopping") }
            }
            // Buy by clicking: [ Buy ], then Confirm; the purchase finishes on screen by itself.
            let selected = try await session.screen()
            try #require(selected.indices.contains(row), "the screen has the clicked row")
            let buyX = try #require(selected[row].range(of: "[ Buy ]").map { selected[row].distance(from: selected[row].startIndex, to: $0.lowerBound) })
            try await Self.click(session, x: buyX + 2, y: row, sgr: sgr)
            let sheet = try await session.waitFor("the sheet") { $0.contains { $0.contains("[ Confirm") } }
            let confirmRow = try #require(sheet.firstIndex { $0.contains("[ Confirm") })
            let confirmX = try #require(sheet[confirmRow].range(of: "[ Confirm").map {
                sheet[confirmRow].unicodeScalars.distance(from: sheet[confirmRow].unicodeScalars.startIndex, to: $0.lowerBound.samePosition(in: sheet[confirmRow].unicodeScalars)!)
            })
            try await Self.click(session, x: confirmX + 2, y: confirmRow, sgr: sgr)
            try await session.waitFor("the purchase to finish", timeout: .seconds(3)) { lines in
                lines.contains { $0.contains("100 Coins") && $0.contains("Balance: 1") }
                    && !lines.contains { $0.contains("Purchasing") }
            }
        }
    }

    /// Issue 30 (13): the paywall as a script's background job (a process group of its own, as under
    /// `timeout`), then its terminal gone: no SIGHUP reaches it, every read of the terminal fails at
    /// once, and it spun at full speed for ever. It stops within seconds, saying why.
    @Test func thePaywallStopsWhenItsTerminalIsGone() async throws {
        let sandbox = try Sandbox()
        let binary = try #require(Binary.url)
        let job = "'\(binary.path)' --catalog '\(Binary.catalog)' --store '\(sandbox.store)' 2>paywall.err & echo $! > paywall.pid; wait $!"
        let escaped = job.replacingOccurrences(of: "$", with: "\\$")
        let command = "cd '\(sandbox.folder.path)' && env HOME='\(sandbox.home)' LANG=C.UTF-8 bash -c \"trap '' TTIN TTOU; set -m; \(escaped)\"; sleep 600"
        let session = try #require(Tmux(command: command, columns: 100, rows: 30, session: "gone", socketPrefix: "storefront-e2e"))
        func pid() -> pid_t? {
            Int32((try? String(contentsOfFile: sandbox.path("paywall.pid"), encoding: .utf8))?
                .trimmingCharacters(in: .whitespacesAndNewlines) ?? "")
        }
        defer {
            session.stop()
            if let pid = pid() { kill(pid, SIGKILL) }
        }
        let shown = await session.waitFor(timeout: .seconds(60)) { $0.contains { $0.contains("Swift Shopping") } }
        #expect(shown.ok, "\(shown.lines.joined(separator: "\n"))")
        let paywall = try #require(pid())
        session.stop()  // the terminal goes away
        let deadline = ContinuousClock.now + .seconds(20)
        while kill(paywall, 0) == 0, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(100)) }
        #expect(kill(paywall, 0) != 0, "the paywall still runs 20 s after its terminal went away")
        let message = (try? String(contentsOfFile: sandbox.path("paywall.err"), encoding: .utf8)) ?? ""
        #expect(message.contains("the paywall stops (nothing is lost"), "\(message)")
    }
}

/// NO_COLOR, the C locale and terminals without an alternate screen.
@Suite("paywall terminal types end to end (tmux)")
struct PaywallTerminalTypeEndToEndTests {
    /// The screen with its colours and attributes as escape sequences.
    func styledScreen(_ session: TmuxSession) async throws -> String {
        try await session.tmux("capture-pane", "-e", "-p", "-t", "paywall")
    }

    @Test("NO_COLOR draws without colour, keeping bold and reverse")
    func noColor() async throws {
        let sandbox = try Sandbox()
        try await sandbox.storefront("buy", Demo.swiftShopping).expect(exit: 0)
        for (environment, coloured) in [("LANG=C.UTF-8 TERM=screen-256color NO_COLOR=", true), ("LANG=C.UTF-8 TERM=screen-256color NO_COLOR=1", false)] {
            try await withPaywall(sandbox, environment: environment) { session in
                try await session.waitFor("the checkmark") { $0.contains { $0.contains("✓") && $0.contains("Swift Shopping") } }
                let styled = try await styledScreen(session)
                // Foreground colours are SGR 30–37 (alone or after other attributes).
                let parameters = styled.components(separatedBy: "\u{1B}[").dropFirst().compactMap { sequence in
                    sequence.split(separator: "m", maxSplits: 1, omittingEmptySubsequences: false).first
                }.flatMap { $0.split(separator: ";") }
                let hasColour = parameters.contains { (30...37).contains(Int($0) ?? 0) }
                #expect(hasColour == coloured, "\(environment): \(styled.prefix(400))")
                #expect(styled.contains("\u{1B}[7m") || styled.contains(";7m") || styled.contains("[7;"), "reverse video stays")
            }
        }
    }

    @Test("the C locale transliterates prices and names: EUR, Munzen, never ?")
    func cLocale() async throws {
        let sandbox = try Sandbox()
        try await sandbox.storefront("settings", "set", "storefront", "DEU").expect(exit: 0)
        try await withPaywall(sandbox, environment: "LANG=C LC_ALL=C") { session in
            let lines = try await session.waitFor("the German paywall") { lines in
                lines.contains { $0.contains("Munzen") } && lines.contains { $0.contains("q quit") }
            }
            let table = lines.filter { $0.contains("EUR") }
            #expect(table.count >= 5, "\(lines.joined(separator: "\n"))")
            #expect(!lines.contains { $0.replacingOccurrences(of: "? help", with: "").contains("?") },
                    "\(lines.joined(separator: "\n"))")
        }
    }

    @Test("TERM=vt100 (no alternate screen): quitting leaves a clear screen for the shell")
    func vt100Exit() async throws {
        try await withPaywall(try Sandbox(), environment: "LANG=C.UTF-8 TERM=vt100") { session in
            try await session.waitFor("the paywall") { $0.contains { $0.contains("Swift Shopping") } }
            try await session.send("q")
            let lines = try await session.waitFor("the exit status") { $0.contains { $0.contains("EXIT=") } }
            #expect(lines.contains("EXIT=0"))
            #expect(!lines.contains { $0.contains("Swift Shopping") || $0.contains("Restore Purchases") },
                    "\(lines.joined(separator: "\n"))")
        }
    }
}
