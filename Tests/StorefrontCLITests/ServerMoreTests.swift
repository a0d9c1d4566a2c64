import Foundation
import Testing

/// Mass renewal-date extensions and receiver URLs kept in the store, through Apple's library.
@Suite("storefront serve: mass extensions, offers, history versions, kept receiver URLs", .serverLane)
struct ServerMassExtensionTests: ServerHarness {
    @Test("Mass extension: every active subscriber of a product, by storefront, with its status and Apple's notifications")
    func massExtension() async throws {
        let setup = try await setup()
        let store = { (arguments: [String]) async throws in
            try await setup.sandbox.storefront(arguments, catalog: setup.catalog).expect(exit: 0)
        }
        try await store(["buy", "monthly", "--account", "alice"])             // USA
        try await store(["buy", "yearly", "--account", "carol"])              // another product
        try await store(["buy", "monthly", "--account", "dave"])
        try await store(["expire", "premium", "--account", "dave"])           // not active
        try await store(["buy", "monthly", "--account", "bob"])
        try await store(["expire", "premium", "--account", "bob"])
        try await store(["clock", "advance", "P8D"])                          // past alice's free trial: Apple extends no free offer period
        try await store(["settings", "set", "storefront", "GBR"])
        try await store(["buy", "monthly", "--account", "bob"])               // GBR, paid: the trial was taken
        let alice = try await setup.sandbox.storefront(["transactions", "--json", "--account", "alice"], catalog: setup.catalog)
            .jsonObject()
        let aliceOriginal = try #require((alice["transactions"] as? [[String: Any]])?.first?["originalID"] as? Int)

        let log = setup.sandbox.path("received.jsonl")
        let receiver = try startReceiver(setup, log: log)
        let receiverPort = try await receiver.wait(for: #"listening (\d+)"#)
        let server = try startServer(setup, notify: ["http://127.0.0.1:\(receiverPort)/"])
        let port = try await port(of: server)
        let before = try await recorded(setup).count
        let results = try await call(setup, port: port, [
            ["call": "statuses", "id": String(aliceOriginal)],
            ["call": "massExtend", "productId": "monthly", "requestIdentifier": "usa-only", "days": 10, "storefronts": ["USA"]],
            ["call": "massStatus", "productId": "monthly", "requestIdentifier": "usa-only"],
            ["call": "massExtend", "productId": "monthly", "requestIdentifier": "everyone", "days": 5],
            ["call": "massExtend", "productId": "monthly", "requestIdentifier": "usa-only", "days": 10, "storefronts": ["USA"]],
            ["call": "massStatus", "productId": "monthly", "requestIdentifier": "everyone"],
            ["call": "statuses", "id": String(aliceOriginal)],
            ["call": "massStatus", "productId": "monthly", "requestIdentifier": "unknown"],
            ["call": "massStatus", "productId": "yearly", "requestIdentifier": "everyone"],
            ["call": "massExtend", "productId": "pro", "requestIdentifier": "x", "days": 5],
            ["call": "massExtend", "productId": "monthly", "requestIdentifier": "x", "days": 91],
            ["call": "massExtend", "productId": "monthly", "requestIdentifier": "x", "days": 5, "storefronts": ["usa"]],
            ["call": "massExtend", "productId": "monthly", "requestIdentifier": "x", "days": 5, "storefronts": [] as [String]],
        ])
        func result(_ index: Int) -> [String: Any] { results[index]["result"] as? [String: Any] ?? [:] }
        func error(_ index: Int) -> (Int?, Int?) {
            let error = results[index]["error"] as? [String: Any]
            return (error?["status"] as? Int, error?["code"] as? Int)
        }
        func expires(_ index: Int) -> Int? {
            ((result(index)["statuses"] as? [[String: Any]])?.first?["transaction"] as? [String: Any])?["expiresDate"] as? Int
        }
        #expect(result(1)["requestIdentifier"] as? String == "usa-only")
        #expect(result(2)["complete"] as? Bool == true)
        #expect(result(2)["succeededCount"] as? Int == 1, "alice only: bob bought in GBR, dave's has expired, carol's is yearly")
        #expect(result(2)["failedCount"] as? Int == 0)
        #expect(result(2)["completeDate"] as? Int != nil)
        #expect(result(4)["requestIdentifier"] as? String == "usa-only", "the same request again extends nothing")
        #expect(result(5)["succeededCount"] as? Int == 2, "alice and bob")
        let (old, new) = (try #require(expires(0)), try #require(expires(6)))
        #expect(new - old == 15 * 86_400_000)
        #expect(error(7) == (404, 4040009))
        #expect(error(8) == (404, 4040009), "a request identifier belongs to its product")
        #expect(error(9) == (400, 4000023))
        #expect(error(10) == (400, 4000009))
        #expect(error(11) == (400, 4000028))
        #expect(error(12) == (400, 4000027))

        let all = try await recorded(setup)
        #expect(all.count == before + 5)
        let got = try await received(log, count: all.count)
        let extensions = got.filter { ($0["type"] as? String ?? "").hasPrefix("RENEWAL_EXTEN") }
        #expect(extensions.map(Self.pair) == ["RENEWAL_EXTENDED", "RENEWAL_EXTENSION SUMMARY", "RENEWAL_EXTENDED",
                                             "RENEWAL_EXTENDED", "RENEWAL_EXTENSION SUMMARY"])
        let summaries = extensions.compactMap { $0["summary"] as? [String: Any] }
        #expect(summaries.compactMap { $0["requestIdentifier"] as? String } == ["usa-only", "everyone"])
        #expect(summaries.compactMap { $0["succeededCount"] as? Int } == [1, 2])
        #expect(summaries.compactMap { $0["productId"] as? String } == ["monthly", "monthly"])
        #expect(summaries.first?["storefrontCountryCodes"] as? [String] == ["USA"])
        #expect(summaries.allSatisfy { $0["environment"] as? String == "Sandbox" && $0["bundleId"] as? String == Self.bundleID })
        #expect(got.allSatisfy { $0["refused"] == nil })
        await server.stop()
        await receiver.stop()
    }

