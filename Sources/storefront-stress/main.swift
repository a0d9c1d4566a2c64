import Foundation
import Glibc

// `make stress`: the reliability suite. Runs each part, prints one line per part
// with its figures and a final `N passed, N failed`; exits 1 when any part fails.
//
//   storefront-stress --storefront PATH --catalog PATH [--fuzzer PATH] [--corpus DIR] [--quick] [--only PART]
//
// The same executable is its own child process: `child-buyer STORE CATALOG` (crash
// safety), `child-worker STORE CATALOG OPERATIONS` (concurrency) and `child-inotify-hog SECONDS`
// (inotify exhausted).

let arguments = Array(CommandLine.arguments.dropFirst())
switch arguments.first {
case "child-buyer" where arguments.count == 3:
    exit(await CrashSafety.child(store: arguments[1], catalog: arguments[2]))
case "child-worker" where arguments.count == 4:
    exit(await Concurrency.worker(store: arguments[1], catalog: arguments[2], operations: Int(arguments[3]) ?? 10))
case "child-inotify-hog" where arguments.count == 2:
    exit(InotifyExhausted.hog(seconds: Double(arguments[1]) ?? 1))
default:
    break
}

func value(_ name: String) -> String? {
    arguments.firstIndex(of: name).flatMap { $0 + 1 < arguments.count ? arguments[$0 + 1] : nil }
}
/// An option's value as an absolute path: the paywall runs in a folder of its own.
func option(_ name: String) -> String? {
    value(name).map { URL(fileURLWithPath: $0).standardizedFileURL.path }
}
let here = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent().path
let work = NSTemporaryDirectory() + "storefront-stress-\(getpid())"
try? FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
let context = Context(
    storefront: option("--storefront") ?? here + "/storefront",
    stress: URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().path,
    catalog: option("--catalog") ?? URL(fileURLWithPath: "products.json").path,
    fuzzer: option("--fuzzer"),
    corpus: option("--corpus") ?? URL(fileURLWithPath: "Tests/Fuzz/corpus").path,
    work: work,
    quick: arguments.contains("--quick"))

let parts: [(name: String, run: (Context) async -> (Findings, String))] = [
    ("crash safety", CrashSafety.run),
    ("concurrency", Concurrency.run),
    ("damaged store files", DamagedFiles.run),
    ("catalog fuzzing", Fuzzing.run),
    ("hostile text", HostileText.run),
    ("terminals", Terminals.run),
    ("tampering", Tampering.run),
    ("full disk", StoreLimits.fullDisk),
    ("huge clock", StoreLimits.hugeClock),
    ("lock hogs", StoreLimits.lockHogs),
    ("nul ids", PathsAndArguments.nulIDs),
    ("symlinks", PathsAndArguments.symlinks),
    ("umask", PathsAndArguments.umask),
    ("argument escapes", PathsAndArguments.argumentEscapes),
    ("column edits", PathsAndArguments.columnEdits),
    ("server attack", ServerAttack.run),
    ("idle connections", ServerLimits.idleConnections),
    ("sender lock", ServerLimits.senderLock),
    ("reads beside writes", ServerLimits.readsBesideWrites),
    ("lowered versions", LoweredVersions.run),
    ("restores", Restores.run),
    ("inotify exhausted", InotifyExhausted.run),
]
let only = value("--only")
let started = Date()
var passed = 0, failed = 0
var lines: [String] = []
for part in parts where only == nil || part.name.hasPrefix(only!) {
    let partStart = Date()
    print("… \(part.name)")
    fflush(nil)
    let (findings, figures) = await part.run(context)
    let time = String(format: "%.0f s", Date().timeIntervalSince(partStart))
    let line = "\(findings.failures.isEmpty ? "PASS" : "FAIL")  \(part.name): \(figures) [\(time)]"
    for failure in findings.failures.prefix(20) { print("    ✗ \(failure)") }
    if findings.failures.count > 20 { print("    … and \(findings.failures.count - 20) more") }
    print(line)
    fflush(nil)
    lines.append(line)
    if findings.failures.isEmpty { passed += 1 } else { failed += 1 }
}
try? FileManager.default.removeItem(atPath: work)
print("")
print("Reliability suite, \(String(format: "%.0f", Date().timeIntervalSince(started))) s:")
for line in lines { print(line) }
print("\(passed) passed, \(failed) failed")
exit(failed == 0 ? 0 : 1)
