import Foundation
import Testing

/// What a backend written for Apple relies on when it names a customer, reads a renewal that
/// failed to bill, or sends consumption information: seen through Apple's library.
@Suite("storefront serve: customers by any id, billing-retry renewal info, consumption refusals, seen by Apple's library", .serverLane)
struct ServerCustomerTests: ServerHarness {
    static func id(_ result: RunResult) throws -> String {
        result.expect(exit: 0)
        return String(try #require((try result.jsonObject()["transaction"] as? [String: Any])?["id"] as? Int))
    }

    static func error(_ result: [String: Any]) -> (Int?, Int?) {
        let error = result["error"] as? [String: Any]
        return (error?["status"] as? Int, error?["code"] as? Int)
    }

    @Test("An appTransactionId names the customer to statuses, history v1 and v2 and refunds; Notification History's transactionId gives all of the customer's notifications")
    func anyTransactionID() async throws {
        let setup = try await setup()
        let run = { (arguments: [String]) async throws -> RunResult in
            try await setup.sandbox.storefront(arguments, catalog: setup.catalog)
        }
        let monthly = try Self.id(try await run(["buy", "monthly", "--json"]))
        let pro = try Self.id(try await run(["buy", "pro", "--json"]))
        let coins = try Self.id(try await run(["buy", "coins", "--json"]))
        try await run(["refund", pro]).expect(exit: 0)
        let other = try Self.id(try await run(["--account", "bob", "buy", "pro", "--json"]))  // another customer
        let server = try startServer(setup)
        let port = try await port(of: server)
        let found = try await call(setup, port: port, [["call": "appTransaction", "id": pro]])
        let appTransactionID = try #require((found[0]["result"] as? [String: Any])?["appTransactionId"] as? String, "\(found)")
        let now = Int(Date().timeIntervalSince1970 * 1000)
        let window: [String: Any] = ["call": "notificationHistory", "start": now - 86_400_000, "end": now + 86_400_000]
        var byCoins = window
        byCoins["transactionId"] = coins
        let results = try await call(setup, port: port, [
            ["call": "statuses", "id": appTransactionID],
            ["call": "history", "id": appTransactionID, "version": 2],
            ["call": "history", "id": appTransactionID, "version": 1],
            ["call": "refunds", "id": appTransactionID],
            ["call": "history", "id": monthly, "version": 2],
            byCoins,
            window,
        ])
        #expect(results.allSatisfy { $0["error"] == nil }, "\(results)")
        let statuses = (results[0]["result"] as? [String: Any])?["statuses"] as? [[String: Any]] ?? []
        #expect(statuses.compactMap { $0["originalTransactionId"] as? String } == [monthly], "\(results[0])")
        func ids(_ index: Int) -> [String] {
            (results[index]["result"] as? [[String: Any]] ?? []).flatMap { $0["transactions"] as? [[String: Any]] ?? [] }
                .compactMap { $0["transactionId"] as? String }
        }
        #expect(Set(ids(1)) == [monthly, pro, coins] && ids(1) == ids(4), "the customer's history, as by a transaction id")
        #expect(Set(ids(2)) == [monthly, pro], "v1 leaves out the consumable the app finished")
        let refunded = (results[3]["result"] as? [String: Any])?["transactions"] as? [[String: Any]] ?? []
        #expect(refunded.compactMap { $0["transactionId"] as? String } == [pro])
        // The consumable's id limits the history to its customer: every notification of theirs, none of bob's.
        let customer = results[5]["result"] as? [[String: Any]] ?? []
        #expect(customer.map(Self.pair) == ["SUBSCRIBED INITIAL_BUY", "ONE_TIME_CHARGE", "ONE_TIME_CHARGE", "REFUND"], "\(customer)")
        #expect(Set(customer.compactMap { $0["transactionId"] as? String }) == [monthly, pro, coins])
        let everyone = results[6]["result"] as? [[String: Any]] ?? []
        #expect(everyone.count == 5 && everyone.contains { $0["transactionId"] as? String == other }, "\(everyone)")
        await server.stop()
    }

    @Test("A renewal that fails to bill: expirationIntent 2 in DID_FAIL_TO_RENEW (with and without GRACE_PERIOD), GRACE_PERIOD_EXPIRED and statuses 3 and 4")
    func billingRetryExpirationIntent() async throws {
        let setup = try await setup()
        let log = setup.sandbox.path("received.jsonl")
        let receiver = try startReceiver(setup, log: log)
        let receiverPort = try await receiver.wait(for: #"listening (\d+)"#)
        let server = try startServer(setup, notify: ["http://127.0.0.1:\(receiverPort)/"])
        let port = try await port(of: server)
        let store = { (arguments: [String]) async throws in
            try await setup.sandbox.storefront(arguments, catalog: setup.catalog).expect(exit: 0)
        }
        try await store(["settings", "set", "billingIssues", "true"])
        let monthly = try Self.id(try await setup.sandbox.storefront(["buy", "monthly", "--json"], catalog: setup.catalog))
        try await store(["clock", "advance", "P8D"])               // the trial's renewal fails: billing retry
        try await store(["settings", "set", "gracePeriod", "true"])
        let plus = try Self.id(try await setup.sandbox.storefront(["buy", "plus.monthly", "--json"], catalog: setup.catalog))
        try await store(["clock", "advance", "P1M1D"])             // plus's renewal fails: a grace period
        let during = try await call(setup, port: port, [["call": "statuses", "id": monthly]])
        try await store(["clock", "advance", "P20D"])              // plus's grace period ends, billing retry goes on
        let after = try await call(setup, port: port, [["call": "statuses", "id": monthly]])

        let expected = ["SUBSCRIBED INITIAL_BUY", "DID_FAIL_TO_RENEW", "SUBSCRIBED INITIAL_BUY", "DID_FAIL_TO_RENEW GRACE_PERIOD",
                        "GRACE_PERIOD_EXPIRED"]
        let got = try await received(log, count: expected.count)
        #expect(got.map(Self.pair) == expected)
        #expect(got.map { $0["status"] as? Int } == [1, 3, 1, 4, 3], "\(got)")
        #expect(got.map { $0["expirationIntent"] as? Int } == [nil, 2, nil, 2, 2], "\(got)")
        func statuses(_ results: [[String: Any]]) -> [String: [String: Any]] {
            let listed = (results.first?["result"] as? [String: Any])?["statuses"] as? [[String: Any]] ?? []
            return Dictionary(listed.map { ($0["originalTransactionId"] as? String ?? "?", $0) }, uniquingKeysWith: { first, _ in first })
        }
        let retrying = statuses(during)
        #expect(retrying[monthly]?["status"] as? Int == 3 && retrying[monthly]?["expirationIntent"] as? Int == 2, "\(during)")
        #expect(retrying[plus]?["status"] as? Int == 4 && retrying[plus]?["expirationIntent"] as? Int == 2, "\(during)")
        #expect(retrying[plus]?["isInBillingRetryPeriod"] as? Bool == true)
        #expect(statuses(after)[plus]?["status"] as? Int == 3 && statuses(after)[plus]?["expirationIntent"] as? Int == 2, "\(after)")
        await server.stop()
        await receiver.stop()
    }

    @Test("Send Consumption Information v2 refuses what Apple refuses, each with Apple's error")
    func consumptionRefusals() async throws {
        let setup = try await setup()
        _ = try setup.sandbox.write("catalog.json", AppleLibraryTests.catalog
            .replacingOccurrences(of: #"{ "id": "pro", "type": "nonConsumable","#, with: #"{ "id": "pro", "type": "nonConsumable", "familyShareable": true,"#))
        let run = { (arguments: [String]) async throws -> RunResult in
            try await setup.sandbox.storefront(["--account", "alice"] + arguments, catalog: setup.catalog)
        }
        try await run(["accounts", "family", "create", "smiths"]).expect(exit: 0)
        try await run(["accounts", "family", "add", "smiths", "bob"]).expect(exit: 0)
        let pro = try Self.id(try await run(["buy", "pro", "--json"]))
        let coins = try Self.id(try await run(["buy", "coins", "--json"]))
        let monthly = try Self.id(try await run(["buy", "monthly", "--json"]))
        let shared = try await setup.sandbox.storefront(["--account", "bob", "transactions", "--json"], catalog: setup.catalog).jsonObject()
        let bobs = try #require((shared["transactions"] as? [[String: Any]])?.first { $0["productID"] as? String == "pro" }?["id"] as? Int)
        let server = try startServer(setup)
        let port = try await port(of: server)
        let found = try await call(setup, port: port, [["call": "appTransaction", "id": pro]])
        let appTransactionID = try #require((found[0]["result"] as? [String: Any])?["appTransactionId"] as? String, "\(found)")
        func consumption(_ id: String, _ fields: [String: Any] = [:]) -> [String: Any] {
            ["call": "consumption", "id": id,
             "request": ["customerConsented": true, "sampleContentProvided": false, "deliveryStatus": "DELIVERED"]
                .merging(fields) { $1 }]
        }
        let path = "/inApps/v2/transactions/consumption/\(coins)"
        let results = try await call(setup, port: port, [
            consumption(String(bobs)),
            consumption(coins, ["deliveryStatus": "UNDELIVERED_OTHER", "consumptionPercentage": 50_000]),
            consumption(coins, ["deliveryStatus": "UNDELIVERED_OTHER", "consumptionPercentage": 0]),
            consumption(monthly, ["consumptionPercentage": 10_000]),
            consumption(monthly, ["refundPreference": "GRANT_PRORATED"]),
            consumption(coins, ["consumptionPercentage": 100_001]),
            ["call": "raw", "method": "PUT", "path": path, "body": ["customerConsented": true, "sampleContentProvided": false,
                                                                 "deliveryStatus": "DELIVERED", "refundPreference": "MAYBE"]],
            consumption(appTransactionID),
            consumption(pro, ["consumptionPercentage": 100_000, "refundPreference": "GRANT_FULL"]),
        ])
        #expect(Self.error(results[0]) == (400, 4000185), "a family member's shared purchase: \(results[0])")
        #expect(Self.error(results[1]) == (400, 4000000), "UNDELIVERED_* with a percentage: \(results[1])")
        #expect((results[1]["error"] as? [String: Any])?["message"] as? String
                == "Invalid request. The consumption percentage must be zero for the provided delivery status.")
        #expect(results[2]["error"] == nil, "UNDELIVERED_* with 0: \(results[2])")
        #expect(Self.error(results[3]) == (400, 4000209), "a percentage for an auto-renewable subscription: \(results[3])")
        #expect(results[4]["error"] == nil, "GRANT_PRORATED for a subscription, no percentage: \(results[4])")
        #expect(Self.error(results[5]) == (400, 4000000), "out of range: \(results[5])")
        #expect((results[5]["error"] as? [String: Any])?["message"] as? String == "Invalid request. The consumption percentage is outside the valid range.")
        let refusal = (results[6]["result"] as? [String: Any])?["body"] as? [String: Any]
        #expect(refusal?["errorCode"] as? Int == 4000044, "an invalid refundPreference: \(results[6])")
        #expect(Self.error(results[7]) == (400, 4000048), "an appTransactionId: \(results[7])")
        #expect(results[8]["error"] == nil, "\(results[8])")
        await server.stop()
    }

    @Test("A mass extension's RENEWAL_EXTENSION FAILURE for each subscription it could not extend; Notification History's Sandbox window and subtype")
    func massExtensionFailureAndHistoryLimits() async throws {
        let setup = try await setup()
        let log = setup.sandbox.path("received.jsonl")
        let receiver = try startReceiver(setup, log: log)
        let receiverPort = try await receiver.wait(for: #"listening (\d+)"#)
        let server = try startServer(setup, notify: ["http://127.0.0.1:\(receiverPort)/"])
        let port = try await port(of: server)
        let buy = { (account: String) async throws -> String in
            try Self.id(try await setup.sandbox.storefront(["--account", account, "buy", "monthly", "--json"], catalog: setup.catalog))
        }
        _ = try await buy("alice")
        _ = try await buy("bob")
        try await setup.sandbox.storefront(["clock", "advance", "P8D"], catalog: setup.catalog).expect(exit: 0)  // past their trials
        let carol = try await buy("carol")                                      // in a free trial: Apple extends none
        let before = try await recorded(setup).count
        let now = Int(Date().timeIntervalSince1970 * 1000)                      // the store's clock is 8 days ahead
        let results = try await call(setup, port: port, [
            ["call": "massExtend", "productId": "monthly", "requestIdentifier": "everyone", "days": 3],
            ["call": "massStatus", "productId": "monthly", "requestIdentifier": "everyone"],
            ["call": "notificationHistory", "start": now - 21 * 86_400_000, "end": now + 30 * 86_400_000],
            ["call": "notificationHistory", "start": now - 23 * 86_400_000, "end": now + 30 * 86_400_000],
            ["call": "notificationHistory", "start": now - 86_400_000, "end": now + 30 * 86_400_000, "subtype": "SUMMARY"],
            ["call": "notificationHistory", "start": now - 86_400_000, "end": now + 30 * 86_400_000, "type": "RENEWAL_EXTENSION",
             "subtype": "FAILURE"],
        ])
        let status = results[1]["result"] as? [String: Any] ?? [:]
        #expect(status["succeededCount"] as? Int == 2 && status["failedCount"] as? Int == 1, "\(results[1])")
        #expect(results[2]["error"] == nil, "within the sandbox's 30 days: \(results[2])")
        #expect(Self.error(results[3]) == (400, 4000012), "more than 30 days back in the sandbox: \(results[3])")
        #expect(Self.error(results[4]) == (400, 4000018), "a subtype without its type: \(results[4])")
        let failures = results[5]["result"] as? [[String: Any]] ?? []
        #expect(failures.map(Self.pair) == ["RENEWAL_EXTENSION FAILURE"] && failures.first?["transactionId"] as? String == carol,
                "\(results[5])")
        let all = try await recorded(setup)
        let got = try await received(log, count: all.count)
        let extensions = got.dropFirst(before)
        #expect(extensions.map(Self.pair).sorted() == ["RENEWAL_EXTENDED", "RENEWAL_EXTENDED", "RENEWAL_EXTENSION FAILURE",
                                                       "RENEWAL_EXTENSION SUMMARY"], "\(got)")
        #expect(extensions.last.map(Self.pair) == "RENEWAL_EXTENSION SUMMARY")
        let failure = extensions.first { Self.pair($0) == "RENEWAL_EXTENSION FAILURE" }
        #expect(failure?["transactionId"] as? String == carol && failure?["status"] as? Int == 1, "\(got)")
        #expect(got.allSatisfy { $0["refused"] == nil })
        await server.stop()
        await receiver.stop()
    }
}
