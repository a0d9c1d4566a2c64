import Foundation
import Glibc

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

// MARK: - Processes

/// How a child process ended, and what it printed.
struct Outcome {
    var status: Int32
    /// The signal that ended it, when one did.
    var signal: Int32?
    var stdout: String
    var stderr: String
    var timedOut = false

    var crashed: Bool { signal != nil && !timedOut }
    /// Both streams, for failure messages.
    var summary: String {
        "exit \(status)\(signal.map { " signal \($0)" } ?? "")\(timedOut ? " (timed out)" : ""): \(stderr.prefix(400))\(stdout.prefix(200))"
    }
}

enum Processes {
    /// Starts `arguments[0]` with stdin from `/dev/null` and stdout/stderr into files;
    /// closes every other descriptor in the child, so no daemon it leaves (tmux) keeps ours open.
    static func spawn(_ arguments: [String], environment: [String: String]? = nil,
                      stdout: String, stderr: String) -> pid_t? {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, stdout, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, stderr, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        let open = ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? [])
            .compactMap { Int32($0) }.filter { $0 > 2 }
        for fd in open { posix_spawn_file_actions_addclose(&actions, fd) }
        let env = (environment ?? ProcessInfo.processInfo.environment).map { "\($0.key)=\($0.value)" }
        // Swift's and Dispatch's threads block most signals, and a child inherits the mask:
        // a tmux server started so never sees its pane exit, nor a program its SIGTERM.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGPIPE, SIGCHLD, SIGXFSZ] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var pid: pid_t = 0
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = env.map { strdup($0) } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        let status = posix_spawn(&pid, arguments[0], &actions, &attributes, argv, envp)
        return status == 0 ? pid : nil
    }

    /// Waits for `pid`; kills it with SIGKILL after `timeout` seconds.
    static func wait(_ pid: pid_t, timeout: Double) -> (status: Int32, signal: Int32?, timedOut: Bool) {
        let deadline = Date().addingTimeInterval(timeout)
        var status: Int32 = 0
        var timedOut = false
        while waitpid(pid, &status, WNOHANG) == 0 {
            if Date() > deadline, !timedOut {
                timedOut = true
                kill(pid, SIGKILL)
            }
            usleep(2_000)
        }
        let signal = status & 0x7F
        return signal == 0 ? ((status >> 8) & 0xFF, nil, timedOut) : (128 + signal, signal, timedOut)
    }

    /// Whether `pid` has not ended yet (without reaping it).
    static func isRunning(_ pid: pid_t) -> Bool {
        var info = siginfo_t()
        return waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info._sifields._sigchld.si_pid == 0
    }

    /// Runs a command to its end and returns what it printed.
    static func run(_ arguments: [String], environment: [String: String]? = nil, timeout: Double = 60,
                    scratch: String = NSTemporaryDirectory()) -> Outcome {
        let base = scratch + "/run-\(UUID().uuidString)"
        defer {
            unlink(base + ".out")
            unlink(base + ".err")
        }
        guard let pid = spawn(arguments, environment: environment, stdout: base + ".out", stderr: base + ".err") else {
            return Outcome(status: 127, signal: nil, stdout: "", stderr: "cannot start \(arguments[0])")
        }
        let ending = wait(pid, timeout: timeout)
        return Outcome(status: ending.status, signal: ending.signal, stdout: read(base + ".out"),
                       stderr: read(base + ".err"), timedOut: ending.timedOut)
    }

    static func read(_ path: String) -> String {
        String(decoding: FileManager.default.contents(atPath: path) ?? Data(), as: UTF8.self)
    }

    /// A shell one-liner's outcome (mounts, `ulimit`).
    static func shell(_ script: String, _ arguments: [String] = []) -> Outcome {
        run(["/bin/bash", "-c", script, "bash"] + arguments)
    }
}

/// The bytes of a file, or nil when it is missing.
func contents(_ path: String) -> Data? {
    FileManager.default.contents(atPath: path)
}

// MARK: - tmux

/// A detached tmux server of its own, running one command in a pane of a fixed size.
final class Tmux {
    let socket = "storefront-stress-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"

    /// Starts `command` (a shell line) in a `columns`×`rows` session.
    init?(command: String, columns: Int, rows: Int) {
        guard run("new-session", "-d", "-x", String(columns), "-y", String(rows), "-s", "stress", command).status == 0
        else { return nil }
    }

    @discardableResult
    func run(_ arguments: String...) -> Outcome {
        Processes.run(["/usr/bin/tmux", "-L", socket, "-f", "/dev/null"] + arguments, timeout: 20)
    }

    func screen() -> [String] {
        run("capture-pane", "-p", "-t", "stress").stdout.components(separatedBy: "\n")
    }

    func send(_ keys: String...) {
        for key in keys { run("send-keys", "-t", "stress", key) }
    }

    func resize(columns: Int, rows: Int) {
        run("resize-window", "-t", "stress", "-x", String(columns), "-y", String(rows))
    }

    /// Waits until the screen satisfies `condition`; returns the last screen and whether it did.
    func wait(timeout: Double = 15, _ condition: ([String]) -> Bool) -> (lines: [String], ok: Bool) {
        let deadline = Date().addingTimeInterval(timeout)
        var lines = screen()
        while !condition(lines) {
            if Date() > deadline { return (lines, false) }
            usleep(50_000)
            lines = screen()
        }
        return (lines, true)
    }

    /// Stops the server and everything in it.
    func stop() {
        run("kill-server")
    }

    deinit { stop() }
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
