import Foundation
import Synchronization
import Testing
import TestSupport

/// What the `storefront serve` suites share: the server on a port the system picks (port 0),
/// with Apple's App Store Server Library for Python as the backend: its API client calls the
/// endpoints, its verifier checks every answer and every notification against the store's root
/// (`scripts/server-client.py`). Each test has a sandbox (a store) and processes of its own, so
/// the suites run side by side; a test that proves something did not happen waits for a fact
/// recorded after it (a later notification received, attempts in the store), not for a while.
protocol ServerHarness {}

/// A store in Sandbox with a Server API key and the exported root.
struct ServerSetup {
    let sandbox: Sandbox
    let catalog: String
    let keyID: String
    let issuer = "57246542-96fe-1a63-e053-0824d011072a"
    let key: String
    let root: String
}

/// A process left running (the server, the receiver), stdout and stderr in a file, stopped with
/// SIGTERM. Spawned by TestSupport's `Processes` (not Foundation's `Process`, whose `run()` on
/// Linux now and then crashes reading /proc/self/fd: swift-corelibs-foundation#5472).
final class BackgroundProcess: @unchecked Sendable {
    let pid: pid_t
    let output: URL

    init(_ executable: URL, _ arguments: [String], in folder: URL, environment: [String: String] = ["PATH": "/usr/bin:/bin"]) throws {
        output = folder.appendingPathComponent("background-\(UUID().uuidString).out")
        // One file for both streams, appended to, so neither overwrites the other.
        guard let pid = Processes.spawn(["/usr/bin/env", "-C", folder.path, executable.path] + arguments,
                                        environment: environment, stdout: output.path, stderr: output.path) else {
            throw POSIXError(.ENOENT)
        }
        self.pid = pid
    }

    var text: String { (try? String(contentsOf: output, encoding: .utf8)) ?? "" }

    /// Waits (at most `seconds`) for the output to match; returns the first capture.
    func wait(for pattern: String, seconds: Double = 60) async throws -> String {
        let regex = try Regex(pattern)
        var found: String?
        _ = await eventually(within: .seconds(seconds), every: .milliseconds(50)) {
            found = text.firstMatch(of: regex).flatMap { $0.output[1].substring }.map(String.init)
            return found != nil
        }
        guard let found else { throw Timeout(what: "\(pattern) in: \(text)") }
        return found
    }

    /// SIGTERM, then the exit status (SIGKILL after 10 s).
    @discardableResult
    func stop() async -> Int32 {
        if let known = ended.withLock({ $0 }) { return known }
        kill(pid, SIGTERM)
        let status = await Processes.exit(of: pid, timeout: .seconds(10)).status
        ended.withLock { $0 = status }
        return status
    }

    private let ended = Mutex<Int32?>(nil)
}

struct Timeout: Error, CustomStringConvertible {
    var what: String
    var description: String { "timed out waiting for \(what)" }
}

extension ServerHarness {
    typealias Setup = ServerSetup
    typealias Background = BackgroundProcess

    static var script: String { Binary.repository.appendingPathComponent("scripts/server-client.py").path }
    static var bundleID: String { AppleLibraryTests.bundleID }

    /// - Parameter store: the store's address; nil, a new file in the sandbox.
    func setup(store: String? = nil) async throws -> Setup {
        try #require(FileManager.default.isExecutableFile(atPath: AppleLibraryTests.python.path),
                     "Apple's App Store Server Library is not installed in .build/oracle: run `make oracle` (make test does)")
        let sandbox = try Sandbox(store: store)
        let catalog = try sandbox.write("catalog.json", AppleLibraryTests.catalog)
        try await sandbox.storefront(["settings", "set", "environment", "Sandbox"], catalog: catalog).expect(exit: 0)
        let created = try await sandbox.storefront(["serve", "keys", "create", "--issuer", "57246542-96fe-1a63-e053-0824d011072a", "--json"],
                                                   catalog: catalog).jsonObject()
        let keyID = try #require(created["keyId"] as? String)
        let key = try sandbox.write("key.p8", try #require(created["privateKey"] as? String))
        let root = try await sandbox.storefront(["key", "export", "--root", "--der"], catalog: catalog)
        root.expect(exit: 0)
        return Setup(sandbox: sandbox, catalog: catalog, keyID: keyID, key: key,
                     root: try sandbox.write("root.der", root.stdoutBytes))
    }

