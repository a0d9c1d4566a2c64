import Foundation
import StoreEngine
import StorefrontServer
import Testing
import TestSupport

/// The App Store Server API's endpoints since 1.16 on one transaction, in process: Get App
/// Transaction Info, Set App Account Token, Finish Transaction, Send Consumption Information
/// (v2, and v1's checks of its body). Through Apple's library they run in StorefrontCLITests.
@Suite("ServerAPI: app transaction, app account token, finish, consumption")
struct ServerTransactionEndpointTests {
    typealias Fixture = ServerAPITests.Fixture

    @Test("Get App Transaction Info: the customer's app transaction by any of its transaction ids or its appTransactionId")
    func appTransactionInfo() async throws {
        let fixture = try await Fixture()
        let pro = try await fixture.buy("pro")
        let appTransactionID = AppTransactionID.make(account: fixture.store.account, bundleID: fixture.store.catalog.bundleID)
        for id in [String(pro.id), appTransactionID] {
            let response = try await fixture.send("GET", "/inApps/v1/transactions/appTransactions/\(id)")
            #expect(response.status == 200)
            let payload = try ServerAPITests.payload(try ServerAPITests.object(response)["signedAppTransactionInfo"])
            #expect(payload["appTransactionId"] as? String == appTransactionID)
            #expect(payload["bundleId"] as? String == fixture.store.catalog.bundleID)
            #expect(payload["receiptType"] as? String == "Sandbox")
            #expect(payload["appAppleId"] == nil, "Sandbox's has none")
        }
        #expect(try ServerAPITests.error(try await fixture.send("GET", "/inApps/v1/transactions/appTransactions/12ab")) == (400, 4000006))
        #expect(try ServerAPITests.error(try await fixture.send("GET", "/inApps/v1/transactions/appTransactions/1999999999"))
                == (404, 4040019))
    }

    @Test("Set App Account Token: the purchase and its renewals carry it, signed again; Apple's errors for a bad token or id")
    func appAccountToken() async throws {
        let fixture = try await Fixture()
        let monthly = try await fixture.buy("monthly")
        fixture.clock.advance(by: 32 * 86_400)
        _ = try await fixture.store.appStore.processRenewals()
        let token = UUID()
        let set = try await fixture.send("PUT", "/inApps/v1/transactions/\(monthly.id)/appAccountToken",
                                         body: ["appAccountToken": token.uuidString.lowercased()])
        #expect(set.status == 200 && set.body.isEmpty)
        let history = try ServerAPITests.object(try await fixture.send("GET", "/inApps/v2/history/\(monthly.id)"))
        let payloads = try (history["signedTransactions"] as? [Any] ?? []).map { try ServerAPITests.payload($0) }
        #expect(payloads.count == 2, "the purchase and its renewal")
        #expect(payloads.allSatisfy { ($0["appAccountToken"] as? String)?.lowercased() == token.uuidString.lowercased() })
        // Still verified by the store: the row and its signature say the same.
        #expect(try await fixture.store.app.transaction(id: monthly.id).verification == .verified)
        #expect(try await fixture.store.app.transaction(id: monthly.id).appAccountToken == token)

        let renewal = try #require(payloads.last?["transactionId"] as? String)
        func error(_ id: String, _ body: Any) async throws -> (Int, Int?) {
            try ServerAPITests.error(try await fixture.send("PUT", "/inApps/v1/transactions/\(id)/appAccountToken", body: body))
        }
        #expect(try await error(String(monthly.id), ["appAccountToken": "not-a-uuid"]) == (400, 4000183))
        #expect(try await error(String(monthly.id), [:] as [String: Any]) == (400, 4000183))
        #expect(try await error(renewal, ["appAccountToken": token.uuidString]) == (400, 4000187))
        #expect(try await error("1999999999", ["appAccountToken": token.uuidString]) == (404, 4040010))
        #expect(try await error("x1", ["appAccountToken": token.uuidString]) == (400, 4000008))
    }

    @Test("Finish Transaction: the app no longer gets it as unfinished, and owns what it bought")
    func finishTransaction() async throws {
        let fixture = try await Fixture()
        try await fixture.store.testSession.set(.finishTransactions, to: false)  // the app never finishes
        let pro = try await fixture.buy("pro")
        #expect(try await fixture.store.app.unfinished().map(\.id) == [pro.id])
        let finished = try await fixture.send("POST", "/inApps/v1/transactions/\(pro.id)/finish")
        #expect(finished.status == 200 && finished.body.isEmpty)
        #expect(try await fixture.store.app.unfinished().isEmpty)
        #expect(try await fixture.store.app.ownedProducts()["pro"]?.id == pro.id)
        #expect(try await fixture.send("POST", "/inApps/v1/transactions/\(pro.id)/finish").status == 200, "finishing twice is no error")
        #expect(try ServerAPITests.error(try await fixture.send("POST", "/inApps/v1/transactions/1999999999/finish")) == (404, 4040010))
        #expect(try ServerAPITests.error(try await fixture.send("POST", "/inApps/v1/transactions/abc/finish")) == (400, 4000006))
    }

    static var consumptionV2: [String: Any] { ["customerConsented": true, "sampleContentProvided": false,
                                               "deliveryStatus": "DELIVERED"] }

    @Test("Send Consumption Information v2: 202 for Apple's ConsumptionRequest of any product; each field checked as Apple does")
    func consumptionV2() async throws {
        let fixture = try await Fixture()
        let pro = try await fixture.buy("pro")
        let path = "/inApps/v2/transactions/consumption/\(pro.id)"
        var full = Self.consumptionV2
        full["consumptionPercentage"] = 25_000
        full["refundPreference"] = "GRANT_PRORATED"
        for body in [Self.consumptionV2, full] {
            let accepted = try await fixture.send("PUT", path, body: body)
            #expect(accepted.status == 202 && accepted.body.isEmpty)
        }
        func refused(_ change: (inout [String: Any]) -> Void) async throws -> (Int, Int?) {
            var body = Self.consumptionV2
            change(&body)
            return try ServerAPITests.error(try await fixture.send("PUT", path, body: body))
        }
        #expect(try await refused { $0["customerConsented"] = false } == (400, 4000035))
        #expect(try await refused { $0["customerConsented"] = nil } == (400, 4000035))
        #expect(try await refused { $0["sampleContentProvided"] = nil } == (400, 4000041))
        #expect(try await refused { $0["deliveryStatus"] = "LOST" } == (400, 4000036))
        #expect(try await refused { $0["deliveryStatus"] = 0 } == (400, 4000036))
        #expect(try await refused { $0["consumptionPercentage"] = 100_001 } == (400, 4000000))
        #expect(try await refused { $0["refundPreference"] = "MAYBE" } == (400, 4000044))
        #expect(try ServerAPITests.error(try await fixture.send("PUT", "/inApps/v2/transactions/consumption/1999999999",
                                                                body: Self.consumptionV2)) == (404, 4040010))
    }

    static var consumptionV1: [String: Any] { [
        "customerConsented": true, "consumptionStatus": 1, "platform": 1, "sampleContentProvided": false,
        "deliveryStatus": 0, "appAccountToken": "", "accountTenure": 0, "playTime": 0, "lifetimeDollarsRefunded": 0,
        "lifetimeDollarsPurchased": 0, "userStatus": 0,
    ] }

    @Test("Send Consumption Information v1: every required field, customerConsented true, a consumable or subscription")
    func consumptionV1() async throws {
        let fixture = try await Fixture()
        let coins = try await fixture.buy("coins")
        let pro = try await fixture.buy("pro")
        let path = "/inApps/v1/transactions/consumption/\(coins.id)"
        let accepted = try await fixture.send("PUT", path, body: Self.consumptionV1)
        #expect(accepted.status == 202 && accepted.body.isEmpty)
        func refused(_ change: (inout [String: Any]) -> Void) async throws -> (Int, Int?) {
            var body = Self.consumptionV1
            change(&body)
            return try ServerAPITests.error(try await fixture.send("PUT", path, body: body))
        }
        #expect(try await refused { $0 = [:] } == (400, 4000035), "an empty object")
        #expect(try await refused { $0["customerConsented"] = false } == (400, 4000035))
        #expect(try await refused { $0["consumptionStatus"] = 4 } == (400, 4000034))
        #expect(try await refused { $0["platform"] = nil } == (400, 4000039))
        #expect(try await refused { $0["sampleContentProvided"] = 1 } == (400, 4000041))
        #expect(try await refused { $0["deliveryStatus"] = 6 } == (400, 4000036))
        #expect(try await refused { $0["appAccountToken"] = "nope" } == (400, 4000033))
        #expect(try await refused { $0["accountTenure"] = 8 } == (400, 4000032))
        #expect(try await refused { $0["playTime"] = -1 } == (400, 4000040))
        #expect(try await refused { $0["lifetimeDollarsRefunded"] = 9 } == (400, 4000038))
        #expect(try await refused { $0["lifetimeDollarsPurchased"] = "0" } == (400, 4000037))
        #expect(try await refused { $0["userStatus"] = 5 } == (400, 4000042))
        #expect(try ServerAPITests.error(try await fixture.send("PUT", "/inApps/v1/transactions/consumption/\(pro.id)",
                                                                body: Self.consumptionV1)) == (400, 4000047))
    }
}