    @Test("A promotional offer redeemed for the active plan (at its next renewal) is OFFER_REDEEMED without a subtype")
    func promotionalOfferAtRenewal() async throws {
        let setup = try await setup()
        let run = { (arguments: [String]) async throws -> RunResult in
            try await setup.sandbox.storefront(arguments, catalog: setup.catalog)
        }
        try await run(["buy", "yearly"]).expect(exit: 0)
        try await run(["offer-keys", "create"]).expect(exit: 0)  // Apple requires the offer's signature
        try await run(["buy", "yearly", "--offer", "comeback", "--sign"]).expect(exit: 0)
        try await run(["clock", "advance", "P1Y1D"]).expect(exit: 0)
        let pairs = try await recorded(setup).map { [$0["notificationType"] as? String, $0["subtype"] as? String] }
        #expect(pairs == [["SUBSCRIBED", "INITIAL_BUY"], ["OFFER_REDEEMED", nil], ["DID_RENEW", nil]])
    }

    @Test("History v2 has every consumable; v1, as Apple's, leaves out those finished unless refunded")
    func historyVersions() async throws {
        let setup = try await setup()
        let run = { (arguments: [String]) async throws -> RunResult in
            try await setup.sandbox.storefront(arguments, catalog: setup.catalog)
        }
        try await run(["buy", "pro"]).expect(exit: 0)
        var coins: [Int] = []
        for _ in 0..<3 {
            let bought = try await run(["buy", "coins", "--json"]).jsonObject()
            coins.append(try #require((bought["transaction"] as? [String: Any])?["id"] as? Int, "\(bought)"))
        }
        try await run(["refund", String(coins[1])]).expect(exit: 0)
        let server = try startServer(setup)
        let port = try await port(of: server)
        let results = try await call(setup, port: port, [
            ["call": "history", "id": String(coins[0]), "version": 2],
            ["call": "history", "id": String(coins[0]), "version": 1],
        ])
        func ids(_ index: Int) -> [String] {
            (results[index]["result"] as? [[String: Any]] ?? []).flatMap {
                ($0["transactions"] as? [[String: Any]] ?? []).compactMap { $0["transactionId"] as? String }
            }
        }
        #expect(ids(0).count == 4)
        #expect(ids(1).count == 2, "pro and the refunded coins")
        #expect(ids(1).contains(String(coins[1])) && !ids(1).contains(String(coins[0])))
        await server.stop()
    }

    @Test("Receiver URLs kept in the store: used without --notify, each getting only what is recorded after it was added")
    func keptReceivers() async throws {
        let setup = try await setup()
        let run = { (arguments: [String]) async throws -> RunResult in
            try await setup.sandbox.storefront(arguments, catalog: setup.catalog)
        }
        try await run(["buy", "pro"]).expect(exit: 0)                         // before any receiver: not sent
        let log = setup.sandbox.path("received.jsonl")
        let receiver = try startReceiver(setup, log: log)
        let url = "http://127.0.0.1:\(try await receiver.wait(for: #"listening (\d+)"#))/store"
        try await run(["serve", "urls", "add", url]).expect(exit: 0)
        try await run(["serve", "urls", "add", url]).expect(exit: 0)          // kept once
        try await run(["serve", "urls", "add", "ftp://example.com/"]).expect(exit: 64)
        let listed = try await run(["serve", "urls", "--json"]).jsonObject()
        #expect((listed["urls"] as? [[String: Any]])?.compactMap { $0["url"] as? String } == [url])
        try await run(["buy", "coins"]).expect(exit: 0)                       // while the server is down: sent when it starts
        let server = try startServer(setup)
        _ = try await port(of: server)
        #expect(server.text.contains("the URLs kept in the store: \(url)"))
        try await run(["buy", "monthly"]).expect(exit: 0)
        let got = try await received(log, count: 2)
        #expect(got.map(Self.pair) == ["ONE_TIME_CHARGE", "SUBSCRIBED INITIAL_BUY"])
        #expect(got.first?["productId"] as? String == "coins")
        // A second URL added while serving is picked up, and gets only what follows.
        let secondLog = setup.sandbox.path("second.jsonl")
        let second = try startReceiver(setup, log: secondLog)
        let secondURL = "http://127.0.0.1:\(try await second.wait(for: #"listening (\d+)"#))/"
        try await run(["serve", "urls", "add", secondURL]).expect(exit: 0)
        try await run(["serve", "urls", "remove", url]).expect(exit: 0)
        try await run(["serve", "urls", "remove", url]).expect(exit: 64)
        try await run(["buy", "coins"]).expect(exit: 0)
        let secondGot = try await received(secondLog, count: 1)
        #expect(secondGot.map(Self.pair) == ["ONE_TIME_CHARGE"])
        // One more after: once the second URL has it, the removed one has had its chance at both.
        try await run(["buy", "coins"]).expect(exit: 0)
        #expect(try await received(secondLog, count: 2).count == 2, "a notification twice, or none")
        #expect(try await received(log, count: 0).count == 2, "a removed URL gets nothing more")
        await server.stop()
        await receiver.stop()
        await second.stop()
    }
}