    /// Runs the library's client against the server at `port`; one result per call. `verifier`: the
    /// verifier's environment and app Apple ID when not Sandbox's (`["--environment", "Production", "--app-apple-id", ID]`).
    func call(_ setup: Setup, port: Int, _ calls: [[String: Any]], verifier: [String] = [],
              sourceLocation: SourceLocation = #_sourceLocation) async throws -> [[String: Any]] {
        let file = try setup.sandbox.write("calls-\(UUID().uuidString).json", try JSONSerialization.data(withJSONObject: calls))
        let result = try await Sandbox.launch(
            AppleLibraryTests.python,
            arguments: [Self.script, "call", "--port", String(port), "--key", setup.key, "--key-id", setup.keyID,
                        "--issuer", setup.issuer, "--bundle-id", Self.bundleID, "--root", setup.root, "--calls", file] + verifier,
            environment: ["PATH": "/usr/bin:/bin"], directory: setup.sandbox.folder)
        result.expect(exit: 0, sourceLocation: sourceLocation)
        let parsed = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]]
        return try #require(parsed, "\(result)", sourceLocation: sourceLocation)
    }

    /// `storefront serve` on a free port of loopback; on `host` (a test host), of that host's address.
    func startServer(_ setup: Setup, notify: [String] = [], on host: NetworkHosts.Host? = nil) throws -> Background {
        let binary = try #require(Binary.url)
        let serve = [binary.path, "--catalog", setup.catalog, "--store", setup.sandbox.store, "serve",
                     "--listen", (host?.address ?? "127.0.0.1") + ":0"] + (host == nil ? [] : ["--allow-remote"])
                     + notify.flatMap { ["--notify", $0] }
        let command = host?.command(serve) ?? serve
        return try Background(URL(fileURLWithPath: command[0]), Array(command.dropFirst()), in: setup.sandbox.folder,
                              environment: ["PATH": "/usr/bin:/bin", "HOME": setup.sandbox.home])
    }

    func port(of server: Background) async throws -> Int {
        try #require(Int(try await server.wait(for: #"listening on http://[0-9.]+:(\d+)"#)))
    }

    /// The library's receiver on a free port of `address` (loopback by default): each
    /// notification decoded, one JSON line in `log`.
    func startReceiver(_ setup: Setup, log: String, port: Int = 0, address: String = "127.0.0.1", countOnly: Bool = false,
                       verifier: [String] = []) throws -> Background {
        try Background(AppleLibraryTests.python, [Self.script, "receive", "--bundle-id", Self.bundleID, "--root", setup.root,
                                                  "--out", log, "--host", address, "--port", String(port)]
                                                  + (countOnly ? ["--count-only"] : []) + verifier,
                       in: setup.sandbox.folder)
    }

    /// The receiver's decoded notifications, once there are `count` (waits at most `seconds`).
    func received(_ log: String, count: Int, seconds: Double = 30) async throws -> [[String: Any]] {
        let deadline = Date().addingTimeInterval(seconds)
        var lines: [[String: Any]] = []
        while Date() < deadline {
            let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            lines = text.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            if lines.count >= count { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        return lines
    }

    static func pair(_ entry: [String: Any]) -> String {
        [entry["type"] as? String ?? "refused: \(entry["refused"] ?? "?")", entry["subtype"] as? String].compactMap { $0 }.joined(separator: " ")
    }

    /// Each notification the store has recorded so far (`notifications --json`).
    func recorded(_ setup: Setup) async throws -> [[String: Any]] {
        let listed = try await setup.sandbox.storefront(["notifications", "--json"], catalog: setup.catalog).jsonObject()
        return try #require(listed["notifications"] as? [[String: Any]])
    }
}

// MARK: - Lanes

/// At most two server tests at a time (each a server, Apple's library in Python and dozens of
/// CLI processes): the suites are independent and run beside every other suite, but all of
/// them at once on two cores starve the time-bound end-to-end tests.
struct ServerLanes: SuiteTrait, TestTrait, TestScoping {
    static let lanes = AsyncSemaphore(permits: 2)

    var isRecursive: Bool { true }

    func scopeProvider(for test: Test, testCase: Test.Case?) -> ServerLanes? {
        !test.isSuite && testCase != nil ? self : nil
    }

    func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        await Self.lanes.acquire()
        do {
            try await function()
        } catch {
            await Self.lanes.release()
            throw error
        }
        await Self.lanes.release()
    }
}

extension Trait where Self == ServerLanes {
    /// Runs the suite's tests in one of the server lanes.
    static var serverLane: Self { ServerLanes() }
}

/// A counting semaphore that suspends, never blocks.
actor AsyncSemaphore {
    private var permits: Int
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(permits: Int) { self.permits = permits }

    func acquire() async {
        if permits > 0 {
            permits -= 1
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    func release() {
        if waiting.isEmpty { permits += 1 } else { waiting.removeFirst().resume() }
    }
}
