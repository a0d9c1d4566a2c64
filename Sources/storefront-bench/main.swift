import Dispatch
import Foundation

// `make bench`: every figure beside a baseline run now, on this machine, or beside its limit.
// Usage: storefront-bench [--storefront PATH] [--work FOLDER] [--runs N]
//        storefront-bench --profile load|load-times|seed|restore|purchase|buy|session|kit|snapshot|paint|keypress|serve   (one run of one part, for valgrind --tool=callgrind; load-times: figure 6a alone)
//        storefront-bench --profile first-paint   (figures 1, 1a, 1b, 1c, 2, 2a and 5 alone)
//        storefront-bench --profile latency|test-loop|test-session|postgresql   (figures 11 and 11a, 12, 13 and 13a, or 14–14c, alone)

// The bench's own baseline server (figures 10 and 10c): libmicrohttpd answering 1 KB (or N bytes), in a process of its own.
if CommandLine.arguments.dropFirst().first == "--baseline-server" { ServerBenchmark.baselineServer() }
// The second process of figures 11 and 11a: buys what it is told on a store file of its own connection.
if CommandLine.arguments.count == 4, CommandLine.arguments[1] == "--committer" {
    LatencyBenchmark.committerMain(catalogPath: CommandLine.arguments[2], storePath: CommandLine.arguments[3])
}

var options = ["--storefront": ".build/release/storefront", "--work": ".build/bench", "--runs": "5", "--profile": ""]
var arguments = CommandLine.arguments.dropFirst()
while let name = arguments.popFirst() {
    guard options[name] != nil, let value = arguments.popFirst() else {
        FileHandle.standardError.write(Data("usage: storefront-bench [--storefront PATH] [--work FOLDER] [--runs N] [--profile load|load-times|seed|restore|purchase|buy|session|kit|snapshot|paint|keypress|serve|first-paint|latency|test-loop|test-session|postgresql]\n".utf8))
        exit(64)
    }
    options[name] = value
}
let binary = URL(fileURLWithPath: options["--storefront"]!).standardizedFileURL.path
let work = URL(fileURLWithPath: options["--work"]!).standardizedFileURL.path
let runs = max(1, Int(options["--runs"]!) ?? 5)
// No top-level await: the main thread waits on a semaphore instead of running
// dispatch_main, which valgrind cannot follow (it crashes in its sigsuspend).
final class Outcome: @unchecked Sendable {
    // Written by the task before it signals, read after the wait.
    var error: (any Error)?
}
let outcome = Outcome()
let finished = DispatchSemaphore(value: 0)
let settings = Benchmark.Settings(binary: binary, work: work, runs: runs, profile: options["--profile"] ?? "")
Task.detached {
    do {
        try await Benchmark.run(settings)
    } catch {
        outcome.error = error
    }
    finished.signal()
}
finished.wait()
if let error = outcome.error {
    FileHandle.standardError.write(Data("storefront-bench: \(error)\n".utf8))
    exit(1)
}
