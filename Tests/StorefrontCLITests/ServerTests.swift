import Foundation
import Testing

/// `storefront serve`'s Server API over HTTP, called by Apple's App Store Server Library for Python.
@Suite("storefront serve: the App Store Server API over HTTP, seen by Apple's library", .serverLane)
struct ServerEndpointTests: ServerHarness {
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
        // ASCENDING by last change is the default: the refunded pro, changed last, comes last.
        #expect(ids.last == String(pro) && ids.dropLast() == ids.dropLast().sorted { Int($0)! < Int($1)! }, "\(ids)")
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

/// `storefront serve`'s notifications, decoded by Apple's library in a receiver.
@Suite("storefront serve: notifications, seen by Apple's library", .serverLane)
struct ServerNotificationTests: ServerHarness {
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

    @Test("A receiver that is down gets every notification afterwards, in order, none twice, retried on the store's clock (Production)")
    func receiverDown() async throws {
        let setup = try await setup()
        // Apple retries in Production only (Sandbox sends once): a Production verifier, with the app's Apple ID.
        let production = ["--environment", "Production", "--app-apple-id", "1234567890"]
        try await setup.sandbox.storefront(["settings", "set", "environment", "Production"], catalog: setup.catalog).expect(exit: 0)
        try await setup.sandbox.storefront(["settings", "set", "appAppleId", "1234567890"], catalog: setup.catalog).expect(exit: 0)
        // A port nothing listens on: take a free one from a receiver, then stop it.
        let probe = try startReceiver(setup, log: setup.sandbox.path("probe.jsonl"))
        let receiverPort = try await probe.wait(for: #"listening (\d+)"#)
        await probe.stop()
        let url = "http://127.0.0.1:\(receiverPort)/"
        // A witness that is up, after the one that is down: the sender tries the URLs in turn, so
        // what the witness has received, the down URL has had its turn at.
        let witnessLog = setup.sandbox.path("witness.jsonl")
        let witness = try startReceiver(setup, log: witnessLog, verifier: production)
        let witnessURL = "http://127.0.0.1:\(try await witness.wait(for: #"listening (\d+)"#))/"
        let server = try startServer(setup, notify: [url, witnessURL])
        _ = try await port(of: server)
        let store = { (arguments: [String]) async throws in
            try await setup.sandbox.storefront(arguments, catalog: setup.catalog).expect(exit: 0)
        }
        try await store(["buy", "pro"])
        let failure = try await server.wait(for: #"notification 1 ONE_TIME_CHARGE → \S+:\#(receiverPort)/: ([A-Z_]+)"#)
        #expect(failure == "NO_RESPONSE")
        try await store(["buy", "monthly"])
        try await store(["buy", "coins"])
        #expect(try await received(witnessLog, count: 3).count == 3)
        var notifications = try await recorded(setup)
        #expect(notifications.count == 3)
        // In order: the later ones wait while the first is retried; the retry waits an hour of store time.
        func attempts(to url: String) -> [Int] {
            notifications.map { ($0["sendAttempts"] as? [[String: Any]] ?? []).filter { $0["url"] as? String ?? url == url }.count }
        }
        #expect(attempts(to: url) == [1, 0, 0], "\(notifications)")

        let log = setup.sandbox.path("received.jsonl")
        let receiver = try startReceiver(setup, log: log, port: Int(receiverPort)!, verifier: production)
        _ = try await receiver.wait(for: #"listening (\d+)"#)
        // The receiver is back; a fourth notification reaches the witness, so the sender has had
        // its turn at the receiver since, and must not have retried before an hour of store time.
        try await store(["buy", "coins"])
        #expect(try await received(witnessLog, count: 4).count == 4)
        #expect(try await received(log, count: 0).isEmpty, "retried before an hour of store time")
        try await store(["clock", "advance", "PT1H"])
        let got = try await received(log, count: 4)
        #expect(got.map(Self.pair) == ["ONE_TIME_CHARGE", "SUBSCRIBED INITIAL_BUY", "ONE_TIME_CHARGE", "ONE_TIME_CHARGE"])
        // One more after: once it is in, anything sent twice before it would be in too.
        try await store(["buy", "coins"])
        let again = try await received(log, count: 5)
        #expect(again.count == 5)
        #expect(Set(again.compactMap { $0["uuid"] as? String }).count == again.count, "a notification twice")
        notifications = try await recorded(setup)
        let results = notifications.map { ($0["sendAttempts"] as? [[String: Any]] ?? [])
            .filter { $0["url"] as? String ?? url == url }.compactMap { $0["sendAttemptResult"] as? String } }
        #expect(results == [[failure, "SUCCESS"], ["SUCCESS"], ["SUCCESS"], ["SUCCESS"], ["SUCCESS"]])
        await server.stop()
        await receiver.stop()
        await witness.stop()
    }
}
