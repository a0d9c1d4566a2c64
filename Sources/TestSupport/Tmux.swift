import Foundation

/// A detached tmux server of its own (`-L`, no config file), running one command in a pane of
/// a fixed size: the real terminal path, read back with `capture-pane` as a user would see it.
public final class Tmux: Sendable {
    public let socket: String
    /// The session's name (`-t`).
    public let session: String

    /// Starts `command` (a shell line) in a detached `columns`×`rows` session; nil when tmux cannot.
    public init?(command: String, columns: Int, rows: Int, session: String = "main", socketPrefix: String = "storefront-tests") {
        socket = "\(socketPrefix)-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        self.session = session
        guard run("new-session", "-d", "-x", String(columns), "-y", String(rows), "-s", session, command).status == 0
        else { return nil }
    }

    /// Runs a tmux command on this server; stdout and stderr together.
    @discardableResult
    public func run(_ arguments: String...) -> ProcessOutcome {
        run(arguments)
    }

    @discardableResult
    public func run(_ arguments: [String]) -> ProcessOutcome {
        Processes.run(["/usr/bin/tmux", "-L", socket, "-f", "/dev/null"] + arguments, timeout: 20)
    }

    /// The pane as lines of text.
    public func screen() -> [String] {
        run("capture-pane", "-p", "-t", session).stdout.components(separatedBy: "\n")
    }

    /// `send-keys`, one key (or literal text) per call.
    public func send(_ keys: String...) {
        for key in keys { run("send-keys", "-t", session, key) }
    }

    public func resize(columns: Int, rows: Int) {
        run("resize-window", "-t", session, "-x", String(columns), "-y", String(rows))
    }

    /// Waits until the screen satisfies `condition`, blocking; returns the last screen and whether it did.
    public func wait(timeout: Double = 15, _ condition: ([String]) -> Bool) -> (lines: [String], ok: Bool) {
        let deadline = Date().addingTimeInterval(timeout)
        var lines = screen()
        while !condition(lines) {
            if Date() > deadline { return (lines, false) }
            usleep(50_000)
            lines = screen()
        }
        return (lines, true)
    }

    /// Waits until the screen satisfies `condition`, suspending between looks; returns the last screen and whether it did.
    public func waitFor(timeout: Duration, _ condition: ([String]) -> Bool) async -> (lines: [String], ok: Bool) {
        await withTaskExecutorPreference(OffPoolExecutor.shared) {
            let deadline = ContinuousClock.now + timeout
            var lines = screen()
            while !condition(lines) {
                if ContinuousClock.now > deadline { return (lines, false) }
                try? await Task.sleep(for: .milliseconds(50))
                lines = screen()
            }
            return (lines, true)
        }
    }

    /// Stops the server and everything in it.
    public func stop() {
        run("kill-server")
    }

    deinit { stop() }
}
