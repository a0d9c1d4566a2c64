import Foundation
import Testing
import TestSupport

/// What a backend built on Apple's App Store Server Library sees of `storefront serve` in
/// Production, of the endpoints Apple added since 1.16, and of history polled by revision.
@Suite("storefront serve: Production, Apple's newer endpoints and revisions, seen by Apple's library", .serverLane)
struct ServerFidelityTests: ServerHarness {
    static let appAppleID = "1234567890"
    static let production = ["--environment", "Production", "--app-apple-id", appAppleID]

    @Test("Production: Apple's SignedDataVerifier with the app's Apple ID accepts every notification and the app transaction")
    func production() async throws {
        let setup = try await setup()
        let store = { (arguments: [String]) async throws in
            try await setup.sandbox.storefront(arguments, catalog: setup.catalog).expect(exit: 0)
        }
        try await store(["settings", "set", "environment", "Production"])
        try await store(["settings", "set", "appAppleId", Self.appAppleID])
        let log = setup.sandbox.path("received.jsonl")
        let receiver = try startReceiver(setup, log: log, verifier: Self.production)
        let receiverPort = try await receiver.wait(for: #"listening (\d+)"#)
        let server = try startServer(setup, notify: ["http://127.0.0.1:\(receiverPort)/"])
        let port = try await port(of: server)
        try await store(["buy", "monthly"])
        try await store(["buy", "pro"])
        try await store(["clock", "advance", "P1M1D"])
        let bought = try await setup.sandbox.storefront(["transactions", "--json"], catalog: setup.catalog).jsonObject()
        let pro = try #require((bought["transactions"] as? [[String: Any]])?.first { $0["productID"] as? String == "pro" }?["id"] as? Int)
        try await store(["refund", String(pro)])
        let results = try await call(setup, port: port, [
            ["call": "massExtend", "productId": "monthly", "requestIdentifier": "everyone", "days": 2],
            ["call": "test"],
            ["call": "appTransaction", "id": String(pro)],
            ["call": "history", "id": String(pro), "version": 2],
        ], verifier: Self.production)
        #expect(results.allSatisfy { $0["error"] == nil }, "\(results)")
        let app = try #require(results[2]["result"] as? [String: Any])
        #expect(app["appAppleId"] as? Int == Int(Self.appAppleID) && app["receiptType"] as? String == "Production")
        #expect((results[3]["result"] as? [[String: Any]])?.first?["appAppleId"] as? Int == Int(Self.appAppleID))

        let all = try await recorded(setup)
        let got = try await received(log, count: all.count)
        #expect(got.count == all.count && all.count >= 7, "\(got)")
        #expect(got.allSatisfy { $0["refused"] == nil }, "\(got.filter { $0["refused"] != nil })")
        #expect(Set(got.map(Self.pair)).isSuperset(of: ["SUBSCRIBED INITIAL_BUY", "ONE_TIME_CHARGE", "DID_RENEW", "REFUND",
                                                        "RENEWAL_EXTENDED", "RENEWAL_EXTENSION SUMMARY", "TEST"]))
        await server.stop()
        await receiver.stop()
    }

    @Test("Apple's newer endpoints through Apple's client: app transaction info, app account token, finish, consumption v2 and v1")
    func newerEndpoints() async throws {
        let setup = try await setup()
        let run = { (arguments: [String]) async throws -> RunResult in
            try await setup.sandbox.storefront(arguments, catalog: setup.catalog)
        }
        try await run(["settings", "set", "finishTransactions", "false"]).expect(exit: 0)  // the app never finishes
        let coins = try #require((try await run(["buy", "coins", "--json"]).jsonObject()["transaction"] as? [String: Any])?["id"] as? Int)
        let monthly = try #require((try await run(["buy", "monthly", "--json"]).jsonObject()["transaction"] as? [String: Any])?["id"] as? Int)
        let server = try startServer(setup)
        let port = try await port(of: server)
        let token = UUID().uuidString.lowercased()
        let v2: [String: Any] = ["customerConsented": true, "sampleContentProvided": false, "deliveryStatus": "DELIVERED",
                                 "refundPreference": "DECLINE"]
        let v1: [String: Any] = ["customerConsented": true, "rawConsumptionStatus": 3, "rawPlatform": 1, "sampleContentProvided": false,
                                 "rawDeliveryStatus": 0, "appAccountToken": "", "rawAccountTenure": 0, "rawPlayTime": 0,
                                 "rawLifetimeDollarsRefunded": 0, "rawLifetimeDollarsPurchased": 0, "rawUserStatus": 0]
        var unconsented = v2
        unconsented["customerConsented"] = false
        let results = try await call(setup, port: port, [
            ["call": "appTransaction", "id": String(coins)],
            ["call": "appTransaction", "id": "1999999999"],
            ["call": "setAppAccountToken", "id": String(monthly), "token": token],
            ["call": "transaction", "id": String(monthly)],
            ["call": "setAppAccountToken", "id": String(monthly), "token": "not-a-uuid"],
            ["call": "finish", "id": String(coins)],
            ["call": "finish", "id": "1999999999"],
            ["call": "consumption", "id": String(coins), "request": v2],
            ["call": "consumption", "id": String(coins), "request": unconsented],
            ["call": "consumptionV1", "id": String(coins), "request": v1],
            ["call": "raw", "method": "PUT", "path": "/inApps/v1/transactions/consumption/\(coins)", "body": [:] as [String: Any]],
        ])
        func error(_ index: Int) -> (Int?, Int?) {
            let error = results[index]["error"] as? [String: Any]
            return (error?["status"] as? Int, error?["code"] as? Int)
        }
        let app = try #require(results[0]["result"] as? [String: Any], "\(results[0])")
        #expect(app["bundleId"] as? String == Self.bundleID && app["receiptType"] as? String == "Sandbox")
        #expect(app["appAppleId"] == nil || app["appAppleId"] is NSNull, "Sandbox's has none")
        #expect(error(1) == (404, 4040019))
        #expect(results[2]["error"] == nil, "\(results[2])")
        #expect(((results[3]["result"] as? [String: Any])?["appAccountToken"] as? String)?.lowercased() == token)
        #expect(error(4) == (400, 4000183))
        #expect(results[5]["error"] == nil, "\(results[5])")
        #expect(error(6) == (404, 4040010))
        #expect(results[7]["error"] == nil, "\(results[7])")
        #expect(error(8) == (400, 4000035))
        #expect(results[9]["error"] == nil, "\(results[9])")
        #expect((results[10]["result"] as? [String: Any])?["status"] as? Int == 400)
        // Finished by the server: the app no longer gets the coins as unfinished.
        let listed = try await run(["transactions", "--json"]).jsonObject()["transactions"] as? [[String: Any]] ?? []
        func state(_ id: Int) -> String { listed.first { $0["id"] as? Int == id }?["state"] as? String ?? "?" }
        #expect(!state(coins).contains("unfinished") && state(monthly).contains("unfinished"), "\(listed)")
        await server.stop()
    }

    @Test("A backend that keeps the last revision sees a later refund and renewal of older purchases, in both histories")
    func revisionPolling() async throws {
        let setup = try await setup()
        let run = { (arguments: [String]) async throws -> RunResult in
            try await setup.sandbox.storefront(arguments, catalog: setup.catalog)
        }
        let pro = try #require((try await run(["buy", "pro", "--json"]).jsonObject()["transaction"] as? [String: Any])?["id"] as? Int)
        for _ in 0..<20 { try await run(["buy", "coins"]).expect(exit: 0) }
        let server = try startServer(setup)
        let port = try await port(of: server)
        // First sync: every page; the backend keeps the last revision of each history.
        let first = try await call(setup, port: port, [["call": "history", "id": String(pro), "version": 2],
                                                       ["call": "refunds", "id": String(pro)]])
        let pages = try #require(first[0]["result"] as? [[String: Any]])
        #expect(pages.count == 2 && pages.flatMap { $0["transactions"] as? [Any] ?? [] }.count == 21)
        let revision = try #require(pages.last?["revision"] as? String)
        let refundRevision = try #require((first[1]["result"] as? [String: Any])?["revision"] as? String)

        try await run(["refund", String(pro)]).expect(exit: 0)     // the oldest purchase
        let later = try await call(setup, port: port, [["call": "history", "id": String(pro), "version": 2, "revision": revision],
                                                       ["call": "refunds", "id": String(pro), "revision": refundRevision]])
        let changed = (later[0]["result"] as? [[String: Any]] ?? []).flatMap { $0["transactions"] as? [[String: Any]] ?? [] }
        #expect(changed.compactMap { $0["transactionId"] as? String } == [String(pro)], "\(later)")
        #expect(changed.first?["revoked"] as? Bool == true)
        let refunded = (later[1]["result"] as? [String: Any])?["transactions"] as? [[String: Any]] ?? []
        #expect(refunded.compactMap { $0["transactionId"] as? String } == [String(pro)], "\(later)")
        await server.stop()
    }

    /// Every Retention Messaging method of Apple's `AppStoreServerAPIClient` (app-store-server-library 3.1.2).
    static let retentionMessagingMethods = [
        "upload_image", "delete_image", "get_image_list", "upload_message", "delete_message", "get_message_list",
        "configure_default_message", "delete_default_message", "get_default_message",
        "configure_realtime_url", "delete_realtime_url", "get_realtime_url",
        "initiate_performance_test", "get_performance_test_results",
    ]

    @Test("The Retention Messaging API, not simulated: each of Apple's library's methods gets 404 with Apple's error body (4040000), as docs/server-api.md lists")
    func retentionMessaging() async throws {
        let setup = try await setup()
        let server = try startServer(setup)
        let port = try await port(of: server)
        let results = try await call(setup, port: port, Self.retentionMessagingMethods.map { ["call": "retention", "method": $0] })
        #expect(results.count == Self.retentionMessagingMethods.count)
        for (method, result) in zip(Self.retentionMessagingMethods, results) {
            let error = result["error"] as? [String: Any]
            #expect(error?["status"] as? Int == 404 && error?["code"] as? Int == 4040000, "\(method): \(result)")
            #expect(error?["message"] as? String == "Not found.", "\(method)")
        }
        // The docs name every one of them.
        let docs = try String(contentsOfFile: Repository.file("docs/server-api.md"), encoding: .utf8)
        for method in Self.retentionMessagingMethods { #expect(docs.contains("`\(method)`"), "docs/server-api.md lists \(method)") }
        await server.stop()
    }

    @Test("A request meant for either of Apple's hosts (api.storekit.apple.com, the older api.storekit.itunes.apple.com, and their sandboxes) is answered alike")
    func appleHosts() async throws {
        let setup = try await setup()
        let bought = try await setup.sandbox.storefront(["buy", "pro", "--json"], catalog: setup.catalog).jsonObject()
        let pro = try #require((bought["transaction"] as? [String: Any])?["id"] as? Int)
        let server = try startServer(setup)
        let port = try await port(of: server)
        let hosts = ["api.storekit.apple.com", "api.storekit-sandbox.apple.com",
                     "api.storekit.itunes.apple.com", "api.storekit-sandbox.itunes.apple.com"]
        let results = try await call(setup, port: port, hosts.map { ["call": "raw", "path": "/inApps/v1/transactions/\(pro)", "host": $0] })
        for (host, result) in zip(hosts, results) {
            let answer = result["result"] as? [String: Any]
            #expect(answer?["status"] as? Int == 200, "\(host): \(result)")
            #expect((answer?["body"] as? [String: Any])?["signedTransactionInfo"] is String, "\(host)")
        }
        await server.stop()
    }
}
