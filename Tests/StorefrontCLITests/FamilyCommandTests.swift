import Foundation
import StoreEngine
import Testing

/// `accounts family …`, `refund-request …` and `offer-keys remove`, through the binary.
@Suite("family, refund-request and offer-keys remove commands", .serialized)
struct FamilyCommandTests {
    /// "pro" and the premium subscription are family-shareable; "coins" is a consumable.
    static let catalog = """
        {
          "storefront": "USA",
          "storefronts": { "USA": { "currency": "USD", "locale": "en_US" } },
          "subscriptionGroups": [
            { "id": "premium", "displayName": "Premium", "subscriptions": [
                { "id": "monthly", "displayName": "Monthly", "price": "4.99", "period": "P1M", "level": 1, "familyShareable": true } ] }
          ],
          "products": [
            { "id": "pro", "type": "nonConsumable", "displayName": "Pro", "price": "0.99", "familyShareable": true },
            { "id": "coins", "type": "consumable", "displayName": "Coins", "price": "0.99" }
          ]
        }
        """

    /// A sandbox with the family catalog; `run` runs the binary on it.
    func setup() throws -> (Sandbox, ([String]) async throws -> RunResult) {
        let sandbox = try Sandbox()
        let catalog = try sandbox.write("family.json", Self.catalog)
        return (sandbox, { try await sandbox.storefront($0, catalog: catalog) })
    }

    func transactions(_ run: ([String]) async throws -> RunResult, _ account: String) async throws -> [[String: Any]] {
        try #require(try await run(["--account", account, "transactions", "--json"]).jsonObject()["transactions"] as? [[String: Any]])
    }

    /// Tester's day, finding 10: `accounts create` and `accounts family create` printed hints without
    /// `--store`, so pasting them switched the tester of (or changed) the default store; a name that needs
    /// escaping came out as `--account bad\e[2Jx\ty`, which the shell does not read back as the name.
    @Test("the hints of accounts create and family create are on this store, the names as the shell reads them back")
    func pasteableHints() async throws {
        let (sandbox, run) = try setup()
        let store = "storefront --store \(ShellWord.word(sandbox.store))"
        let created = try await run(["accounts", "create", "new@local"])
        created.expect(exit: 0)
        #expect(created.stdout.contains("or: \(store) accounts switch new@local"), "\(created)")
        let family = try await run(["--account", "alice", "accounts", "family", "create", "the smiths"])
        family.expect(exit: 0)
        #expect(family.stdout.contains("Add members with: \(store) accounts family add 'the smiths' ACCOUNT"), "\(family)")
        let odd = try await run(["accounts", "create", "bad\u{1B}[2Jx\ty"])
        odd.expect(exit: 0)
        #expect(odd.stdout.contains("--account $'bad\\e[2Jx\\ty'"), "\(odd)")
        #expect(!odd.stdout.contains("\u{1B}"), "no control sequence reaches the terminal")
    }

    @Test("a family: create, add, list, remove; a shared purchase is the member's own familyShared transaction until it leaves")
    func family() async throws {
        let (_, run) = try setup()
        try await run(["--account", "alice", "accounts", "family", "create", "smiths"]).expect(exit: 0)
        let added = try await run(["accounts", "family", "add", "smiths", "bob", "--json"])
        added.expect(exit: 0)
        #expect((try added.jsonObject()["family"] as? [String: Any])?["members"] as? [String] == ["alice", "bob"])
        try await run(["--account", "alice", "buy", "pro"]).expect(exit: 0)
        try await run(["--account", "alice", "buy", "coins"]).expect(exit: 0)

        let bobs = try await transactions(run, "bob")
        #expect(bobs.map { $0["productID"] as? String } == ["pro"], "a consumable is never shared")
        #expect(bobs.first?["ownershipType"] as? String == "familyShared")
        let listed = try await run(["accounts", "family"])
        listed.expect(exit: 0)
        #expect(listed.stdout.contains("smiths") && listed.stdout.contains("alice, bob"))
        let text = try await run(["--account", "bob", "transactions"])
        #expect(text.stdout.contains("familyShared"))
        let products = try await run(["--account", "bob", "products"])
        #expect(products.stdout.split(separator: "\n").contains { $0.hasPrefix("pro ") && $0.contains("Shared by family") },
                "the row's status says where it came from: \(products.stdout)")

        let removed = try await run(["accounts", "family", "remove", "smiths", "bob", "--json"])
        removed.expect(exit: 0)
        let revoked = try #require(try removed.jsonObject()["revoked"] as? [[String: Any]])
        #expect(revoked.map { $0["account"] as? String } == ["bob"])
        #expect(revoked.first?["revocationReason"] as? String == "other")
        #expect((try await run(["--account", "bob", "entitlements", "--json"]).jsonObject()["entitlements"] as? [Any])?.isEmpty == true)

