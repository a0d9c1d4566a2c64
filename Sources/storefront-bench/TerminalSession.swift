import Glibc

/// A program on a pseudo-terminal together with the screen its output draws:
/// waits are for something to be on the screen, never for a fixed time.
final class TerminalSession {
    let terminal: PseudoTerminal
    private(set) var screen: Screen
    /// Every byte read from the program so far, in order (a key press's output is a slice of it).
    private(set) var transcript: [UInt8] = []
    var bytesRead: Int { transcript.count }

    struct Timeout: Error, CustomStringConvertible {
        var what: String
        var screen: [String]
        var description: String {
            "timed out waiting for \(what); the screen was:\n" + screen.map { "  |" + $0 }.joined(separator: "\n")
        }
    }

    init(_ path: String, _ arguments: [String], environment: [String: String], columns: Int, rows: Int) throws {
        terminal = try PseudoTerminal(path, arguments, environment: environment, columns: columns, rows: rows)
        screen = Screen(columns: columns, rows: rows)
    }

    /// Reads and draws output until `condition` holds on the screen; returns the
    /// time the read that made it hold arrived.
    func wait(for what: String, timeout: Duration = .seconds(60),
              until condition: (Screen) -> Bool) throws -> ContinuousClock.Instant {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            guard let (bytes, at) = terminal.read(timeout: .milliseconds(200)) else { continue }
            guard !bytes.isEmpty else { break }
            transcript += bytes
            screen.feed(bytes)
            if condition(screen) { return at }
        }
        throw Timeout(what: what, screen: screen.lines)
    }

    /// Reads and draws output until none has come for `quiet`: the screen has settled.
    func settle(quiet: Duration = .milliseconds(300)) {
        while let (bytes, _) = terminal.read(timeout: quiet), !bytes.isEmpty {
            transcript += bytes
            screen.feed(bytes)
        }
    }

    /// The bytes a terminal sends for the down arrow, in the mode the program asked for.
    var downArrow: [UInt8] {
        Array((screen.applicationCursorKeys ? "\u{1B}OB" : "\u{1B}[B").utf8)
    }
}
