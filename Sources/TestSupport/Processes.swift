import Foundation
import Glibc

/// How a child process ended, and what it printed.
public struct ProcessOutcome: Sendable, CustomStringConvertible {
    /// The exit status; for a process ended by a signal, that signal's number.
    public var status: Int32
    /// The signal that ended it, when one did.
    public var signal: Int32?
    public var stdout: String
    public var stderr: String
    /// Standard output as it was written, for binary output (a DER file, JSON to parse).
    public var stdoutBytes: Data
    /// Killed for outliving its time limit.
    public var timedOut: Bool

    public init(status: Int32, signal: Int32? = nil, stdout: Data, stderr: Data, timedOut: Bool = false) {
        self.status = status
        self.signal = signal
        self.stdout = String(decoding: stdout, as: UTF8.self)
        self.stderr = String(decoding: stderr, as: UTF8.self)
        self.stdoutBytes = stdout
        self.timedOut = timedOut
    }

    /// Ended by a signal it did not get from its time limit: a crash.
    public var crashed: Bool { signal != nil && !timedOut }

    /// Both streams, shortened, for a one-line failure message.
    public var summary: String {
        "exit \(status)\(signal.map { " signal \($0)" } ?? "")\(timedOut ? " (timed out)" : ""): \(stderr.prefix(400))\(stdout.prefix(200))"
    }

    public var description: String {
        "exit \(status)\(signal != nil ? " (signal)" : "")\(timedOut ? " (timed out)" : "")\n--- stdout ---\n\(stdout)--- stderr ---\n\(stderr)"
    }
}

/// Child processes: the built binary, tmux, sqlite3, a shell line.
public enum Processes {
    /// Starts `arguments[0]` with stdin from `/dev/null` and stdout/stderr appended to files (the
    /// same file for both is fine); closes every other descriptor in the child, so no daemon it
    /// leaves (a tmux server) keeps ours open, and with them the pipes by which Foundation's
    /// `Process` notices that other children have ended.
    public static func spawn(_ arguments: [String], environment: [String: String]? = nil,
                             stdout: String, stderr: String) -> pid_t? {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, stdout, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        if stderr == stdout {
            posix_spawn_file_actions_adddup2(&actions, 1, 2)
        } else {
            posix_spawn_file_actions_addopen(&actions, 2, stderr, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        }
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

    /// Waits for `pid`; kills it with SIGKILL after `timeout` seconds. The status is 128 + the signal for a signal.
    public static func wait(_ pid: pid_t, timeout: Double) -> (status: Int32, signal: Int32?, timedOut: Bool) {
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
    public static func isRunning(_ pid: pid_t) -> Bool {
        var info = siginfo_t()
        return waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info._sifields._sigchld.si_pid == 0
    }

    /// Runs a command to its end and returns what it printed; blocks the calling thread.
    public static func run(_ arguments: [String], environment: [String: String]? = nil, timeout: Double = 60,
                           scratch: String = NSTemporaryDirectory()) -> ProcessOutcome {
        let base = scratch + "/run-\(UUID().uuidString)"
        defer {
            unlink(base + ".out")
            unlink(base + ".err")
        }
        guard let pid = spawn(arguments, environment: environment, stdout: base + ".out", stderr: base + ".err") else {
            return ProcessOutcome(status: 127, stdout: Data(), stderr: Data("cannot start \(arguments[0])".utf8))
        }
        let ending = wait(pid, timeout: timeout)
        return ProcessOutcome(status: ending.status, signal: ending.signal, stdout: FileManager.default.contents(atPath: base + ".out") ?? Data(),
                              stderr: FileManager.default.contents(atPath: base + ".err") ?? Data(), timedOut: ending.timedOut)
    }

    /// A file's text, empty when it is missing.
    public static func read(_ path: String) -> String {
        String(decoding: FileManager.default.contents(atPath: path) ?? Data(), as: UTF8.self)
    }

    /// A shell one-liner's outcome (mounts, `ulimit`).
    public static func shell(_ script: String, _ arguments: [String] = []) -> ProcessOutcome {
        run(["/bin/bash", "-c", script, "bash"] + arguments)
    }

    /// Runs a process to its end by suspending, never by blocking (a blocked thread of Swift's
    /// small pool, one per core, starves every other test's tasks meanwhile), with stdout and
    /// stderr captured in files (no pipe can fill up and block it) and a time limit after which
    /// it is killed. With `mergeOutput`, stderr goes into stdout's file.
    ///
    /// Spawned by ``spawn(_:environment:stdout:stderr:)``, not Foundation's `Process`, whose
    /// `run()` on Linux now and then crashes reading `/proc/self/fd` past its buffer
    /// (swift-corelibs-foundation#5472), the likelier the more children run side by side.
    public static func launch(_ executable: URL, arguments: [String], environment: [String: String]? = nil,
                              directory: URL? = nil, timeout: Duration = .seconds(60),
                              mergeOutput: Bool = false) async throws -> ProcessOutcome {
        let outputs = FileManager.default.temporaryDirectory.appendingPathComponent("storefront-run-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: outputs, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: outputs) }
        let out = outputs.appendingPathComponent("stdout").path
        let err = mergeOutput ? out : outputs.appendingPathComponent("stderr").path
        // env -C: the folder to run in (Glibc's posix_spawn_file_actions_addchdir_np does not import).
        let command = directory.map { ["/usr/bin/env", "-C", $0.path, executable.path] } ?? [executable.path]
        guard let pid = spawn(command + arguments, environment: environment, stdout: out, stderr: err) else {
            throw POSIXError(.ENOENT)
        }
        let ending = await exit(of: pid, timeout: timeout)
        return ProcessOutcome(status: ending.status, signal: ending.signal,
                              stdout: FileManager.default.contents(atPath: out) ?? Data(),
                              stderr: mergeOutput ? Data() : FileManager.default.contents(atPath: err) ?? Data(),
                              timedOut: ending.timedOut)
    }

    /// Waits for `pid` by suspending between looks; SIGKILL after `timeout`. The status is 128 + the signal for a signal.
    public static func exit(of pid: pid_t, timeout: Duration = .seconds(60)) async -> (status: Int32, signal: Int32?, timedOut: Bool) {
        let deadline = ContinuousClock.now + timeout
        var status: Int32 = 0
        var timedOut = false
        while true {
            let reaped = waitpid(pid, &status, WNOHANG)
            if reaped == pid || (reaped == -1 && errno != EINTR) { break }
            if ContinuousClock.now > deadline, !timedOut {
                timedOut = true
                kill(pid, SIGKILL)
            }
            try? await Task.sleep(for: .milliseconds(2))
        }
        let signal = status & 0x7F
        return signal == 0 ? ((status >> 8) & 0xFF, nil, timedOut) : (128 + signal, signal, timedOut)
    }
}
