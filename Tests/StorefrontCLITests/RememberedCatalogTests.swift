import Foundation
@testable import StorefrontCLI
import Testing

/// The one catalog rule for every command that reads products: the catalog named, else the one
/// this store file last ran with (approve and resolve in another folder, as decline runs).
@Suite("Catalog location: the one this store file last ran with (process)")
struct RememberedCatalogTests {
    /// The id of the account's one pending request, as `transactions --pending --json` lists it.
    func pendingID(_ sandbox: Sandbox) async throws -> Int {
        let run = try await sandbox.storefront("transactions", "--pending", "--json")
        run.expect(exit: 0)
        let requests = try run.jsonObject().objects("requests")
        return try #require(requests.first?["id"] as? Int, "no pending request:\n\(run)")
    }

    @Test("approve and resolve in a folder with no catalog use the one this store file last ran with, as decline runs")
    func approveAndResolveAnywhere() async throws {
        let sandbox = try Sandbox()
        // The paywall's terminal: the repository's catalog (named here), Ask to Buy on, a purchase pending.
        try await sandbox.storefront("settings", "set", "askToBuy", "true").expect(exit: 0)
        try await sandbox.storefront("buy", "com.razeware.razefaces.iphonerage").expect(exit: 0)
        let asked = try await pendingID(sandbox)
        // A second terminal, in a folder with no products.json: no --catalog.
        #expect(!FileManager.default.fileExists(atPath: sandbox.path("products.json")))
        let approve = try await sandbox.run(["--store", sandbox.store, "approve", String(asked)])
        approve.expect(exit: 0)
        #expect(approve.stdout.contains("Approved"), "\(approve)")

        try await sandbox.storefront("settings", "set", "askToBuy", "false").expect(exit: 0)
        try await sandbox.storefront("settings", "set", "interruptedPurchases", "true").expect(exit: 0)
        try await sandbox.storefront("buy", "com.razeware.razefaces.nightlyrage").expect(exit: 0)
        let interrupted = try await pendingID(sandbox)
        let resolve = try await sandbox.run(["--store", sandbox.store, "resolve", String(interrupted)])
        resolve.expect(exit: 0)
        #expect(resolve.stdout.contains("Resolved"), "\(resolve)")
    }

    @Test("a store file that never ran with a catalog still says how to give one (66)")
    func noCatalogEver() async throws {
        let sandbox = try Sandbox()
        let run = try await sandbox.run(["--store", sandbox.store, "approve", "5"])
        run.expect(exit: 66)
        #expect(run.stderr.contains("else the one this store file last ran with"), "\(run)")
    }

    @Test("a catalog named with --catalog wins over the one remembered")
    func namedWins() async throws {
        let sandbox = try Sandbox()
        try await sandbox.storefront("products").expect(exit: 0)
        let other = try sandbox.write("one.json", """
            {"products": [{"id": "only.one", "type": "nonConsumable", "displayName": "Only One", "price": "1.99"}]}
            """)
        let named = try await sandbox.storefront(["products", "--json"], catalog: other)
        named.expect(exit: 0)
        #expect(named.stdout.contains("only.one") && !named.stdout.contains("iphonerage"), "\(named)")
        // And it is the one remembered now.
        let remembered = try await sandbox.run(["--store", sandbox.store, "products", "--json"])
        remembered.expect(exit: 0)
        #expect(remembered.stdout.contains("only.one"), "\(remembered)")
    }
}