        let unknown = try await run(["accounts", "family", "add", "nobody", "carol"])
        unknown.expect(exit: 1)
        #expect(unknown.stderr.contains("there is no family nobody"))
        try await run(["accounts", "family", "rename", "smiths"]).expect(exit: 64)
        try await run(["accounts", "family", "add", "smiths"]).expect(exit: 64)
    }

    @Test("refund-request: begin as the app, approve and decline as the App Store, duplicateRequest, and the notifications")
    func refundRequests() async throws {
        let (_, run) = try setup()
        let bought = try await run(["buy", "coins", "--json"])
        bought.expect(exit: 0)
        let coins = try #require((try bought.jsonObject()["transaction"] as? [String: Any])?["id"] as? Int)
        let begun = try await run(["refund-request", "begin", String(coins), "--request-reason", "unintendedPurchase", "--json"])
        begun.expect(exit: 0)
        #expect((try begun.jsonObject()["request"] as? [String: Any])?["status"] as? String == "pending")
        let listed = try await run(["refund-request", "--json"]).jsonObject()
        let request = try #require((listed["requests"] as? [[String: Any]])?.first)
        #expect(request["consumptionRequestReason"] as? String == "UNINTENDED_PURCHASE" && request["productID"] as? String == "coins")

        try await run(["refund-request", "approve", String(coins), "--reason", "developerIssue"]).expect(exit: 0)
        let refunded = try await run(["refund-request", "--json"]).jsonObject()["requests"] as? [[String: Any]]
        #expect(refunded?.first?["status"] as? String == "approved")
        let history = try await run(["settings", "set", "includeConsumablesInHistory", "true"])
        history.expect(exit: 0)
        #expect(try await transactions(run, "tester@local").first?["revocationReason"] as? String == "developerIssue")
        let again = try await run(["refund-request", "begin", String(coins), "--json"])
        again.expect(exit: 1)
        #expect(again.stderr.contains("duplicateRequest"))
        #expect((try again.jsonObject()["error"] as? [String: Any])?["name"] as? String == "duplicateRequest")

        try await run(["buy", "pro"]).expect(exit: 0)
        let pro = try #require(try await transactions(run, "tester@local").first?["id"] as? Int)
        try await run(["refund-request", "begin", String(pro)]).expect(exit: 0)
        let declined = try await run(["refund-request", "decline", String(pro)])
        declined.expect(exit: 0)
        #expect(declined.stdout.contains("Declined"))
        try await run(["refund-request", "decline", String(pro)]).expect(exit: 1)  // decided already
        try await run(["settings", "set", "refundRequestOutcome", "approve"]).expect(exit: 0)
        try await run(["buy", "monthly"]).expect(exit: 0)
        let monthly = try #require(try await transactions(run, "tester@local").first?["id"] as? Int)
        let atOnce = try await run(["refund-request", "begin", String(monthly), "--request-reason", "fulfillmentIssue"])
        atOnce.expect(exit: 0)
        #expect(atOnce.stdout.contains("approved at once"))

        let notes = try #require(try await run(["notifications", "--json"]).jsonObject()["notifications"] as? [[String: Any]])
        let types = notes.compactMap { $0["notificationType"] as? String }
        #expect(types.filter { ["CONSUMPTION_REQUEST", "REFUND", "REFUND_DECLINED"].contains($0) }
                == ["CONSUMPTION_REQUEST", "REFUND", "REFUND_DECLINED", "CONSUMPTION_REQUEST", "REFUND"],
                "no CONSUMPTION_REQUEST for the non-consumable")
        try await run(["refund-request", "approve", "x"]).expect(exit: 64)
        try await run(["refund-request", "decline", "1", "--reason", "other"]).expect(exit: 64)
        try await run(["refund-request", "--request-reason", "legal"]).expect(exit: 64)
    }

    @Test("offer-keys remove forgets a key; removing it again, or an unknown one, says so (exit 64)")
    func removeOfferKey() async throws {
        let (_, run) = try setup()
        try await run(["offer-keys", "create", "KEY1"]).expect(exit: 0)
        let removed = try await run(["offer-keys", "remove", "KEY1", "--json"])
        removed.expect(exit: 0)
        #expect(try removed.jsonObject()["removed"] as? String == "KEY1")
        #expect((try await run(["offer-keys", "--json"]).jsonObject()["keys"] as? [Any])?.isEmpty == true)
        let again = try await run(["offer-keys", "remove", "KEY1"])
        again.expect(exit: 64)
        #expect(again.stderr.contains("no offer key KEY1"))
        try await run(["offer-keys", "remove"]).expect(exit: 64)
    }
}
