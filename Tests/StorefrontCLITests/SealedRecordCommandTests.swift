import Foundation
import Testing

/// Issue 43 (7), through the binary: one sqlite3 edit of `subscriptions` or `app_balances` gave a
/// lapsed subscription an entitlement until 2100, or a balance of 1000 coins, and the doctor said
/// Healthy. Schema 10 seals those rows: an edited one is read as absent, and the doctor names it.
@Suite("Store file: sealed records edited with sqlite3 (process)")
struct SealedRecordCommandTests {
    func problems(_ sandbox: Sandbox) async throws -> [[String: Any]] {
        let run = try await sandbox.run(["doctor", "--store", sandbox.store, "--json"])
        run.expect(exit: 1)
        return try run.jsonObject().objects("problems")
    }

    @Test("app_balances set to 1000: consume is refused, the doctor names the row")
    func anEditedBalance() async throws {
        let sandbox = try Sandbox()
        try await sandbox.storefront("buy", Demo.coins).expect(exit: 0)
        try StoreFileTests.sqlite(sandbox.store, "UPDATE app_balances SET balance = 1000")
        let consume = try await sandbox.storefront("consume", Demo.coins)
        consume.expect(exit: 1)
        #expect(consume.stderr.contains("insufficientBalance"), "\(consume)")
        let problem = try #require(try await problems(sandbox).first { $0["check"] as? String == "records" })
        #expect((problem["message"] as? String)?.contains("app_balances (account ") == true, "\(problem)")
        #expect((problem["message"] as? String)?.contains("product_id '\(Demo.coins)'") == true, "\(problem)")
    }

    @Test("grace_until far ahead on a lapsed subscription: no entitlement, the doctor names the subscription")
    func anEditedGracePeriod() async throws {
        let sandbox = try Sandbox()
        let trial = try await sandbox.subscribe(Demo.monthly)
        let originalID = try #require(trial["originalID"] as? Int ?? trial["id"] as? Int, "\(trial)")
        try await sandbox.storefront("settings", "set", "billingIssues", "true").expect(exit: 0)
        try await sandbox.storefront("settings", "set", "gracePeriod", "true").expect(exit: 0)
        try await sandbox.storefront("clock", "advance", "P8D").expect(exit: 0)
        try await sandbox.storefront("clock", "advance", "P16D").expect(exit: 0)
        #expect(try await sandbox.statuses().first?["state"] as? String == "inBillingRetryPeriod")
        func entitlements() async throws -> [[String: Any]] {
            let run = try await sandbox.storefront("entitlements", "--json")
            run.expect(exit: 0)
            return try run.jsonObject().objects("entitlements")
        }
        #expect(try await entitlements().isEmpty, "lapsed")
        try StoreFileTests.sqlite(sandbox.store, "UPDATE subscriptions SET grace_until = 4102444800000")  // 2100
        #expect(try await entitlements().isEmpty, "entitled until 2100 by an edit")
        let problem = try #require(try await problems(sandbox).first { $0["check"] as? String == "records" })
        #expect((problem["message"] as? String)?.contains("subscriptions (account ") == true, "\(problem)")
        #expect(problem["transactionIDs"] as? [Int] == [originalID], "\(problem)")
    }
}
