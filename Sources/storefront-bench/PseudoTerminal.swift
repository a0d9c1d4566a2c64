import Foundation
import Glibc

/// A program running on a pseudo-terminal of a fixed size, as it would in a
/// terminal emulator: this side reads every byte the program writes to its
/// terminal and types keys into it.
final class PseudoTerminal {
    /// The controlling side; the program has the other end as its terminal.
    let master: Int32
    let pid: pid_t
    let started: ContinuousClock.Instant
    private var reaped = false

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Starts `path` with `arguments` in a new session whose controlling terminal
    /// is a new pseudo-terminal of `columns`×`rows`. `started` is taken just before the spawn.
    init(_ path: String, _ arguments: [String], environment: [String: String], columns: Int, rows: Int) throws {
        var master: Int32 = -1
        var slave: Int32 = -1
        var size = winsize(ws_row: UInt16(rows), ws_col: UInt16(columns), ws_xpixel: 0, ws_ypixel: 0)
        guard openpty(&master, &slave, nil, nil, &size) == 0 else { throw Failure(description: "openpty failed: errno \(errno)") }
        defer { close(slave) }
        _ = fcntl(master, F_SETFD, FD_CLOEXEC)
        guard let slaveName = ttyname(slave).map({ String(cString: $0) }) else {
            close(master)
            throw Failure(description: "ttyname failed")
        }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        // Opened (not inherited) after setsid, so it becomes the controlling terminal.
        posix_spawn_file_actions_addopen(&actions, 0, slaveName, O_RDWR, 0)
        posix_spawn_file_actions_adddup2(&actions, 0, 1)
        posix_spawn_file_actions_adddup2(&actions, 0, 2)
        // Nothing else of ours leaks into the child (a leaked fd can keep a pipe or pty open).
        for name in (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? [] {
            if let descriptor = Int32(name), descriptor > 2 { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
        }

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        var allSignals = sigset_t()
        sigfillset(&allSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setsigdefault(&attributes, &allSignals)
        posix_spawnattr_setflags(&attributes, Int16(Self.spawnSetsid | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var pid: pid_t = 0
        started = ContinuousClock.now
        let status = posix_spawn(&pid, path, &actions, &attributes, argv, envp)
        guard status == 0 else {
            close(master)
            throw Failure(description: "cannot start \(path): \(String(cString: strerror(status)))")
        }
        self.master = master
        self.pid = pid
    }

    /// glibc's POSIX_SPAWN_SETSID, hidden from Swift behind _GNU_SOURCE.
    private static let spawnSetsid: Int32 = 0x80

    deinit {
        kill()
        close(master)
    }

    /// What the program wrote within `timeout`, with the time it was read; nil when nothing came.
    /// An empty array means the program closed its terminal (it exited).
    func read(timeout: Duration) -> (bytes: [UInt8], at: ContinuousClock.Instant)? {
        var descriptor = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
        let milliseconds = Int32(timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
        let ready = poll(&descriptor, 1, milliseconds)
        guard ready > 0 else { return nil }
        var buffer = [UInt8](repeating: 0, count: 65536)
        let count = Glibc.read(master, &buffer, buffer.count)
        let now = ContinuousClock.now
        guard count > 0 else { return ([], now) }  // EIO: the last holder of the terminal closed it
        return (Array(buffer.prefix(count)), now)
    }

    /// Types bytes into the terminal (keys). Returns the time they were written.
    @discardableResult
    func type(_ bytes: [UInt8]) -> ContinuousClock.Instant {
        let now = ContinuousClock.now
        _ = bytes.withUnsafeBytes { Glibc.write(master, $0.baseAddress, $0.count) }
        return now
    }

    /// Waits up to `timeout` for the program to exit on its own; its resource
    /// usage (peak memory) when it did, nil when it did not.
    func waitForExit(timeout: Duration) -> rusage? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            var status: Int32 = 0
            var usage = rusage()
            if wait4(pid, &status, WNOHANG, &usage) == pid {
                reaped = true
                return usage
            }
            // Keep draining the terminal so the program never blocks writing to it.
            _ = read(timeout: .milliseconds(10))
        }
        return nil
    }

    /// The program's peak resident memory so far (`VmHWM`), in kilobytes. Not wait4's
    /// ru_maxrss: after a vfork-style spawn that counts the spawning process's memory too.
    func peakResidentKilobytes() -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }) else { return nil }
        return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
    }

    /// CPU time the program's threads have used so far (`/proc/PID/task/*/schedstat`, in
    /// nanoseconds): beside the wall-clock figures, one a busy machine moves less.
    func cpuTime() -> Duration? {
        guard let threads = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task") else { return nil }
        var nanoseconds = 0
        for thread in threads {
            guard let line = try? String(contentsOfFile: "/proc/\(pid)/task/\(thread)/schedstat", encoding: .utf8),
                  let first = line.split(separator: " ").first, let value = Int(first) else { continue }
            nanoseconds += value
        }
        return .nanoseconds(nanoseconds)
    }

    /// Ends the program (and anything it started in its session) and reaps it.
    func kill() {
        guard !reaped else { return }
        Glibc.kill(-pid, SIGKILL)
        Glibc.kill(pid, SIGKILL)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        reaped = true
    }
}
