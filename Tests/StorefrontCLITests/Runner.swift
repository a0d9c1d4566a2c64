import Foundation
import Testing
// Every file of the test target sees TestSupport (clock, folders, processes, tmux).
@_exported import TestSupport

/// What one run of the `storefront` binary did (TestSupport's `ProcessOutcome`), with the
/// checks the CLI tests make on it.
typealias RunResult = ProcessOutcome

extension ProcessOutcome {
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

/// Where the built `storefront` executable and the repository's files are (TestSupport's).
enum Binary {
    /// `STOREFRONT_BIN`, else the `storefront` executable SwiftPM built beside this test bundle.
    static var url: URL? { BuiltProducts.storefront }

    /// The repository's root folder.
    static var repository: URL { Repository.root }

    /// The bundled demo catalog.
    static var catalog: String { Repository.catalog }
}

/// A private temporary folder for one test, with a fresh store file path in it;
/// removed when the sandbox goes away. Run the binary through the sandbox so it
/// stays alive while its files are in use.
final class Sandbox: Sendable {
    private let temporary: TemporaryFolder
    var folder: URL { temporary.url }
    /// A store file path that does not exist yet.
    let store: String
    /// The fake home folder of every run.
    let home: String

    /// - Parameter store: the store every run names; nil, a new file in the sandbox (a
    ///   PostgreSQL URI: a team's store).
    init(store: String? = nil) throws {
        temporary = try TemporaryFolder(prefix: "storefront-cli-tests")
        home = temporary.path("home")
        self.store = store ?? temporary.path("store.sqlite")
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
    }

    /// A path inside the sandbox.
    func path(_ name: String) -> String {
        temporary.path(name)
    }

    /// Writes a file into the sandbox and returns its path.
    @discardableResult
    func write(_ name: String, _ text: String) throws -> String {
        try temporary.write(name, text)
    }

    @discardableResult
    func write(_ name: String, _ data: Data) throws -> String {
        try temporary.write(name, data)
    }

    /// `storefront --catalog <the repo's products.json> --store <this sandbox's store> ARGUMENTS`.
    func storefront(_ arguments: String..., catalog: String = Binary.catalog,
                    sourceLocation: SourceLocation = #_sourceLocation) async throws -> RunResult {
        try await storefront(arguments, catalog: catalog, sourceLocation: sourceLocation)
    }

    /// `storefront --catalog CATALOG --store STORE ARGUMENTS`; by default the repo's
    /// products.json and this sandbox's store file.
    func storefront(_ arguments: [String], catalog: String = Binary.catalog, store: String? = nil,
                    on host: NetworkHosts.Host? = nil, sourceLocation: SourceLocation = #_sourceLocation) async throws -> RunResult {
        try await run(["--catalog", catalog, "--store", store ?? self.store] + arguments, on: host, sourceLocation: sourceLocation)
    }

    /// Runs the binary with exactly these arguments, in the sandbox folder, with an
    /// environment of only PATH, HOME (the sandbox's home) and `environment`; on `host`, a test
    /// host of ``NetworkHosts``, when one is given.
    func run(_ arguments: [String], environment: [String: String] = [:], on host: NetworkHosts.Host? = nil,
             sourceLocation: SourceLocation = #_sourceLocation) async throws -> RunResult {
        let binary = try #require(Binary.url, "cannot find the storefront binary; set STOREFRONT_BIN",
                                  sourceLocation: sourceLocation)
        var env = ["PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": home]
        env.merge(environment) { $1 }
        let command = host?.command([binary.path] + arguments) ?? [binary.path] + arguments
        // Two minutes: a replay of every recipe takes a minute on a machine loaded by other builds.
        return try await Self.launch(URL(fileURLWithPath: command[0]), arguments: Array(command.dropFirst()), environment: env,
                                     directory: folder, timeout: .seconds(120))
    }

    /// Runs a process to its end (TestSupport's `Processes.launch`: suspending, outputs in files, a time limit).
    static func launch(_ executable: URL, arguments: [String], environment: [String: String],
                       directory: URL, timeout: Duration = .seconds(60)) async throws -> RunResult {
        try await Processes.launch(executable, arguments: arguments, environment: environment, directory: directory,
                                   timeout: timeout)
    }
}
