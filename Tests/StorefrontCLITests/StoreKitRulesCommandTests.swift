import Foundation
import Testing

/// StoreKit's rules where Storefront used to differ (issue 14), as the CLI shows them.
@Suite("CLI: StoreKit's rules")
struct StoreKitRulesCommandTests {
    @Test("transactions is Transaction.all: no requests; transactions --pending lists them, as requests")
    func pendingRequestsAreNotTransactions() async throws {
        let sandbox = try Sandbox()
        try await sandbox.storefront("buy", Demo.swiftShopping).expect(exit: 0)
        try await sandbox.storefront("settings", "set", "askToBuy", "true").expect(exit: 0)
        let buy = try await sandbox.storefront("buy", Demo.goPro, "--json")
        buy.expect(exit: 0)
        let request = try #require(try buy.jsonObject()["request"] as? [String: Any])
        let id = try #require(request["id"] as? Int)

        let all = try await sandbox.storefront("transactions", "--json")
        all.expect(exit: 0)
        let listed = try all.jsonObject().objects("transactions")
        #expect(listed.map { $0["productID"] as? String } == [Demo.swiftShopping])
        #expect(!listed.contains { $0["status"] as? String == "pending" })
        let text = try await sandbox.storefront("transactions")
        #expect(text.stdout.contains("1 request pending"), "\(text)")
        #expect(text.stdout.contains("transactions --pending"), "\(text)")

        let pending = try await sandbox.storefront("transactions", "--pending", "--json")
        pending.expect(exit: 0)
        let requests = try pending.jsonObject().objects("requests")
        #expect(requests.map { $0["id"] as? Int } == [id])
        #expect(requests.first?["reason"] as? String == "askToBuy")
        #expect(requests.first?["productID"] as? String == Demo.goPro)
        let table = try await sandbox.storefront("transactions", "--pending")
        #expect(table.stdout.contains("storefront --store \(sandbox.store) approve \(id)"), "\(table)")

        // Approved, it is a transaction.
        try await sandbox.storefront("approve", String(id)).expect(exit: 0)
        #expect(try await sandbox.storefront("transactions", "--pending", "--json").jsonObject().objects("requests").isEmpty)
        let after = try await sandbox.storefront("transactions", "--json").jsonObject().objects("transactions")
        #expect(after.first?["id"] as? Int == id)
        #expect(after.first?["status"] as? String == "purchased")
    }

    @Test("a refund reaches the app: the next app command delivers the revocation, once")
    func refundReachesTheApp() async throws {
        let sandbox = try Sandbox()
        let buy = try await sandbox.storefront("buy", Demo.swiftShopping, "--json")
        let id = try #require(try buy.jsonObject()["transaction"] as? [String: Any])["id"] as? Int
        try await sandbox.storefront("refund", String(try #require(id))).expect(exit: 0)

        let products = try await sandbox.storefront("products")
        products.expect(exit: 0)
        #expect(products.stderr.contains("transaction \(id!) (\(Demo.swiftShopping)) was refunded"), "\(products)")
        #expect(products.stderr.contains("arrived as an update"), "\(products)")
        let again = try await sandbox.storefront("products")
        #expect(!again.stderr.contains("refunded"), "delivered once: \(again)")
        let row = try #require(again.stdout.split(separator: "\n").first { $0.contains("Swift Shopping") })
        #expect(!row.contains("Owned"))
    }

    @Test("a non-renewing subscription: no expirationDate; the products table shows the app's own count")
    func nonRenewingSubscription() async throws {
        let sandbox = try Sandbox()
        let buy = try await sandbox.storefront("buy", Demo.seasonPass, "--json")
        buy.expect(exit: 0)
        let transaction = try #require(try buy.jsonObject()["transaction"] as? [String: Any])
        #expect(transaction["expirationDate"] == nil)
        try await sandbox.storefront("clock", "advance", "P1Y").expect(exit: 0)
        let entitlements = try await sandbox.storefront("entitlements", "--json").jsonObject().objects("entitlements")
        #expect(entitlements.map { $0["productID"] as? String } == [Demo.seasonPass])
        let table = try await sandbox.storefront("products")
        let row = try #require(table.stdout.split(separator: "\n").first { $0.contains("Season Pass") }, "\(table)")
        #expect(row.contains("Bought ") && row.contains("(app's count)"), "\(row)")
    }

    @Test("a promotional offer bought while subscribed to the same plan is scheduled for the renewal")
    func promotionalOfferWhileSubscribed() async throws {
        let sandbox = try Sandbox()
        try await sandbox.storefront("buy", Demo.yearly).expect(exit: 0)
        try await sandbox.storefront("offer-keys", "create").expect(exit: 0)
        let signature = try await sandbox.storefront("offer", "sign", Demo.yearly, "annual_comeback").stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let buy = try await sandbox.storefront("buy", Demo.yearly, "--offer", "annual_comeback", "--signature", signature, "--json")
        buy.expect(exit: 0)
        let json = try buy.jsonObject()
        #expect(json["outcome"] as? String == "changeScheduled")
        let change = try #require(json["change"] as? [String: Any])
        #expect(change["kind"] as? String == "promotionalOffer")
        #expect(change["offerID"] as? String == "annual_comeback")
        let info = try #require(try await sandbox.storefront("status", "--json").jsonObject().objects("statuses").first?["renewalInfo"]
                                as? [String: Any])
        #expect(info["offerType"] as? String == "promotional")
        #expect(info["offerID"] as? String == "annual_comeback")
        #expect(info["renewalPrice"] as? String == "29.99")
    }
}
