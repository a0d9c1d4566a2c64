import Foundation
import StoreEngine
@testable import StorefrontCLI
import Testing

/// The one catalog rule for every command that reads products: the catalog named, else the one
/// this store file last ran with, kept in the store (approve and resolve in another folder, as decline runs).
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

    /// The `catalog.path` row the store keeps.
    func rememberedCatalog(_ sandbox: Sandbox) throws -> String? {
        try Ledger(path: sandbox.store).setting("catalog.path", account: "")
    }

    @Test("the catalog is kept in the store, not in a file beside it")
    func keptInTheStore() async throws {
        let sandbox = try Sandbox()
        try await sandbox.storefront("products").expect(exit: 0)
        #expect(!FileManager.default.fileExists(atPath: sandbox.store + ".catalog"), "a side file was written")
        #expect(try rememberedCatalog(sandbox) == (Binary.catalog as NSString).standardizingPath)
        let anywhere = try await sandbox.run(["--store", sandbox.store, "products", "--json"])
        anywhere.expect(exit: 0)
        #expect(anywhere.stdout.contains("iphonerage"), "\(anywhere)")
    }

    @Test("an old store with only the side file still opens with its catalog, recorded in the store now; the side file stays")
    func anOldStoresSideFile() async throws {
        let sandbox = try Sandbox()
        // An old store: made without a catalog, its catalog named beside it as earlier versions kept it.
        try await sandbox.run(["--store", sandbox.store, "settings"]).expect(exit: 0)
        let side = try sandbox.write("store.sqlite.catalog", Binary.catalog + "\n")
        #expect(side == sandbox.store + ".catalog")
        let products = try await sandbox.run(["--store", sandbox.store, "products", "--json"])
        products.expect(exit: 0)
        #expect(products.stdout.contains("iphonerage"), "\(products)")
        #expect(try rememberedCatalog(sandbox) == Binary.catalog)
        #expect(FileManager.default.fileExists(atPath: side), "a user's file is never deleted silently")
    }

    @Test("a remembered catalog that is gone says what to do (66); one that is malformed is named (65)")
    func goneOrMalformed() async throws {
        let sandbox = try Sandbox()
        let catalog = try sandbox.write("shop.json", try String(contentsOfFile: Binary.catalog, encoding: .utf8))
        try await sandbox.storefront(["products"], catalog: catalog).expect(exit: 0)
        _ = try sandbox.write("shop.json", "{ \"products\": [")
        let malformed = try await sandbox.run(["--store", sandbox.store, "products"])
        malformed.expect(exit: 65)
        #expect(malformed.stderr.contains(catalog), "\(malformed)")
        try FileManager.default.removeItem(atPath: catalog)
        let gone = try await sandbox.run(["--store", sandbox.store, "products"])
        gone.expect(exit: 66)
        #expect(gone.stderr.contains(catalog) && gone.stderr.contains("is gone") && gone.stderr.contains("--catalog"), "\(gone)")
    }
}
