import Foundation
import Testing

/// What one run of the `storefront` binary did.
struct RunResult: Sendable, CustomStringConvertible {
    var status: Int32
    /// True when the process ended by a signal (a crash), not by `exit`.
    var crashed: Bool
    var stdout: String
    var stderr: String
    var stdoutBytes: Data

    var description: String {
        "exit \(status)\(crashed ? " (signal)" : "")\n--- stdout ---\n\(stdout)--- stderr ---\n\(stderr)"
    }

    /// stdout parsed as one JSON object.
    func jsonObject(sourceLocation: SourceLocation = #_sourceLocation) throws -> [String: Any] {
        let value = try JSONSerialization.jsonObject(with: stdoutBytes)
        return try #require(value as? [String: Any], "stdout is not a JSON object:\n\(self)",
                            sourceLocation: sourceLocation)
    }

    /// Checks the run ended by `exit(expected)`, and left no crash or stack trace behind.
    func expect(exit expected: Int32, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(!crashed && status == expected, "expected exit \(expected):\n\(self)", sourceLocation: sourceLocation)
        expectNoCrashOutput(sourceLocation: sourceLocation)
    }

    /// No Swift runtime trap or backtrace on either stream.
    func expectNoCrashOutput(sourceLocation: SourceLocation = #_sourceLocation) {
        for marker in ["Fatal error", "Stack dump", "Backtrace", "Illegal instruction", "Segmentation fault",
                       "Current stack trace"] {
            #expect(!stdout.contains(marker) && !stderr.contains(marker), "found \"\(marker)\":\n\(self)",
                    sourceLocation: sourceLocation)
        }
    }
}

/// Where the built `storefront` executable and the repository's files are.
enum Binary {
    /// `STOREFRONT_BIN`, else the `storefront` executable in the build folder that
    /// holds this test bundle (SwiftPM builds it: the test target depends on it).
    static let url: URL? = {
        if let override = ProcessInfo.processInfo.environment["STOREFRONT_BIN"], !override.isEmpty {
            return URL(fileURLWithPath: override)
        }
        var starts = [URL(fileURLWithPath: CommandLine.arguments[0])]
        if let executable = Bundle.main.executableURL { starts.append(executable) }
        starts.append(Bundle.main.bundleURL)
        for start in starts {
            for base in [start, start.resolvingSymlinksInPath()] {
                var folder = base.deletingLastPathComponent()
                while folder.path != "/" {
                    let candidate = folder.appendingPathComponent("storefront")
                    var isDirectory: ObjCBool = false
                    if FileManager.default.fileExists(atPath: candidate.path, isDirectory: &isDirectory),
                       !isDirectory.boolValue, FileManager.default.isExecutableFile(atPath: candidate.path) {
                        return candidate
                    }
                    folder = folder.deletingLastPathComponent()
                }
            }
        }
        return nil
    }()

    /// The repository's root folder, found from this file's path.
    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // StorefrontCLITests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()

    /// The bundled demo catalog.
    static let catalog = repository.appendingPathComponent("products.json").path
}

/// A private temporary folder for one test, with a fresh store file path in it;
/// removed when the sandbox goes away. Run the binary through the sandbox so it
/// stays alive while its files are in use.
final class Sandbox: Sendable {
    let folder: URL
    /// A store file path that does not exist yet.
    let store: String
    /// The fake home folder of every run.
    let home: String

    init() throws {
        folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("storefront-cli-tests-\(UUID().uuidString)")
        home = folder.appendingPathComponent("home").path
        store = folder.appendingPathComponent("store.sqlite").path
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: folder)
    }

    /// A path inside the sandbox.
    func path(_ name: String) -> String {
        folder.appendingPathComponent(name).path
    }

    /// Writes a file into the sandbox and returns its path.
    @discardableResult
    func write(_ name: String, _ text: String) throws -> String {
        try write(name, Data(text.utf8))
    }

    @discardableResult
    func write(_ name: String, _ data: Data) throws -> String {
        let path = path(name)
        try data.write(to: URL(fileURLWithPath: path))
        return path
    }

    /// `storefront --catalog <the repo's products.json> --store <this sandbox's store> ARGUMENTS`.
    func storefront(_ arguments: String..., catalog: String = Binary.catalog,
                    sourceLocation: SourceLocation = #_sourceLocation) async throws -> RunResult {
        try await storefront(arguments, catalog: catalog, sourceLocation: sourceLocation)
    }

    /// `storefront --catalog CATALOG --store STORE ARGUMENTS`; by default the repo's
    /// products.json and this sandbox's store file.
    func storefront(_ arguments: [String], catalog: String = Binary.catalog, store: String? = nil,
                    sourceLocation: SourceLocation = #_sourceLocation) async throws -> RunResult {
        try await run(["--catalog", catalog, "--store", store ?? self.store] + arguments, sourceLocation: sourceLocation)
    }

    /// Runs the binary with exactly these arguments, in the sandbox folder, with an
    /// environment of only PATH, HOME (the sandbox's home) and `environment`.
    func run(_ arguments: [String], environment: [String: String] = [:],
             sourceLocation: SourceLocation = #_sourceLocation) async throws -> RunResult {
        let binary = try #require(Binary.url, "cannot find the storefront binary; set STOREFRONT_BIN",
                                  sourceLocation: sourceLocation)
        var env = ["PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": home]
        env.merge(environment) { $1 }
        return try await Self.launch(binary, arguments: arguments, environment: env, directory: folder)
    }

    /// Runs a process to its end, with stdout and stderr captured in files (no pipe
    /// can fill up and block it) and a time limit after which it is killed.
    static func launch(_ executable: URL, arguments: [String], environment: [String: String],
                       directory: URL, timeout: Duration = .seconds(60)) async throws -> RunResult {
        let outputs = FileManager.default.temporaryDirectory.appendingPathComponent("storefront-run-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: outputs, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: outputs) }
        let outURL = outputs.appendingPathComponent("stdout")
        let errURL = outputs.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        let outHandle = try FileHandle(forWritingTo: outURL)
        let errHandle = try FileHandle(forWritingTo: errURL)
        defer {
            try? outHandle.close()
            try? errHandle.close()
        }

        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = environment
        process.currentDirectoryURL = directory
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = outHandle
        process.standardError = errHandle

        let finished = AsyncStream<(Int32, Process.TerminationReason)>.makeStream()
        process.terminationHandler = { process in
            finished.continuation.yield((process.terminationStatus, process.terminationReason))
            finished.continuation.finish()
        }
        try process.run()
        let pid = process.processIdentifier
        let watchdog = Task {
            try await Task.sleep(for: timeout)
            kill(pid, SIGKILL)
        }
        var iterator = finished.stream.makeAsyncIterator()
        let ending = await iterator.next()
        watchdog.cancel()
        let (status, reason) = try #require(ending)

        let outData = try Data(contentsOf: outURL)
        let errData = try Data(contentsOf: errURL)
        return RunResult(status: status, crashed: reason == .uncaughtSignal,
                         stdout: String(decoding: outData, as: UTF8.self),
                         stderr: String(decoding: errData, as: UTF8.self),
                         stdoutBytes: outData)
    }
}
