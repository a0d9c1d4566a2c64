import Foundation
import Testing

/// A small Xcode StoreKit configuration (version 3's shape), written for these tests.
private let storeKitFile = """
    {
      "identifier" : "5E6F7A8B",
      "nonRenewingSubscriptions" : [],
      "products" : [
        {
          "displayPrice" : "1.99",
          "familyShareable" : false,
          "internalID" : "1",
          "localizations" : [
            { "description" : "Hides every banner", "displayName" : "Remove Ads", "locale" : "en_US" },
            { "description" : "Keine Banner mehr", "displayName" : "Werbefrei", "locale" : "de" }
          ],
          "productID" : "com.example.cli.noads",
          "referenceName" : "Remove Ads",
          "type" : "NonConsumable"
        },
        {
          "displayPrice" : "0.99",
          "familyShareable" : false,
          "internalID" : "2",
          "localizations" : [ { "description" : "Fifty gems", "displayName" : "Gems", "locale" : "en_US" } ],
          "productID" : "com.example.cli.gems",
          "referenceName" : "Gems",
          "type" : "Consumable"
        }
      ],
      "settings" : { "_storefront" : "USA", "_locale" : "en_US", "_askToBuyEnabled" : true, "_timeRate" : 0 },
      "subscriptionGroups" : [
        {
          "id" : "777",
          "localizations" : [],
          "name" : "Pro",
          "subscriptions" : [
            {
              "adHocOffers" : [ { "displayPrice" : "2.49", "numberOfPeriods" : 1, "offerID" : "pro.promo",
                                  "paymentMode" : "payAsYouGo", "referenceName" : "Promo", "subscriptionPeriod" : "P1M" } ],
              "codeOffers" : [],
              "displayPrice" : "4.99",
              "familyShareable" : true,
              "groupNumber" : 1,
              "internalID" : "3",
              "introductoryOffer" : { "paymentMode" : "free", "subscriptionPeriod" : "P1W" },
              "localizations" : [ { "description" : "Pro, monthly", "displayName" : "Pro Monthly", "locale" : "en_US" } ],
              "productID" : "com.example.cli.pro.monthly",
              "recurringSubscriptionPeriod" : "P1M",
              "referenceName" : "Pro Monthly",
              "subscriptionGroupID" : "777",
              "type" : "RecurringSubscription",
              "winbackOffers" : []
            }
          ]
        }
      ],
      "version" : { "major" : 3, "minor" : 0 }
    }
    """

