import Foundation
import Testing

/// `storefront redeem CODE`, on the bundled catalog's offer codes.
@Suite("redeem command")
struct OfferCodeCommandTests {
    @Test("redeem makes a code transaction the app gets as an update; used, unknown and ineligible codes fail")
    func redeem() async throws {
        let sandbox = try Sandbox()
        let run = try await sandbox.storefront("redeem", "free3a", "--json")
        run.expect(exit: 0)
        let transaction = try #require(try run.jsonObject()["transaction"] as? [String: Any])
        #expect(transaction["offerType"] as? String == "code")
        #expect(transaction["offerID"] as? String == "Three months free")
        #expect(transaction["price"] as? String == "0")
        let text = try await sandbox.storefront("redeem", "YEARFREE3")
        text.expect(exit: 1)
        #expect(text.stderr.contains("ineligibleForOffer"), "once per customer")
        let used = try await sandbox.storefront("--account", "other@local", "redeem", "FREE3A")
        used.expect(exit: 1)
        #expect(used.stderr.contains("ineligibleForOffer") && used.stderr.contains("redeemed already"))
        let unknown = try await sandbox.storefront("redeem", "NOSUCHCODE", "--json")
        unknown.expect(exit: 1)
        #expect((try unknown.jsonObject()["error"] as? [String: Any])?["name"] as? String == "invalidOfferIdentifier")
        // A current subscriber is not among the offer's eligible customers (new, expired).
        try await sandbox.storefront("--account", "sub@local", "buy", "barcode_month_subscription").expect(exit: 0)
        let existing = try await sandbox.storefront("--account", "sub@local", "redeem", "YEARFREE3")
        existing.expect(exit: 1)
        #expect(existing.stderr.contains("ineligibleForOffer"))
        // The redeeming account's app delivers it at its next start, as an update.
        let products = try await sandbox.storefront("entitlements", "--json").jsonObject()
        #expect((products["entitlements"] as? [[String: Any]])?.first?["productID"] as? String == "barcode_year_subscription")
        try await sandbox.storefront("redeem").expect(exit: 64)
    }
}
