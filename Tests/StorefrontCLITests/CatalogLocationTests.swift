import Foundation
import Testing

/// A one-product Xcode StoreKit configuration for the `.storekit`-in-this-folder tests.
private let oneProductStoreKit = """
    {
      "identifier" : "1A2B3C4D",
      "nonRenewingSubscriptions" : [],
      "products" : [
        {
          "displayPrice" : "1.99", "familyShareable" : false, "internalID" : "1",
          "localizations" : [ { "description" : "Hides every banner", "displayName" : "Remove Ads", "locale" : "en_US" } ],
          "productID" : "com.example.here.noads", "referenceName" : "Remove Ads", "type" : "NonConsumable"
        }
      ],
      "settings" : { },
      "subscriptionGroups" : [],
      "version" : { "major" : 3, "minor" : 0 }
    }
    """

/// Commands that need no products run without a catalog; a lone `.storekit` here is the catalog.
@Suite struct CatalogLocationTests {
    @Test func historyCommandsRunWithoutACatalogAndNameProductsByID() async throws {
        let sandbox = try Sandbox()
        try await sandbox.storefront("buy", Demo.swiftShopping).expect(exit: 0)
        let none = ["--store", sandbox.store]

        let transactions = try await sandbox.run(none + ["transactions", "--json"])
        transactions.expect(exit: 0)
        let list = try #require(try transactions.jsonObject()["transactions"] as? [[String: Any]], "\(transactions)")
        #expect(list.first?["productID"] as? String == Demo.swiftShopping)
        #expect(!transactions.stdout.contains("unverified"), "the file's own bundle id keeps them verified:\n\(transactions)")
        let id = try #require(list.first?["id"] as? Int)

        for command in [["transactions"], ["settings"], ["accounts"], ["clock"], ["log"], ["notifications"],
                        ["settings", "set", "offline", "true"], ["accounts", "create", "kid@local"], ["key", "export"]] {
            let run = try await sandbox.run(none + command)
            run.expect(exit: 0)
            #expect(!run.stderr.contains("products.json"), "\(command) asked for a catalog:\n\(run)")
        }
        try await sandbox.run(none + ["refund", String(id), "--reason", "developerIssue"]).expect(exit: 0)
        let storefront = try await sandbox.run(none + ["settings", "set", "storefront", "DEU"])
        storefront.expect(exit: 64)
        #expect(storefront.stderr.contains("--catalog"), "\(storefront)")

        // Back with the catalog, the history is intact and still verified: nothing was re-signed for another app.
        let after = try await sandbox.storefront("transactions", "--json")
        after.expect(exit: 0)
        #expect(after.stdout.contains("developerIssue") && !after.stdout.contains("unverified"), "\(after)")
    }

    /// One rule for every command that reads products: without --catalog, in a folder with none,
    /// approve charges the prices of the catalog the store file last ran with (issue 31: the
    /// README's second-terminal recipe exited 66 outside the repository); a store file that never
    /// ran with one still exits 66.
    @Test func askToBuyIsDeclinedWithoutACatalogAndApprovedWithTheStoreFilesLast() async throws {
        let sandbox = try Sandbox()
        let never = try await sandbox.run(["--store", sandbox.path("other.sqlite"), "approve", "5"])
        never.expect(exit: 66)
        #expect(never.stderr.contains("needs the catalog") && never.stderr.contains("--catalog"), "\(never)")
        try await sandbox.storefront("settings", "set", "askToBuy", "true").expect(exit: 0)
        try await sandbox.storefront("buy", Demo.goPro, "--json").expect(exit: 0)
        try await sandbox.storefront("buy", Demo.swiftShopping, "--json").expect(exit: 0)
        let pending = try await sandbox.run(["--store", sandbox.store, "transactions", "--pending", "--json"])
        pending.expect(exit: 0)
        let ids = try #require(try pending.jsonObject()["requests"] as? [[String: Any]]).compactMap { $0["id"] as? Int }
        #expect(ids.count == 2, "\(pending)")

        try await sandbox.run(["--store", sandbox.store, "decline", String(ids[0])]).expect(exit: 0)
        let approve = try await sandbox.run(["--store", sandbox.store, "approve", String(ids[1])])
        approve.expect(exit: 0)
        #expect(approve.stdout.contains("Swift Shopping"), "the catalog's name for it: \(approve)")
    }

    @Test func productsStillNeedTheCatalog() async throws {
        let sandbox = try Sandbox()
        let run = try await sandbox.run(["--store", sandbox.store, "products"])
        run.expect(exit: 66)
        #expect(run.stderr.contains("products.json") && run.stderr.contains(".storekit"), "\(run)")
    }

    @Test func aLoneStoreKitFileHereIsTheCatalog() async throws {
        let sandbox = try Sandbox()
        try sandbox.write("Shop.storekit", oneProductStoreKit)
        let products = try await sandbox.run(["--store", sandbox.store, "products"])
        products.expect(exit: 0)
        #expect(products.stdout.contains("Remove Ads"), "\(products)")
        try await sandbox.run(["--store", sandbox.store, "buy", "com.example.here.noads"]).expect(exit: 0)

        // products.json, when there is one, comes first.
        try FileManager.default.copyItem(atPath: Binary.catalog, toPath: sandbox.path("products.json"))
        let json = try await sandbox.run(["--store", sandbox.store, "products"])
        json.expect(exit: 0)
        #expect(!json.stdout.contains("Remove Ads") && json.stdout.contains("Swift Shopping"), "\(json)")
    }

    @Test func twoStoreKitFilesHereAreNamedNotGuessed() async throws {
        let sandbox = try Sandbox()
        try sandbox.write("Shop.storekit", oneProductStoreKit)
        try sandbox.write("Other.storekit", oneProductStoreKit)
        let run = try await sandbox.run(["--store", sandbox.store, "products"])
        run.expect(exit: 66)
        #expect(run.stderr.contains("Other.storekit, Shop.storekit") && run.stderr.contains("--catalog"), "\(run)")
        // --catalog settles it.
        try await sandbox.run(["--store", sandbox.store, "--catalog", "Shop.storekit", "products"]).expect(exit: 0)
    }
}