/// `catalog check`, `catalog convert` and `--catalog FILE.storekit`, run as separate processes.
@Suite("catalog commands and .storekit files (process)")
struct CatalogCommandTests {
    @Test func productsReadsAStoreKitFile() async throws {
        let sandbox = try Sandbox()
        let file = try sandbox.write("Products.storekit", storeKitFile)
        let run = try await sandbox.storefront(["products", "--json"], catalog: file)
        run.expect(exit: 0)
        let document = try run.jsonObject()
        #expect((document["storefront"] as? [String: Any])?["countryCode"] as? String == "USA")
        let products = document.objects("products")
        #expect(products.map { $0["id"] as? String } == ["com.example.cli.pro.monthly", "com.example.cli.noads",
                                                          "com.example.cli.gems"])
        let noAds = try #require(products.first("id", "com.example.cli.noads"))
        #expect(noAds["type"] as? String == "nonConsumable")
        #expect(noAds["displayName"] as? String == "Remove Ads")
        #expect(noAds["price"] as? String == "1.99")
        #expect(noAds["displayPrice"] as? String == "$1.99")
        let monthly = try #require(products.first("id", "com.example.cli.pro.monthly"))
        #expect(monthly["isFamilyShareable"] as? Bool == true)
        let subscription = try #require(monthly["subscription"] as? [String: Any])
        #expect(subscription["subscriptionGroupID"] as? String == "777")
        #expect(subscription["groupDisplayName"] as? String == "Pro")
        #expect(subscription["subscriptionPeriod"] as? String == "P1M")
        #expect((subscription["introductoryOffer"] as? [String: Any])?["paymentMode"] as? String == "freeTrial")

        // Another storefront: its locale's text, the file's price in the file's currency.
        try await sandbox.storefront(["settings", "set", "storefront", "DEU"], catalog: file).expect(exit: 0)
        let german = try await sandbox.storefront(["products", "--json"], catalog: file)
        german.expect(exit: 0)
        let werbefrei = try #require(try german.jsonObject().objects("products").first("id", "com.example.cli.noads"))
        #expect(werbefrei["displayName"] as? String == "Werbefrei")
        #expect(werbefrei["currencyCode"] as? String == "USD")

        // And a purchase works against it.
        try await sandbox.storefront(["buy", "com.example.cli.noads"], catalog: file).expect(exit: 0)
    }

    @Test func checkSummarizesAGoodFile() async throws {
        let sandbox = try Sandbox()
        let file = try sandbox.write("Products.storekit", storeKitFile)
        let run = try await sandbox.run(["catalog", "check", file])
        run.expect(exit: 0)
        #expect(run.stdout.contains("valid Xcode StoreKit configuration"), "\(run)")
        #expect(run.stdout.contains("version 3.0"))
        #expect(run.stdout.contains("Products: 3 — 1 consumable, 1 non-consumable, 0 non-renewing, 1 auto-renewable"), "\(run)")
        #expect(run.stdout.contains("Subscription groups: 1 — Pro (777, 1 subscription)"), "\(run)")
        #expect(run.stdout.contains("1 introductory, 1 promotional, 0 code, 0 winBack"), "\(run)")
        #expect(run.stdout.contains("Locales: de, en_US"), "\(run)")
        #expect(run.stdout.contains("Storefront: USA (USD, en_US)"), "\(run)")
        #expect(run.stdout.contains("askToBuyEnabled=true"), "\(run)")
        // No store file is made for it.
        #expect(!FileManager.default.fileExists(atPath: sandbox.home + "/.local/state/storefront/store.sqlite"))

        let json = try await sandbox.run(["catalog", "check", file, "--json"])
        json.expect(exit: 0)
        let document = try json.jsonObject()
        #expect(document["valid"] as? Bool == true)
        #expect(document["format"] as? String == "storekit")
        #expect(document["version"] as? String == "3.0")
        let counts = try #require(document["products"] as? [String: Any])
        #expect(counts["total"] as? Int == 3)
        #expect(counts["autoRenewable"] as? Int == 1)
        #expect((document["offers"] as? [String: Any])?["promotional"] as? Int == 1)
        #expect(document["locales"] as? [String] == ["de", "en_US"])
        #expect(document["storefront"] as? String == "USA")
        #expect((document["startingSettings"] as? [String: Any])?["timeRate"] as? String == "0")

        // products.json too.
        let bundled = try await sandbox.run(["catalog", "check", Binary.catalog, "--json"])
        bundled.expect(exit: 0)
        #expect(try bundled.jsonObject()["format"] as? String == "products.json")
    }

    @Test func checkRefusesBadFilesWithThePlaceAndExitCode() async throws {
        let sandbox = try Sandbox()
        let badPrice = try sandbox.write("BadPrice.storekit", storeKitFile.replacingOccurrences(of: "\"0.99\"", with: "\"0,99\""))
        let run = try await sandbox.run(["catalog", "check", badPrice])
        run.expect(exit: 65)
        #expect(run.stdout.isEmpty, "\(run)")
        #expect(run.stderr.contains("BadPrice.storekit: products[1].displayPrice: \"0,99\" is not a decimal price"), "\(run)")

        let json = try await sandbox.run(["catalog", "check", badPrice, "--json"])
        json.expect(exit: 65)
        let document = try json.jsonObject()
        #expect(document["valid"] as? Bool == false)
        #expect(document["path"] as? String == "products[1].displayPrice")

        let broken = try sandbox.write("Broken.storekit", "{\n  \"products\" : [\n    {\n  ]\n}\n")
        let malformed = try await sandbox.run(["catalog", "check", broken])
        malformed.expect(exit: 65)
        #expect(malformed.stderr.contains("Broken.storekit:4:3: malformed JSON"), "\(malformed)")

        let unknownType = try sandbox.write("Type.storekit", storeKitFile.replacingOccurrences(of: "\"Consumable\"", with: "\"Consumables\""))
        let typed = try await sandbox.run(["catalog", "check", unknownType])
        typed.expect(exit: 65)
        #expect(typed.stderr.contains("products[1].type: unknown product type \"Consumables\""), "\(typed)")

        // The same rules apply with --catalog.
        let products = try await sandbox.storefront(["products"], catalog: unknownType)
        products.expect(exit: 65)

        let missing = try await sandbox.run(["catalog", "check", sandbox.path("Nowhere.storekit")])
        missing.expect(exit: 66)
        #expect(missing.stderr.contains("no such file"), "\(missing)")
    }

    @Test func convertPrintsProductsJSONThatLoadsBack() async throws {
        let sandbox = try Sandbox()
        let file = try sandbox.write("Products.storekit", storeKitFile)
        let run = try await sandbox.run(["catalog", "convert", file])
        run.expect(exit: 0)
        let document = try run.jsonObject()
        #expect(document["storefront"] as? String == "USA")
        let products = document.objects("products")
        #expect(products.first("id", "com.example.cli.noads")?["price"] as? String == "1.99")
        let groups = document.objects("subscriptionGroups")
        #expect(groups.first?["id"] as? String == "777")
        let monthly = try #require(groups.first?.objects("subscriptions").first)
        #expect(monthly["period"] as? String == "P1M")
        #expect(monthly.objects("offers").first?["id"] as? String == "pro.promo")

        let converted = try sandbox.write("converted.json", run.stdoutBytes)
        let check = try await sandbox.run(["catalog", "check", converted, "--json"])
        check.expect(exit: 0)
        #expect(try check.jsonObject()["format"] as? String == "products.json")

        // The converted file and the .storekit show the same products.
        let fromStoreKit = try await sandbox.storefront(["products", "--json"], catalog: file)
        let fromConverted = try await sandbox.storefront(["products", "--json"], catalog: converted)
        fromConverted.expect(exit: 0)
        #expect(fromStoreKit.stdout == fromConverted.stdout)

        let missing = try await sandbox.run(["catalog", "convert", sandbox.path("none.storekit")])
        missing.expect(exit: 66)
    }

    @Test(arguments: [["catalog"], ["catalog", "check"], ["catalog", "inspect", "x"], ["catalog", "check", "a", "b"]])
    func usageErrors(arguments: [String]) async throws {
        let sandbox = try Sandbox()
        let run = try await sandbox.run(arguments)
        run.expect(exit: 64)
        #expect(run.stderr.contains("catalog"), "\(run)")
    }

    @Test func helpDescribesTheCatalogCommand() async throws {
        let sandbox = try Sandbox()
        let run = try await sandbox.run(["catalog", "--help"])
        run.expect(exit: 0)
        #expect(run.stdout.contains("catalog check FILE"))
        #expect(run.stdout.contains("convert"))
        let overview = try await sandbox.run(["--help"])
        #expect(overview.stdout.contains("catalog"))
    }
}
