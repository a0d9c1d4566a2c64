import Foundation
import Glibc

/// One run of a command-line program as a whole process: how long until its first byte of
/// output and until it exited, its peak memory, and how much it wrote.
struct ProcessRun {
    var elapsed: Duration
    /// From the spawn to the first byte on standard output; nil when it wrote nothing.
    var firstOutput: Duration?
    /// Peak resident memory in kilobytes, as GNU time reports it (`%M`).
    var peakKilobytes: Int
    var outputBytes: Int
    /// The last 4 KB of standard output, for a look at what it said.
    var tail: [UInt8]

    /// Runs `path` with `arguments` under `/usr/bin/time`, which forks (not vforks) it, so the
    /// peak memory is the program's own: a child spawned from this process would be charged
    /// this process's memory too. Standard output is read (and counted) as it comes; standard
    /// error goes to `errorFile`. Throws when the program fails.
    /// It runs in `work`, where there is no products.json: commands that need no catalog run without one.
    static func run(_ path: String, _ arguments: [String], environment: [String: String] = [:],
                    work: String) throws -> ProcessRun {
        let timeFile = work + "/time-\(getpid()).txt", errorFile = work + "/stderr-\(getpid()).txt"
        defer {
            unlink(timeFile)
            unlink(errorFile)
        }
        var pipeEnds: [Int32] = [0, 0]
        guard pipe(&pipeEnds) == 0 else { throw PseudoTerminal.Failure(description: "pipe: errno \(errno)") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, pipeEnds[1], 1)
        posix_spawn_file_actions_addopen(&actions, 2, errorFile, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addclose(&actions, pipeEnds[0])
        posix_spawn_file_actions_addclose(&actions, pipeEnds[1])
        // env -C: the folder to run in (Glibc's posix_spawn_file_actions_addchdir_np does not import).
        let argv = (["/usr/bin/time", "-f", "%M", "-o", timeFile, "/usr/bin/env", "-C", work, path] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var merged = ProcessInfo.processInfo.environment
        for (name, value) in environment { merged[name] = value }
        let envp = merged.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { envp.forEach { free($0) } }
        var child: pid_t = 0
        let started = ContinuousClock.now
        guard posix_spawn(&child, "/usr/bin/time", &actions, nil, argv, envp) == 0 else {
            close(pipeEnds[0])
            close(pipeEnds[1])
            throw PseudoTerminal.Failure(description: "cannot start /usr/bin/time \(path)")
        }
        close(pipeEnds[1])
        var first: Duration?
        var count = 0
        var tail: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let read = buffer.withUnsafeMutableBytes { Glibc.read(pipeEnds[0], $0.baseAddress, $0.count) }
            if read < 0, errno == EINTR { continue }
            guard read > 0 else { break }
            if first == nil { first = ContinuousClock.now - started }
            count += read
            tail += buffer[..<read]
            if tail.count > 8192 { tail.removeFirst(tail.count - 4096) }
        }
        close(pipeEnds[0])
        var status: Int32 = 0
        while waitpid(child, &status, 0) == -1, errno == EINTR {}
        let elapsed = ContinuousClock.now - started
        let errorText = (try? String(contentsOfFile: errorFile, encoding: .utf8)) ?? ""
        guard status == 0 else {
            throw PseudoTerminal.Failure(description: "\(path) \(arguments.joined(separator: " ")) failed (status \(status)): \(errorText.suffix(600))")
        }
        let reported = (try? String(contentsOfFile: timeFile, encoding: .utf8)) ?? ""
        guard let peak = reported.split(separator: "\n").last.flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) }) else {
            throw PseudoTerminal.Failure(description: "/usr/bin/time reported no peak memory: \(reported)")
        }
        return ProcessRun(elapsed: elapsed, firstOutput: first, peakKilobytes: peak, outputBytes: count,
                          tail: Array(tail.suffix(4096)))
    }
}
