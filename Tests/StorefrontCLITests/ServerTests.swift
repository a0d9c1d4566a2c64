import Foundation
import Testing

/// `storefront serve` on a free loopback port, with Apple's App Store Server Library for
/// Python as the backend: its API client calls the endpoints, its verifier checks every
/// answer and every notification against the store's root (`scripts/server-client.py`).
@Suite("storefront serve: the App Store Server API and notifications, seen by Apple's library", .serialized)
struct ServerTests {
    static let script = Binary.repository.appendingPathComponent("scripts/server-client.py").path
    static let bundleID = AppleLibraryTests.bundleID

    /// A store in Sandbox with a Server API key and the exported root.
    struct Setup {
        let sandbox: Sandbox
        let catalog: String
        let keyID: String
        let issuer = "57246542-96fe-1a63-e053-0824d011072a"
        let key: String
        let root: String
    }

    func setup() async throws -> Setup {
        try #require(FileManager.default.isExecutableFile(atPath: AppleLibraryTests.python.path),
                     "Apple's App Store Server Library is not installed in .build/oracle: run `make oracle` (make test does)")
        let sandbox = try Sandbox()
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

    /// Runs the library's client against the server at `port`; one result per call.
    func call(_ setup: Setup, port: Int, _ calls: [[String: Any]], sourceLocation: SourceLocation = #_sourceLocation)
        async throws -> [[String: Any]] {
        let file = try setup.sandbox.write("calls-\(UUID().uuidString).json", try JSONSerialization.data(withJSONObject: calls))
        let result = try await Sandbox.launch(
            AppleLibraryTests.python,
            arguments: [Self.script, "call", "--port", String(port), "--key", setup.key, "--key-id", setup.keyID,
                        "--issuer", setup.issuer, "--bundle-id", Self.bundleID, "--root", setup.root, "--calls", file],
            environment: ["PATH": "/usr/bin:/bin"], directory: setup.sandbox.folder)
        result.expect(exit: 0, sourceLocation: sourceLocation)
        let parsed = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]]
        return try #require(parsed, "\(result)", sourceLocation: sourceLocation)
    }

    // MARK: - Background processes

    /// A process left running (the server, the receiver), stdout in a file, stopped with SIGTERM.
    final class Background: @unchecked Sendable {
        let process = Process()
        let output: URL

        init(_ executable: URL, _ arguments: [String], in folder: URL, environment: [String: String] = ["PATH": "/usr/bin:/bin"]) throws {
            output = folder.appendingPathComponent("background-\(UUID().uuidString).out")
            FileManager.default.createFile(atPath: output.path, contents: nil)
            process.executableURL = executable
            process.arguments = arguments
            process.environment = environment
            process.currentDirectoryURL = folder
            process.standardInput = FileHandle.nullDevice
            // One handle for both, so the two streams share its offset and neither overwrites the other.
            let handle = try FileHandle(forWritingTo: output)
            process.standardOutput = handle
            process.standardError = handle
            try process.run()
        }

        var text: String { (try? String(contentsOf: output, encoding: .utf8)) ?? "" }

        /// Waits (at most `seconds`) for the output to match; returns the first capture.
        func wait(for pattern: String, seconds: Double = 20) async throws -> String {
            let regex = try Regex(pattern)
            let deadline = Date().addingTimeInterval(seconds)
            while Date() < deadline {
                if let match = text.firstMatch(of: regex), let capture = match.output[1].substring { return String(capture) }
                try await Task.sleep(for: .milliseconds(50))
            }
            throw Timeout(what: "\(pattern) in: \(text)")
        }

        /// SIGTERM, then the exit status (SIGKILL after 10 s).
        @discardableResult
        func stop() async -> Int32 {
            if process.isRunning { kill(process.processIdentifier, SIGTERM) }
            let deadline = Date().addingTimeInterval(10)
            while process.isRunning, Date() < deadline { try? await Task.sleep(for: .milliseconds(20)) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL); process.waitUntilExit() }
            return process.terminationStatus
        }
    }

    struct Timeout: Error, CustomStringConvertible {
        var what: String
        var description: String { "timed out waiting for \(what)" }
    }

    func startServer(_ setup: Setup, notify: [String] = []) throws -> Background {
        let binary = try #require(Binary.url)
        return try Background(binary, ["--catalog", setup.catalog, "--store", setup.sandbox.store, "serve", "--listen", "127.0.0.1:0"]
                              + notify.flatMap { ["--notify", $0] }, in: setup.sandbox.folder,
                              environment: ["PATH": "/usr/bin:/bin", "HOME": setup.sandbox.home])
    }

    func port(of server: Background) async throws -> Int {
        try #require(Int(try await server.wait(for: #"listening on http://127\.0\.0\.1:(\d+)"#)))
    }

    /// The library's receiver on a free loopback port: each notification decoded, one JSON line in `log`.
    func startReceiver(_ setup: Setup, log: String, port: Int = 0, countOnly: Bool = false) throws -> Background {
        try Background(AppleLibraryTests.python, [Self.script, "receive", "--bundle-id", Self.bundleID, "--root", setup.root,
                                                  "--out", log, "--port", String(port)] + (countOnly ? ["--count-only"] : []),
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

    // MARK: - Tests

    @Test("Transaction info, history with paging, statuses, refund lookup, test notification; Apple's errors")
    func endpoints() async throws {
        let setup = try await setup()
        let store = { (arguments: [String]) async throws in
            try await setup.sandbox.storefront(arguments, catalog: setup.catalog).expect(exit: 0)
        }
        try await store(["buy", "monthly"])
        try await store(["buy", "pro"])
        for _ in 0..<10 { try await store(["buy", "coins"]) }
        try await store(["buy", "plus.monthly"])
        try await store(["clock", "advance", "P1Y"])  // 12 renewals of plus, a trial and renewals of monthly
        let history = try await setup.sandbox.storefront(["transactions", "--json"], catalog: setup.catalog).jsonObject()
        let all = try #require(history["transactions"] as? [[String: Any]])
        #expect(all.count > 20)
        let pro = try #require(all.first { $0["productID"] as? String == "pro" }?["id"] as? Int)
        let monthly = try #require(all.last { $0["productID"] as? String == "monthly" }?["id"] as? Int)
        try await store(["refund", String(pro)])

        let server = try startServer(setup)
        let port = try await port(of: server)
        let results = try await call(setup, port: port, [
            ["call": "transaction", "id": String(pro)],
            ["call": "history", "id": String(pro)],
            ["call": "history", "id": String(monthly), "sort": "DESCENDING", "productTypes": ["CONSUMABLE"]],
            ["call": "statuses", "id": String(pro)],
            ["call": "statuses", "id": String(pro), "status": [2]],
            ["call": "refunds", "id": String(monthly)],
            ["call": "test"],
            ["call": "transaction", "id": "12ab"],
            ["call": "transaction", "id": "1999999999"],
            ["call": "history", "id": String(pro), "revision": "not-a-revision"],
            ["call": "raw", "path": "/inApps/v1/transactions/\(pro)", "authorization": "Bearer e30.e30.c2ln"],
            ["call": "raw", "path": "/inApps/v1/transactions/\(pro)", "authorization": ""],
        ])
        #expect(await server.stop() == 0)
        #expect(server.text.contains("stopped (SIGTERM)"))

        let info = try #require(results[0]["result"] as? [String: Any])
        #expect(info["productId"] as? String == "pro")
        #expect(info["revoked"] as? Bool == true)

        let pages = try #require(results[1]["result"] as? [[String: Any]])
        let listed = Set(all.compactMap { $0["id"] as? Int }.map(String.init))
        #expect(pages.dropLast().allSatisfy { $0["count"] as? Int == 20 && $0["hasMore"] as? Bool == true })
        #expect(pages.last?["hasMore"] as? Bool == false)
        let ids = pages.flatMap { ($0["transactions"] as? [[String: Any]] ?? []).compactMap { $0["transactionId"] as? String } }
        // Every transaction the CLI lists, and the ten consumables (`transactions` leaves finished ones out).
        #expect(listed.isSubset(of: Set(ids)))
        #expect(ids.count == listed.count + 10)
        #expect(pages.count == (ids.count + 19) / 20)
        #expect(Set(ids).count == ids.count, "a transaction twice across pages")
        #expect(ids == ids.sorted { Int($0)! < Int($1)! }, "ASCENDING is the default")
        #expect(pages.first?["environment"] as? String == "Sandbox")
        #expect(pages.first?["bundleId"] as? String == Self.bundleID)

        let coins = try #require(results[2]["result"] as? [[String: Any]])
        let coinIDs = coins.flatMap { ($0["transactions"] as? [[String: Any]] ?? []).compactMap { $0["transactionId"] as? String } }
        #expect(coinIDs.count == 10)
        #expect(coinIDs == coinIDs.sorted { Int($0)! > Int($1)! })
        #expect(coins.flatMap { ($0["transactions"] as? [[String: Any]] ?? []) }.allSatisfy { $0["type"] as? String == "Consumable" })

        let statuses = try #require((results[3]["result"] as? [String: Any])?["statuses"] as? [[String: Any]])
        #expect(Set(statuses.compactMap { $0["group"] as? String }) == ["premium", "plus"])
        #expect(statuses.allSatisfy { $0["status"] as? Int == 1 && $0["autoRenewStatus"] as? Int == 1 })
        #expect(((results[4]["result"] as? [String: Any])?["statuses"] as? [Any])?.isEmpty == true, "status=2 filters out active ones")

        let refunds = try #require((results[5]["result"] as? [String: Any])?["transactions"] as? [[String: Any]])
        #expect(refunds.compactMap { $0["transactionId"] as? String } == [String(pro)])

        let test = try #require(results[6]["result"] as? [String: Any])
        #expect(test["type"] as? String == "TEST")
        #expect(test["bundleId"] as? String == Self.bundleID)

        func error(_ index: Int) -> (Int?, Int?) {
            let error = results[index]["error"] as? [String: Any]
            return (error?["status"] as? Int, error?["code"] as? Int)
        }
        #expect(error(7) == (400, 4000006))
        #expect(error(8) == (404, 4040010))
        #expect(error(9) == (400, 4000005))
        #expect((results[10]["result"] as? [String: Any])?["status"] as? Int == 401)
        #expect((results[11]["result"] as? [String: Any])?["status"] as? Int == 401)
    }

    @Test("A scripted lifecycle reaches a receiver as Apple's exact (type, subtype) sequence")
    func lifecycle() async throws {
        let setup = try await setup()
        let log = setup.sandbox.path("received.jsonl")
        let receiver = try startReceiver(setup, log: log)
        let receiverPort = try await receiver.wait(for: #"listening (\d+)"#)
        let server = try startServer(setup, notify: ["http://127.0.0.1:\(receiverPort)/notifications"])
        let port = try await port(of: server)
        let store = { (arguments: [String]) async throws in
            try await setup.sandbox.storefront(arguments, catalog: setup.catalog).expect(exit: 0)
        }
        try await store(["settings", "set", "gracePeriod", "true"])
        try await store(["buy", "monthly"])                      // a week's free trial
        try await store(["clock", "advance", "P8D"])             // renews
        try await store(["buy", "yearly"])                       // upgrade, at once
        try await store(["buy", "monthly"])                      // downgrade, at the renewal
        try await store(["auto-renew", "premium", "off"])
        try await store(["auto-renew", "premium", "on"])
        try await store(["settings", "set", "billingIssues", "true"])
        try await store(["clock", "advance", "P1Y1D"])           // the renewal fails: grace period
        try await store(["clock", "advance", "P20D"])            // the grace period ends, billing retry goes on
        try await store(["settings", "set", "billingIssues", "false"])
        try await store(["status"])                              // recovered: renewed
        let history = try await setup.sandbox.storefront(["transactions", "--json"], catalog: setup.catalog).jsonObject()
        let newest = try #require((history["transactions"] as? [[String: Any]])?.first)
        let original = try #require(newest["originalID"] as? Int)
        let extended = try await call(setup, port: port, [["call": "extend", "id": String(original), "days": 7]])
        #expect((extended[0]["result"] as? [String: Any])?["success"] as? Bool == true)
        try await store(["refund", String(try #require(newest["id"] as? Int))])

        let expected = [
            "SUBSCRIBED INITIAL_BUY", "DID_RENEW", "DID_CHANGE_RENEWAL_PREF UPGRADE", "DID_CHANGE_RENEWAL_PREF DOWNGRADE",
            "DID_CHANGE_RENEWAL_STATUS AUTO_RENEW_DISABLED", "DID_CHANGE_RENEWAL_STATUS AUTO_RENEW_ENABLED",
            "DID_FAIL_TO_RENEW GRACE_PERIOD", "GRACE_PERIOD_EXPIRED", "DID_RENEW BILLING_RECOVERY", "RENEWAL_EXTENDED", "REFUND",
        ]
        let got = try await received(log, count: expected.count)
        #expect(got.map(Self.pair) == expected)
        #expect(Set(got.compactMap { $0["uuid"] as? String }).count == got.count)
        // After the recovery the downgrade has taken effect: monthly renews.
        #expect(got.dropFirst(8).first?["productId"] as? String == "monthly")
        let listed = try await setup.sandbox.storefront(["notifications", "--json"], catalog: setup.catalog).jsonObject()
        let notifications = try #require(listed["notifications"] as? [[String: Any]])
        #expect(notifications.count == expected.count)
        #expect(notifications.allSatisfy { $0["delivered"] as? Bool == true })
        await server.stop()
        await receiver.stop()
    }

    @Test("A receiver that is down gets every notification afterwards, in order, none twice, retried on the store's clock")
    func receiverDown() async throws {
        let setup = try await setup()
        // A port nothing listens on: take a free one from a receiver, then stop it.
        let probe = try startReceiver(setup, log: setup.sandbox.path("probe.jsonl"))
        let receiverPort = try await probe.wait(for: #"listening (\d+)"#)
        await probe.stop()
        let url = "http://127.0.0.1:\(receiverPort)/"
        let server = try startServer(setup, notify: [url])
        _ = try await port(of: server)
        let store = { (arguments: [String]) async throws in
            try await setup.sandbox.storefront(arguments, catalog: setup.catalog).expect(exit: 0)
        }
        try await store(["buy", "pro"])
        let failure = try await server.wait(for: #"notification 1 ONE_TIME_CHARGE → \S+: ([A-Z_]+)"#)
        #expect(failure == "NO_RESPONSE")
        try await store(["buy", "monthly"])
        try await store(["buy", "coins"])
        try await Task.sleep(for: .milliseconds(500))
        var listed = try await setup.sandbox.storefront(["notifications", "--json"], catalog: setup.catalog).jsonObject()
        var notifications = try #require(listed["notifications"] as? [[String: Any]])
        #expect(notifications.count == 3)
        // In order: the later ones wait while the first is retried; the retry waits an hour of store time.
        #expect(notifications.map { ($0["sendAttempts"] as? [Any])?.count } == [1, 0, 0])

        let log = setup.sandbox.path("received.jsonl")
        let receiver = try startReceiver(setup, log: log, port: Int(receiverPort)!)
        _ = try await receiver.wait(for: #"listening (\d+)"#)
        try await Task.sleep(for: .milliseconds(500))
        #expect(try await received(log, count: 0).isEmpty, "retried before an hour of store time")
        try await store(["clock", "advance", "PT1H"])
        let got = try await received(log, count: 3)
        try await Task.sleep(for: .seconds(1))
        let again = try await received(log, count: 0)
        #expect(got.map(Self.pair) == ["ONE_TIME_CHARGE", "SUBSCRIBED INITIAL_BUY", "ONE_TIME_CHARGE"])
        #expect(again.count == 3, "a notification twice")
        listed = try await setup.sandbox.storefront(["notifications", "--json"], catalog: setup.catalog).jsonObject()
        notifications = try #require(listed["notifications"] as? [[String: Any]])
        let results = notifications.map { ($0["sendAttempts"] as? [[String: Any]] ?? []).compactMap { $0["sendAttemptResult"] as? String } }
        #expect(results == [[failure, "SUCCESS"], ["SUCCESS"], ["SUCCESS"]])
        await server.stop()
        await receiver.stop()
    }

    @Test("serve refuses a non-loopback address without --allow-remote, and a bad --listen")
    func listenChecks() async throws {
        let sandbox = try Sandbox()
        let remote = try await sandbox.storefront("serve", "--listen", "0.0.0.0:0")
        remote.expect(exit: 64)
        #expect(remote.stderr.contains("--allow-remote"))
        try await sandbox.storefront("serve", "--listen", "nowhere").expect(exit: 64)
        try await sandbox.storefront("serve", "keys", "add", "K").expect(exit: 64)
        try await sandbox.storefront("serve", "--notify", "ftp://example.com/").expect(exit: 64)
    }
}
