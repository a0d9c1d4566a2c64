import Foundation
import TestSupport

/// Terminals that make curses programs fall over: resize storms, a 1×1 window,
/// unknown and dumb terminal types, no terminal at all, a non-UTF-8 locale.
/// No crash, a clear message where the paywall cannot run, the terminal restored.
enum Terminals {
    static func run(_ context: Context) async -> (Findings, String) {
        let findings = Findings()
        let resizes = context.quick ? 60 : 400
        var sessions = 0, restored = 0

        /// Runs the paywall in a pane; `body` drives it; then checks the exit status
        /// line and that the terminal settings came back.
        func session(_ name: String, columns: Int = 100, rows: Int = 30, environment: String = "LANG=C.UTF-8 TERM=xterm-256color",
                     expectExit: Int, _ body: (Tmux) -> Void) {
            let folder = context.folder("terminal/\(sessions)")
            sessions += 1
            guard let tui = Tmux(command: paywallCommand(context, folder: folder, store: folder + "/store.sqlite",
                                                         environment: environment),
                                 columns: columns, rows: rows, session: "stress", socketPrefix: "storefront-stress") else {
                findings.fail("\(name): cannot start tmux")
                return
            }
            defer { tui.stop() }
            body(tui)
            let exit = tui.wait(timeout: 20) { $0.contains { $0.hasPrefix("EXIT=") } }
            // A prefix: after a 1×1 start, tmux keeps a row of the alternate screen (ncurses' `watch` too).
            findings.check(exit.lines.contains { $0.hasPrefix("EXIT=\(expectExit)") },
                           "\(name): expected EXIT=\(expectExit):\n\(exit.lines.joined(separator: "\n"))")
            _ = tui.wait(timeout: 5) { _ in FileManager.default.fileExists(atPath: folder + "/stty.after") }
            usleep(100_000)
            if findings.check(terminalRestored(folder: folder), "\(name): the terminal settings were not restored") {
                restored += 1
            }
        }

        session("resize storm", expectExit: 0) { tui in
            _ = tui.wait { $0.contains { $0.contains("Swift Shopping") } }
            for index in 0..<resizes {
                let tiny = index % 7 == 0
                tui.resize(columns: tiny ? Int.random(in: 1...3) : Int.random(in: 1...220),
                           rows: tiny ? Int.random(in: 1...3) : Int.random(in: 1...70))
                if index % 25 == 0 { tui.send("j") }
            }
            tui.resize(columns: 100, rows: 30)
            let back = tui.wait { $0.count >= 30 && $0[29].contains("q quit") && $0.contains { $0.contains("Swift Shopping") } }
            findings.check(back.ok, "resize storm: the paywall did not come back at 100×30:\n\(back.lines.joined(separator: "\n"))")
            tui.send("q")
        }

        session("1×1 terminal", columns: 1, rows: 1, expectExit: 0) { tui in
            usleep(1_500_000)
            findings.check(!tui.screen().contains { $0.hasPrefix("EXIT=") }, "1×1: the paywall ended by itself")
            tui.resize(columns: 80, rows: 24)
            let grown = tui.wait { $0.contains { $0.contains("Swift Shopping") } }
            findings.check(grown.ok, "1×1: no paywall after growing to 80×24:\n\(grown.lines.joined(separator: "\n"))")
            tui.send("q")
        }

        for (name, environment) in [("unknown TERM", "LANG=C.UTF-8 TERM=no-such-terminal"), ("TERM=dumb", "LANG=C.UTF-8 TERM=dumb"),
                                    ("no TERM", "-u TERM LANG=C.UTF-8")] {
            session(name, environment: environment, expectExit: 2) { tui in
                let said = tui.wait { $0.contains { $0.contains("storefront:") } }
                findings.check(said.ok, "\(name): no clear message:\n\(said.lines.joined(separator: "\n"))")
            }
        }

        for (name, environment) in [("C locale", "LANG=C LC_ALL=C TERM=xterm-256color"),
                                    ("POSIX locale, 80×24", "LC_ALL=POSIX TERM=xterm")] {
            session(name, columns: 80, rows: 24, environment: environment, expectExit: 0) { tui in
                let drawn = tui.wait { $0.contains { $0.contains("Swift Shopping") } && $0.count >= 24 && $0[23].contains("q quit") }
                findings.check(drawn.ok, "\(name): no paywall:\n\(drawn.lines.joined(separator: "\n"))")
                findings.check(drawn.lines.allSatisfy { $0.unicodeScalars.allSatisfy(\.isASCII) },
                               "\(name): non-ASCII on a non-UTF-8 terminal:\n\(drawn.lines.joined(separator: "\n"))")
                tui.send("q")
            }
        }

        // No terminal at all: a pipe and /dev/null.
        let folder = context.folder("terminal/pipe")
        let piped = Processes.run([context.storefront, "--catalog", context.catalog, "--store", folder + "/store.sqlite"],
                                  environment: ["TERM": "xterm-256color", "LANG": "C.UTF-8", "PATH": "/usr/bin:/bin"])
        findings.check(piped.status == 2 && !piped.crashed && piped.stderr.contains("terminal"),
                       "no TTY: expected exit 2 and a message: \(piped.summary)")

        let figures = "\(sessions) terminal sessions (\(resizes) resizes down to 1×1, 1×1 start, unknown/dumb/no TERM, "
            + "C and POSIX locales) + no TTY, \(restored)/\(sessions) terminals restored"
        return (findings, figures)
    }
}
