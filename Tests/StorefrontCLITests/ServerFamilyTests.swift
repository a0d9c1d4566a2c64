import Foundation
import Testing

/// Family Sharing and refund requests as a backend hears them, decoded by Apple's library.
@Suite("storefront serve: Family Sharing and refund requests, seen by Apple's library", .serverLane)
struct ServerFamilyTests: ServerHarness {
    @Test("Family Sharing and refund requests reach a receiver as Apple sends them: FAMILY_SHARED, REVOKE, CONSUMPTION_REQUEST, REFUND_DECLINED")
    func familyAndRefundRequests() async throws {
        let setup = try await setup()
        // The same app, with "pro" and "monthly" family-shareable.
        _ = try setup.sandbox.write("catalog.json", AppleLibraryTests.catalog
            .replacingOccurrences(of: #"{ "id": "pro", "type": "nonConsumable","#, with: #"{ "id": "pro", "type": "nonConsumable", "familyShareable": true,"#)
            .replacingOccurrences(of: #""price": "4.99", "period": "P1M", "level": 2,"#, with: #""price": "4.99", "period": "P1M", "level": 2, "familyShareable": true,"#))
        let log = setup.sandbox.path("received.jsonl")
        let receiver = try startReceiver(setup, log: log)
        let receiverPort = try await receiver.wait(for: #"listening (\d+)"#)
        let server = try startServer(setup, notify: ["http://127.0.0.1:\(receiverPort)/"])
        _ = try await port(of: server)
        let run = { (arguments: [String]) async throws -> RunResult in
            try await setup.sandbox.storefront(["--account", "alice"] + arguments, catalog: setup.catalog)
        }
        let bought = { (product: String) async throws -> String in
            let result = try await run(["buy", product, "--json"])
            result.expect(exit: 0)
            return String(try #require((try result.jsonObject()["transaction"] as? [String: Any])?["id"] as? Int))
        }
        try await run(["accounts", "family", "create", "smiths"]).expect(exit: 0)
        try await run(["accounts", "family", "add", "smiths", "bob"]).expect(exit: 0)
        let pro = try await bought("pro")
        let monthly = try await bought("monthly")
        try await run(["refund-request", "begin", monthly, "--request-reason", "unintendedPurchase"]).expect(exit: 0)
        try await run(["refund-request", "decline", monthly]).expect(exit: 0)
        let coins = try await bought("coins")
        try await run(["refund-request", "begin", coins, "--request-reason", "fulfillmentIssue"]).expect(exit: 0)
        try await run(["refund-request", "approve", coins]).expect(exit: 0)
        try await run(["refund", pro, "--reason", "developerIssue"]).expect(exit: 0)
        try await run(["accounts", "family", "remove", "smiths", "bob"]).expect(exit: 0)

        let expected = [
            "ONE_TIME_CHARGE PURCHASED", "ONE_TIME_CHARGE FAMILY_SHARED",
            "SUBSCRIBED INITIAL_BUY PURCHASED", "SUBSCRIBED INITIAL_BUY FAMILY_SHARED",
            // The refund request turns the subscription's auto-renew off, for the family's share too.
            "DID_CHANGE_RENEWAL_STATUS AUTO_RENEW_DISABLED PURCHASED", "DID_CHANGE_RENEWAL_STATUS AUTO_RENEW_DISABLED FAMILY_SHARED",
            "CONSUMPTION_REQUEST PURCHASED", "REFUND_DECLINED PURCHASED",
            "ONE_TIME_CHARGE PURCHASED", "CONSUMPTION_REQUEST PURCHASED", "REFUND PURCHASED",
            "REFUND PURCHASED", "REVOKE FAMILY_SHARED",
            "REVOKE FAMILY_SHARED",
        ]
        let got = try await received(log, count: expected.count)
        #expect(got.map { Self.pair($0) + " " + ($0["inAppOwnershipType"] as? String ?? "-") } == expected)
        #expect(got.compactMap { $0["consumptionRequestReason"] as? String } == ["UNINTENDED_PURCHASE", "FULFILLMENT_ISSUE"])
        // A member's transaction is its own; the purchaser's refund revokes it with the purchaser's reason,
        // leaving the family with reason 0 (Apple's revocationReason).
        #expect(got[1]["transactionId"] as? String != pro && got[1]["originalTransactionId"] as? String == got[1]["transactionId"] as? String)
        #expect(got.dropFirst(10).map { $0["revocationReason"] as? Int } == [1, 1, 1, 0])
        #expect(got[13]["productId"] as? String == "monthly" && got[13]["status"] as? Int == 5)
        #expect(got.allSatisfy { $0["refused"] == nil })
        await server.stop()
        await receiver.stop()
    }
}
