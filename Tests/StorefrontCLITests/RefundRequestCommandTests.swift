import Foundation
import StoreEngine
import Testing

/// `refund-request`: a request the app made is said by `products` and `transactions` in the
/// words the paywall and the Transaction Manager use, until the App Store decides.
@Suite("refund-request command")
struct RefundRequestCommandTests {
    @Test("a refund requested: products says Owned · Refund requested, transactions says refund requested; declined, the same")
    func requestedIsSaidEverywhere() async throws {
        let sandbox = try Sandbox()
        let product = "com.razeware.razefaces.swiftshopping"
        let bought = try await sandbox.storefront("buy", product, "--json").jsonObject()
        let id = try #require(((bought["transaction"] as? [String: Any])?["id"] as? NSNumber)?.stringValue, "\(bought)")
        let begun = try await sandbox.storefront("refund-request", "begin", id)
        begun.expect(exit: 0)
        // The line to paste decides it on this store, not the default one.
        let decide = "storefront --store \(ShellWord.word(sandbox.store)) refund-request"
        #expect(begun.stdout.contains("\(decide) approve \(id), or \(decide) decline \(id)"), "\(begun.stdout)")

        let products = try await sandbox.storefront("products", "--json").jsonObject()
        let row = try #require((products["products"] as? [[String: Any]])?.first { $0["id"] as? String == product })
        #expect(row["status"] as? String == "Owned · Refund requested", "\(row)")
        let listed = try await sandbox.storefront("transactions", "--json").jsonObject()
        let transaction = try #require((listed["transactions"] as? [[String: Any]])?.first { ($0["id"] as? NSNumber)?.stringValue == id })
        #expect(transaction["state"] as? String == "refund requested", "\(transaction)")
        let text = try await sandbox.storefront("transactions")
        #expect(text.stdout.split(separator: "\n").contains { $0.hasPrefix(id) && $0.contains("refund requested") }, "\(text)")

        try await sandbox.storefront("refund-request", "decline", id).expect(exit: 0)
        let after = try await sandbox.storefront("transactions", "--json").jsonObject()
        let declined = try #require((after["transactions"] as? [[String: Any]])?.first { ($0["id"] as? NSNumber)?.stringValue == id })
        #expect(declined["state"] as? String == "refund declined", "\(declined)")
    }
}
