import Foundation
import Testing
@testable import StoreCatalog

// Small Xcode StoreKit configuration files written for these tests, one per
// version's shape (not copied from anywhere).

/// Version 1's shape: non-renewing subscriptions in their own top-level list, no settings.
private let storeKitV1 = """
    {
      "identifier" : "0A1B2C3D",
      "nonRenewingSubscriptions" : [
        {
          "displayPrice" : "14.99",
          "familyShareable" : false,
          "internalID" : "100",
          "localizations" : [
            { "description" : "A whole season", "displayName" : "Season Pass", "locale" : "en_US" }
          ],
          "productID" : "com.example.season",
          "referenceName" : "Season Pass",
          "type" : "NonRenewingSubscription"
        }
      ],
      "products" : [
        {
          "displayPrice" : "0.99",
          "familyShareable" : false,
          "internalID" : "101",
          "localizations" : [
            { "description" : "Ten coins", "displayName" : "Coins", "locale" : "en_US" }
          ],
          "productID" : "com.example.coins",
          "referenceName" : "Coins",
          "type" : "Consumable"
        },
        {
          "displayPrice" : "2.99",
          "familyShareable" : true,
          "internalID" : "102",
          "localizations" : [],
          "productID" : "com.example.pro",
          "referenceName" : "Pro Unlock",
          "type" : "NonConsumable"
        }
      ],
      "subscriptionGroups" : [
        {
          "id" : "20000001",
          "localizations" : [],
          "name" : "Plus",
          "subscriptions" : [
            {
              "displayPrice" : "3.99",
              "familyShareable" : false,
              "groupNumber" : 1,
              "internalID" : "103",
              "introductoryOffer" : null,
              "localizations" : [
                { "description" : "Every month", "displayName" : "Plus Monthly", "locale" : "en_US" }
              ],
              "productID" : "com.example.plus.monthly",
              "recurringSubscriptionPeriod" : "P1M",
              "referenceName" : "Plus Monthly",
              "subscriptionGroupID" : "20000001",
              "type" : "RecurringSubscription"
            }
          ]
        }
      ],
      "version" : { "major" : 1, "minor" : 1 }
    }
    """

/// Version 2's shape: non-renewing subscriptions among the products, several localizations.
private let storeKitV2 = """
    {
      "identifier" : "1B2C3D4E",
      "nonRenewingSubscriptions" : [],
      "products" : [
        {
          "displayPrice" : "1.99",
          "familyShareable" : false,
          "internalID" : "200",
          "localizations" : [
            { "description" : "Removes ads", "displayName" : "No Ads", "locale" : "en_US" },
            { "description" : "Keine Werbung mehr", "displayName" : "Werbefrei", "locale" : "de" },
            { "description" : "Plus de publicité", "displayName" : "Sans pub", "locale" : "fr_CA" },
            { "description" : "", "displayName" : "", "locale" : "it_IT" }
          ],
          "productID" : "com.example.noads",
          "referenceName" : "No Ads",
          "type" : "NonConsumable"
        },
        {
          "displayPrice" : "4.99",
          "familyShareable" : false,
          "internalID" : "201",
          "localizations" : [
            { "description" : "Three months of maps", "displayName" : "Map Pass", "locale" : "en_US" }
          ],
          "productID" : "com.example.maps",
          "referenceName" : "Map Pass",
          "type" : "NonRenewingSubscription"
        }
      ],
      "settings" : {},
      "subscriptionGroups" : [],
      "version" : { "major" : 2, "minor" : 0 }
    }
    """

/// Version 3's shape: settings, introductory offers of every payment mode, promotional and code offers.
private let storeKitV3 = """
    {
      "identifier" : "2C3D4E5F",
      "nonRenewingSubscriptions" : [],
      "products" : [
        {
          "displayPrice" : "0.49",
          "familyShareable" : false,
          "internalID" : "300",
          "localizations" : [
            { "description" : "A hint", "displayName" : "Hint", "locale" : "en_GB" }
          ],
          "productID" : "com.example.hint",
          "referenceName" : "Hint",
          "type" : "Consumable"
        }
      ],
      "settings" : {
        "_applicationInternalID" : "1234567890",
        "_askToBuyEnabled" : true,
        "_billingGracePeriodEnabled" : false,
        "_billingIssuesEnabled" : true,
        "_developerTeamID" : "ABCDE12345",
        "_disableDialogs" : false,
        "_failTransactionsEnabled" : true,
        "_lastSynchronizedDate" : 700000000.5,
        "_locale" : "en_GB",
        "_storefront" : "GBR",
        "_storeKitErrors" : [
          { "current" : null, "enabled" : false, "name" : "Load Products" },
          { "current" : { "index" : 2, "type" : "generic" }, "enabled" : true, "name" : "Purchase" }
        ],
        "_timeRate" : 3
      },
      "subscriptionGroups" : [
        {
          "id" : "30000001",
          "localizations" : [ { "description" : "", "displayName" : "Gold", "locale" : "en_GB" } ],
          "name" : "Gold",
          "subscriptions" : [
            {
              "adHocOffers" : [
                {
                  "displayPrice" : "1.49",
                  "internalID" : "310",
                  "numberOfPeriods" : 2,
                  "offerID" : "comeback.two.months",
                  "paymentMode" : "payAsYouGo",
                  "referenceName" : "Come back",
                  "subscriptionPeriod" : "P1M"
                }
              ],
              "codeOffers" : [
                {
                  "displayPrice" : "0.00",
                  "eligibility" : [ "new", "expired" ],
                  "internalID" : "311",
                  "isStackable" : true,
                  "paymentMode" : "free",
                  "referenceName" : "Press code",
                  "subscriptionPeriod" : "P1M"
                }
              ],
              "displayPrice" : "5.99",
              "familyShareable" : true,
              "groupNumber" : 2,
              "internalID" : "301",
              "introductoryOffer" : {
                "internalID" : "312",
                "paymentMode" : "free",
                "subscriptionPeriod" : "P1W"
              },
              "localizations" : [
                { "description" : "Gold, monthly", "displayName" : "Gold Monthly", "locale" : "en_GB" }
              ],
              "productID" : "com.example.gold.monthly",
              "recurringSubscriptionPeriod" : "P1M",
              "referenceName" : "Gold Monthly",
              "subscriptionGroupID" : "30000001",
              "type" : "RecurringSubscription"
            },
            {
              "adHocOffers" : [],
              "codeOffers" : [],
              "displayPrice" : "49.99",
              "familyShareable" : false,
              "groupNumber" : 1,
              "internalID" : "302",
              "introductoryOffer" : {
                "displayPrice" : "0.99",
                "internalID" : "313",
                "numberOfPeriods" : 3,
                "paymentMode" : "payAsYouGo",
                "subscriptionPeriod" : "P1M"
              },
              "localizations" : [
                { "description" : "Gold, yearly", "displayName" : "Gold Yearly", "locale" : "en_GB" }
              ],
              "productID" : "com.example.gold.yearly",
              "recurringSubscriptionPeriod" : "P1Y",
              "referenceName" : "Gold Yearly",
              "subscriptionGroupID" : "30000001",
              "type" : "RecurringSubscription"
            },
            {
              "adHocOffers" : [],
              "codeOffers" : [],
              "displayPrice" : "14.99",
              "familyShareable" : false,
              "groupNumber" : 3,
              "internalID" : "303",
              "introductoryOffer" : {
                "displayPrice" : "9.99",
                "internalID" : "314",
                "numberOfPeriods" : 1,
                "paymentMode" : "payUpFront",
                "subscriptionPeriod" : "P3M"
              },
              "localizations" : [
                { "description" : "Gold, quarterly", "displayName" : "Gold Quarterly", "locale" : "en_GB" }
              ],
              "productID" : "com.example.gold.quarterly",
              "recurringSubscriptionPeriod" : "P3M",
              "referenceName" : "Gold Quarterly",
              "subscriptionGroupID" : "30000001",
              "type" : "RecurringSubscription"
            }
          ]
        }
      ],
      "version" : { "major" : 3, "minor" : 0 }
    }
    """

/// Version 4's shape: win-back offers, app policies and other keys this reader does not know.
private let storeKitV4 = """
    {
      "appPolicies" : { "eula" : "", "policies" : [ { "locale" : "en_US", "policyText" : "", "policyURL" : "" } ] },
      "identifier" : "3D4E5F60",
      "nonRenewingSubscriptions" : [],
      "products" : [],
      "settings" : {
        "_compatibilityTimeRate" : { "3" : 6 },
        "_storefront" : "JPN",
        "_timeRate" : 0,
        "_someFutureSwitch" : true
      },
      "subscriptionGroups" : [
        {
          "id" : "40000001",
          "localizations" : [],
          "name" : "Club",
          "subscriptions" : [
            {
              "adHocOffers" : [],
              "codeOffers" : [],
              "displayPrice" : "800",
              "familyShareable" : false,
              "groupNumber" : 1,
              "internalID" : "401",
              "introductoryOffer" : null,
              "localizations" : [
                { "description" : "毎月", "displayName" : "クラブ", "locale" : "ja" },
                { "description" : "Monthly", "displayName" : "Club", "locale" : "en_US" }
              ],
              "productID" : "com.example.club",
              "recurringSubscriptionPeriod" : "P1M",
              "referenceName" : "Club",
              "subscriptionGroupID" : "40000001",
              "type" : "RecurringSubscription",
              "winbackOffers" : [
                {
                  "displayPrice" : "400",
                  "internalID" : "402",
                  "numberOfPeriods" : 2,
                  "offerID" : "club.winback",
                  "paymentMode" : "payAsYouGo",
                  "referenceName" : "Win back",
                  "subscriptionPeriod" : "P1M",
                  "someNewField" : { "nested" : [ 1, 2 ] }
                }
              ],
              "someNewSubscriptionField" : "ignored"
            }
          ]
        }
      ],
      "someNewTopLevelField" : [ "ignored" ],
      "version" : { "major" : 4, "minor" : 0 }
    }
    """

private func load(_ text: String, file: String = "Products.storekit") throws -> Catalog {
    try Catalog.parse(Array(text.utf8), file: file)
}

/// The error a text gives; fails the test when it loads.
private func loadError(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) -> CatalogError? {
    do {
        _ = try Catalog.parse(Array(text.utf8), file: "Bad.storekit")
        Issue.record("expected a CatalogError, the file loaded", sourceLocation: sourceLocation)
        return nil
    } catch {
        return error
    }
}

/// Checks a text is refused as invalid at `path`, the reason containing every one of `words`.
private func expectInvalid(_ text: String, at path: String, saying words: [String],
                           sourceLocation: SourceLocation = #_sourceLocation) {
    guard let error = loadError(text, sourceLocation: sourceLocation) else { return }
    #expect(error.kind == .invalid(path: path), "\(error)", sourceLocation: sourceLocation)
    for word in words {
        #expect(error.reason.contains(word), "reason: \(error.reason)", sourceLocation: sourceLocation)
    }
    #expect(error.description == "Bad.storekit: \(path): \(error.reason)", sourceLocation: sourceLocation)
}

/// A version 3 file with `products` as its only list.
private func withProducts(_ products: String) -> String {
    #"{"version": {"major": 3, "minor": 0}, "products": ["# + products + "]}"
}

/// A version 3 file with one group holding `subscriptions`.
private func withSubscriptions(_ subscriptions: String) -> String {
    #"{"version": {"major": 3, "minor": 0}, "subscriptionGroups": [{"id": "g1", "name": "G", "subscriptions": ["#
        + subscriptions + "]}]}"
}

@Suite("Xcode .storekit files")
struct StoreKitConfigurationTests {
    // MARK: Each version's shape

    @Test("version 1: top-level nonRenewingSubscriptions, products, a group, a null introductory offer")
    func version1Shape() throws {
        let catalog = try load(storeKitV1)
        #expect(catalog.format == .storeKit(major: 1, minor: 1))
        #expect(catalog.notes.isEmpty)
        #expect(catalog.products.map(\.id) == ["com.example.plus.monthly", "com.example.pro", "com.example.coins",
                                               "com.example.season"])

        let season = try #require(catalog.product(id: "com.example.season"))
        #expect(season.type == .nonRenewable)
        #expect(season.duration == StoreKitConfiguration.nonRenewingDuration)
        #expect(season.price == Decimal(string: "14.99"))
        #expect(season.displayName == "Season Pass")
        #expect(season.description == "A whole season")

        let coins = try #require(catalog.product(id: "com.example.coins"))
        #expect(coins.type == .consumable)
        #expect(coins.familyShareable == false)
        #expect(coins.duration == nil)

        // No localizations: the reference name is the display name.
        let pro = try #require(catalog.product(id: "com.example.pro"))
        #expect(pro.type == .nonConsumable)
        #expect(pro.familyShareable)
        #expect(pro.displayName == "Pro Unlock")
        #expect(pro.description == "")

        let monthly = try #require(catalog.product(id: "com.example.plus.monthly")?.subscription)
        #expect(monthly.groupID == "20000001")
        #expect(monthly.period == ISODuration(months: 1))
        #expect(monthly.level == 1)
        #expect(monthly.introductoryOffer == nil)
        #expect(monthly.offers.isEmpty)
        #expect(catalog.subscriptionGroups == [SubscriptionGroup(id: "20000001", displayName: "Plus",
                                                                 subscriptionIDs: ["com.example.plus.monthly"])])
        // No settings: the USA storefront, in dollars.
        #expect(catalog.defaultStorefront == "USA")
        #expect(catalog.storefront("USA") == .unitedStates)
        #expect(catalog.startingSettings.isEmpty)
    }

    @Test("version 2: localizations fall back locale → language → first entry")
    func version2Localizations() throws {
        let catalog = try load(storeKitV2)
        #expect(catalog.format == .storeKit(major: 2, minor: 0))
        let noAds = try #require(catalog.product(id: "com.example.noads"))
        #expect(noAds.localizations.count == 4)
        #expect(noAds.localization(for: "en_US").displayName == "No Ads")      // the locale
        #expect(noAds.localization(for: "de_DE").displayName == "Werbefrei")   // its language
        #expect(noAds.localization(for: "de_AT").description == "Keine Werbung mehr")
        #expect(noAds.localization(for: "fr_FR").displayName == "Sans pub")    // the language's other region
        #expect(noAds.localization(for: "ja_JP").displayName == "No Ads")      // the first entry
        #expect(noAds.localization(for: "ja_JP").description == "Removes ads")
        // An empty display name falls back to the reference name.
        #expect(noAds.localization(for: "it_IT").displayName == "No Ads")

        // A storefront shows its locale's text, with the file's price in the file's currency.
        let germany = try #require(catalog.storefront("DEU"))
        #expect(germany.currency == "USD")
        let product = catalog.product(from: noAds, in: germany)
        #expect(product.displayName == "Werbefrei")
        #expect(product.price == Decimal(string: "1.99"))
        #expect(product.currencyCode == "USD")

        // In version 2, non-renewing subscriptions sit among the products.
        let maps = try #require(catalog.product(id: "com.example.maps"))
        #expect(maps.type == .nonRenewable)
        #expect(maps.duration == ISODuration(years: 1))
    }

    @Test("version 3: settings become the storefront and the starting settings")
    func version3Settings() throws {
        let catalog = try load(storeKitV3)
        #expect(catalog.format == .storeKit(major: 3, minor: 0))
        #expect(catalog.defaultStorefront == "GBR")
        #expect(catalog.storefronts.first == Storefront(countryCode: "GBR", currency: "GBP", locale: "en_GB"))
        // Every other storefront shows the file's prices in the file's currency.
        #expect(catalog.storefronts.count == AppStoreStorefront.all.count)
        #expect(catalog.storefronts.allSatisfy { $0.currency == "GBP" })
        #expect(catalog.storefront("USA")?.locale == "en_US")
        #expect(catalog.storefront("GBR")?.displayPrice(Decimal(string: "0.49")!) == "£0.49")

        #expect(catalog.startingSettings == [
            "askToBuyEnabled": "true",
            "billingGracePeriodEnabled": "false",
            "billingIssuesEnabled": "true",
            "disableDialogs": "false",
            "failTransactionsEnabled": "true",
            "timeRate": "3",
            "storeKitErrors": #"[{"current":null,"enabled":false,"name":"Load Products"},{"current":{"index":2,"type":"generic"},"enabled":true,"name":"Purchase"}]"#,
            "applicationInternalID": "1234567890",
        ])
        // Applied: the switches, the time rate (3, withdrawn by Apple, runs at the nearest rate
        // here) and the Purchase error (generic 2: networkError), which wins over failTransactions.
        #expect(catalog.settingDefaults == [
            "askToBuy": "true", "billingIssues": "true", "gracePeriod": "false",
            "timeRate": "monthlyRenewalEveryHour", "purchaseError": "networkError",
            "appAppleId": "1234567890",  // a synced file's app
        ])
        #expect(catalog.notes.count == 3)
        #expect(catalog.notes.allSatisfy { $0.hasPrefix("Products.storekit: settings._") })
    }

    @Test("Xcode 26's _renewalBillingIssuesEnabled makes renewals fail (billingIssues); it wins over _billingIssuesEnabled, with a note")
    func renewalBillingIssues() throws {
        let alone = try load(#"{"version": {"major": 4}, "products": [], "settings": {"_renewalBillingIssuesEnabled": true}}"#)
        #expect(alone.settingDefaults == ["billingIssues": "true"] && alone.notes.isEmpty, "\(alone.settingDefaults) \(alone.notes)")
        let both = try load(#"{"version": {"major": 4}, "products": [], "settings": {"_billingIssuesEnabled": false, "_renewalBillingIssuesEnabled": true}}"#)
        #expect(both.settingDefaults == ["billingIssues": "true"])
        #expect(both.notes == ["Products.storekit: settings._renewalBillingIssuesEnabled is true and settings._billingIssuesEnabled is false: "
                               + "billingIssues is true, as the renewal setting says (renewals fail into billing retry)"])
        let off = try load(#"{"version": {"major": 4}, "products": [], "settings": {"_billingIssuesEnabled": false, "_renewalBillingIssuesEnabled": false}}"#)
        #expect(off.settingDefaults == ["billingIssues": "false"] && off.notes.isEmpty)
        expectInvalid(#"{"version": {"major": 4}, "products": [], "settings": {"_renewalBillingIssuesEnabled": "yes"}}"#,
                      at: "settings._renewalBillingIssuesEnabled", saying: ["true or false"])
    }

    @Test("version 3: introductory offers of every payment mode, promotional and code offers")
    func version3Offers() throws {
        let catalog = try load(storeKitV3)
        let group = try #require(catalog.group(id: "30000001"))
        #expect(group.displayName == "Gold")
        // By level (groupNumber), highest tier first.
        #expect(group.subscriptionIDs == ["com.example.gold.yearly", "com.example.gold.monthly", "com.example.gold.quarterly"])

        let monthlyProduct = try #require(catalog.product(id: "com.example.gold.monthly"))
        #expect(monthlyProduct.familyShareable)
        #expect(monthlyProduct.price == Decimal(string: "5.99"))
        let monthly = try #require(monthlyProduct.subscription)
        #expect(monthly.level == 2)
        #expect(monthly.introductoryOffer == IntroductoryOffer(paymentMode: .freeTrial, period: ISODuration(weeks: 1),
                                                               periodCount: 1, price: 0))
        var codeRules = OfferCodes()  // Xcode's code offers list who may redeem them, not codes
        codeRules.eligibility = [.new, .expired]
        #expect(monthly.offers == [
            SubscriptionOffer(kind: .promotional, id: "comeback.two.months", referenceName: "Come back",
                              paymentMode: .payAsYouGo, period: ISODuration(months: 1), periodCount: 2,
                              price: Decimal(string: "1.49")),
            SubscriptionOffer(kind: .code, id: nil, referenceName: "Press code", paymentMode: .freeTrial,
                              period: ISODuration(months: 1), periodCount: 1, price: 0, codes: codeRules),
        ])

        let yearly = try #require(catalog.product(id: "com.example.gold.yearly")?.subscription)
        #expect(yearly.period == ISODuration(years: 1))
        #expect(yearly.introductoryOffer == IntroductoryOffer(paymentMode: .payAsYouGo, period: ISODuration(months: 1),
                                                              periodCount: 3, price: Decimal(string: "0.99")!))
        let quarterly = try #require(catalog.product(id: "com.example.gold.quarterly")?.subscription)
        #expect(quarterly.period == ISODuration(months: 3))
        #expect(quarterly.introductoryOffer == IntroductoryOffer(paymentMode: .payUpFront, period: ISODuration(months: 3),
                                                                 periodCount: 1, price: Decimal(string: "9.99")!))

        // The product the app sees carries the offer at the storefront's price.
        let seen = catalog.product(from: try #require(catalog.product(id: "com.example.gold.yearly")),
                                   in: try #require(catalog.storefront("GBR")))
        #expect(seen.subscription?.introductoryOffer?.displayPrice == "£0.99")
        #expect(seen.subscription?.groupDisplayName == "Gold")
    }

    @Test("version 4: win-back offers; unknown keys anywhere are ignored")
    func version4Shape() throws {
        let catalog = try load(storeKitV4)
        #expect(catalog.format == .storeKit(major: 4, minor: 0))
        #expect(catalog.notes.isEmpty)
        #expect(catalog.defaultStorefront == "JPN")
        #expect(catalog.storefront("JPN") == Storefront(countryCode: "JPN", currency: "JPY", locale: "ja_JP"))
        #expect(catalog.startingSettings == ["timeRate": "0"])

        let club = try #require(catalog.product(id: "com.example.club"))
        #expect(club.price == 800)
        #expect(club.displayName == "クラブ")
        #expect(club.localization(for: "en_GB").displayName == "Club")
        #expect(catalog.product(from: club, in: catalog.storefront("JPN")!).displayPrice == "¥800")
        #expect(club.subscription?.offers == [
            SubscriptionOffer(kind: .winBack, id: "club.winback", referenceName: "Win back", paymentMode: .payAsYouGo,
                              period: ISODuration(months: 1), periodCount: 2, price: 400),
        ])
    }

    @Test("a newer version is read as far as the shape holds, with a note; introductoryOffers lists are read")
    func newerVersion() throws {
        let text = """
            {"version": {"major": 7, "minor": 2}, "futureList": [{"anything": true}],
             "subscriptionGroups": [{"id": "g", "name": "G", "subscriptions": [
               {"productID": "s", "displayPrice": "2.99", "recurringSubscriptionPeriod": "P1W", "groupNumber": 1,
                "introductoryOffers": [{"paymentMode": "payUpFront", "subscriptionPeriod": "P1M", "displayPrice": "1.99"}]}]}]}
            """
        let catalog = try load(text)
        #expect(catalog.format == .storeKit(major: 7, minor: 2))
        #expect(catalog.notes.count == 1)
        #expect(catalog.notes.first?.contains("7.2") == true)
        let terms = try #require(catalog.product(id: "s")?.subscription)
        #expect(terms.introductoryOffer?.paymentMode == .payUpFront)
        #expect(terms.introductoryOffer?.price == Decimal(string: "1.99"))
        #expect(catalog.product(id: "s")?.displayName == "", "no name and no reference name: empty, as Xcode shows it")
    }

    @Test("an unknown storefront is shown as USA, with a note; _locale sets its locale")
    func unknownStorefront() throws {
        let catalog = try load(#"{"settings": {"_storefront": "ATA", "_locale": "de_DE"}, "products": []}"#)
        #expect(catalog.defaultStorefront == "USA")
        #expect(catalog.storefront("USA") == Storefront(countryCode: "USA", currency: "USD", locale: "de_DE"))
        #expect(catalog.notes.count == 1)
        #expect(catalog.notes.first?.contains("\"ATA\"") == true)
        #expect(catalog.notes.first?.contains("USA") == true)
    }

    @Test("Xcode lets subscriptions share a level; they stay in file order")
    func sharedLevels() throws {
        let catalog = try load(withSubscriptions("""
            {"productID": "a", "referenceName": "A", "displayPrice": "1", "recurringSubscriptionPeriod": "P1M", "groupNumber": 2},
            {"productID": "b", "referenceName": "B", "displayPrice": "9", "recurringSubscriptionPeriod": "P1Y", "groupNumber": 1},
            {"productID": "c", "referenceName": "C", "displayPrice": "10", "recurringSubscriptionPeriod": "P1Y", "groupNumber": 2}
            """))
        #expect(catalog.group(id: "g1")?.subscriptionIDs == ["b", "a", "c"])
        #expect(catalog.products.map(\.id) == ["b", "a", "c"])

        // products.json keeps shared levels as they are: a crossgrade stays a crossgrade.
        let (document, notes) = catalog.productsJSON()
        #expect(notes.isEmpty)
        let back = try Catalog.parse(Array(document.serialized().utf8), file: "converted.json")
        #expect(back.products.map { $0.subscription?.level } == [1, 2, 2])
        #expect(back.group(id: "g1")?.subscriptionIDs == ["b", "a", "c"])
        #expect(back == catalog)
    }

    // MARK: Recognised by content

    @Test("the format is told by content, not by the file name")
    func recognition() throws {
        #expect(StoreKitConfiguration.recognizes(try JSON.parse(Array(storeKitV1.utf8))))
        #expect(StoreKitConfiguration.recognizes(try JSON.parse(Array(#"{"identifier": "X"}"#.utf8))))
        #expect(StoreKitConfiguration.recognizes(try JSON.parse(Array(#"{"products": [{"productID": "a"}]}"#.utf8))))
        #expect(StoreKitConfiguration.recognizes(try JSON.parse(Array(
            #"{"subscriptionGroups": [{"subscriptions": [{"referenceName": "a"}]}]}"#.utf8))))
        #expect(!StoreKitConfiguration.recognizes(try JSON.parse(Array(fixtureCatalogText.utf8))))
        #expect(!StoreKitConfiguration.recognizes(.array([])))

        // A .storekit file named .json, and a products.json named .storekit.
        #expect(try load(storeKitV3, file: "products.json").format == .storeKit(major: 3, minor: 0))
        #expect(try load(fixtureCatalogText, file: "Products.storekit").format == .productsJSON)
    }

    @Test("Catalog.load reads a .storekit file from disk")
    func loadFromDisk() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("sk-\(UUID().uuidString).storekit").path
        try Data(storeKitV4.utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let catalog = try Catalog.load(contentsOf: path)
        #expect(catalog.product(id: "com.example.club") != nil)
    }

    // MARK: Converting

    @Test("convert: the products.json loads back to an equal catalog", arguments: [storeKitV1, storeKitV2, storeKitV3, storeKitV4])
    func roundTrip(text: String) throws {
        let catalog = try load(text)
        let (document, notes) = catalog.productsJSON()
        #expect(notes.isEmpty)
        let back = try Catalog.parse(Array(document.serialized().utf8), file: "converted.json")
        #expect(back.format == .productsJSON)
        #expect(back == catalog)
        #expect(back.products == catalog.products)
        #expect(back.startingSettings == catalog.startingSettings)
        #expect(back.storefronts == catalog.storefronts)
        // And once more: converting the converted file changes nothing.
        #expect(back.productsJSON().document == document)
    }

    @Test("convert keeps what products.json has and .storekit has not")
    func roundTripProductsJSON() throws {
        let catalog = try fixtureCatalog()
        let back = try Catalog.parse(Array(catalog.productsJSON().document.serialized().utf8), file: "again.json")
        #expect(back == catalog)
    }

    @Test("catalog equality looks at content")
    func equality() throws {
        var other = try load(storeKitV3)
        #expect(other == (try load(storeKitV3)))
        other.startingSettings["askToBuyEnabled"] = "false"
        #expect(other != (try load(storeKitV3)))
        #expect((try load(storeKitV3)) != (try load(storeKitV4)))
    }

    // MARK: Malformed files

    @Test("bad JSON: line and column")
    func badJSON() throws {
        let text = """
            {
              "products" : [
                { "productID" : "a" "type" : "Consumable" }
              ]
            }
            """
        let error = try #require(loadError(text))
        #expect(error.kind == .malformed(line: 3, column: 25))
        #expect(error.description.hasPrefix("Bad.storekit:3:25: malformed JSON: "))
    }

    @Test("unknown or misplaced product types")
    func badTypes() {
        expectInvalid(withProducts(#"{"productID": "a", "displayPrice": "1", "type": "Subscription"}"#),
                      at: "products[0].type", saying: ["unknown product type", "\"Subscription\"", "\"Consumable\""])
        expectInvalid(withProducts(#"{"productID": "a", "displayPrice": "1"}"#),
                      at: "products[0]", saying: ["missing required field \"type\""])
        expectInvalid(withProducts(#"{"productID": "a", "displayPrice": "1", "type": "RecurringSubscription"}"#),
                      at: "products[0].type", saying: ["subscriptions", "not in \"products\""])
        expectInvalid(#"{"nonRenewingSubscriptions": [{"productID": "a", "displayPrice": "1", "type": "Consumable"}]}"#,
                      at: "nonRenewingSubscriptions[0].type", saying: ["\"Consumable\"", "not in \"nonRenewingSubscriptions\""])
        expectInvalid(withSubscriptions(#"{"productID": "a", "displayPrice": "1", "recurringSubscriptionPeriod": "P1M", "type": "NonConsumable"}"#),
                      at: "subscriptionGroups[0].subscriptions[0].type", saying: ["not in \"subscriptions\""])
    }

    // An empty one ("") is Xcode's unfilled price: read as 0 with a note (XcodeFileShapesTests).
    @Test("bad displayPrice", arguments: [#""abc""#, #""1,99""#, #""-1.00""#, "true", #""$0.99""#])
    func badPrice(price: String) {
        expectInvalid(withProducts(#"{"productID": "a", "type": "Consumable", "displayPrice": "# + price + "}"),
                      at: "products[0].displayPrice", saying: ["price"])
        expectInvalid(withSubscriptions(#"{"productID": "a", "recurringSubscriptionPeriod": "P1M", "displayPrice": "# + price + "}"),
                      at: "subscriptionGroups[0].subscriptions[0].displayPrice", saying: ["price"])
    }

    @Test("a price is read exactly, from a string or a number's literal")
    func exactPrices() throws {
        let catalog = try load(withProducts("""
            {"productID": "a", "type": "Consumable", "displayPrice": "0.10"},
            {"productID": "b", "type": "Consumable", "displayPrice": 1234567.89}
            """))
        #expect(catalog.product(id: "a")?.price == Decimal(string: "0.1"))
        #expect(catalog.product(id: "b")?.price == Decimal(string: "1234567.89"))
    }

    @Test("bad periods", arguments: ["1 month", "P", "PT", "P0M", "M1"])
    func badPeriod(period: String) {
        expectInvalid(withSubscriptions(#"{"productID": "a", "displayPrice": "1", "recurringSubscriptionPeriod": ""# + period + #""}"#),
                      at: "subscriptionGroups[0].subscriptions[0].recurringSubscriptionPeriod", saying: ["ISO-8601 duration"])
        expectInvalid(withSubscriptions(#"{"productID": "a", "displayPrice": "1", "recurringSubscriptionPeriod": "P1M", "introductoryOffer": {"paymentMode": "free", "subscriptionPeriod": ""# + period + #""}}"#),
                      at: "subscriptionGroups[0].subscriptions[0].introductoryOffer.subscriptionPeriod", saying: ["ISO-8601 duration"])
        expectInvalid(withSubscriptions(#"{"productID": "a", "displayPrice": "1", "recurringSubscriptionPeriod": "P1M", "adHocOffers": [{"offerID": "o", "subscriptionPeriod": ""# + period + #""}]}"#),
                      at: "subscriptionGroups[0].subscriptions[0].adHocOffers[0].subscriptionPeriod", saying: ["ISO-8601 duration"])
    }

    @Test("duplicate and missing productID")
    func productIDs() {
        expectInvalid(withProducts("""
            {"productID": "a", "type": "Consumable", "displayPrice": "1"},
            {"productID": "a", "type": "NonConsumable", "displayPrice": "2"}
            """), at: "products[1].productID", saying: ["duplicate product id \"a\"", "products[0].productID"])
        // Across lists: a product and a subscription.
        expectInvalid(#"""
            {"products": [{"productID": "a", "type": "Consumable", "displayPrice": "1"}],
             "subscriptionGroups": [{"id": "g", "subscriptions": [{"productID": "a", "displayPrice": "1", "recurringSubscriptionPeriod": "P1M"}]}]}
            """#, at: "subscriptionGroups[0].subscriptions[0].productID", saying: ["duplicate product id"])
        expectInvalid(withProducts(#"{"type": "Consumable", "displayPrice": "1"}"#),
                      at: "products[0]", saying: ["missing required field \"productID\""])
        expectInvalid(withProducts(#"{"productID": "", "type": "Consumable", "displayPrice": "1"}"#),
                      at: "products[0].productID", saying: ["must not be empty"])
        expectInvalid(withProducts(#"{"productID": "a", "type": "Consumable"}"#),
                      at: "products[0]", saying: ["missing required field \"displayPrice\""])
    }

    @Test("other malformed fields")
    func otherFaults() {
        let sub = #"{"productID": "a", "displayPrice": "1", "recurringSubscriptionPeriod": "P1M", "# 
        expectInvalid(withSubscriptions(sub + #""introductoryOffer": {"paymentMode": "halfPrice", "subscriptionPeriod": "P1M"}}"#),
                      at: "subscriptionGroups[0].subscriptions[0].introductoryOffer.paymentMode",
                      saying: ["unknown payment mode", "\"halfPrice\""])
        expectInvalid(withSubscriptions(sub + #""introductoryOffer": {"paymentMode": "payAsYouGo", "subscriptionPeriod": "P1M", "displayPrice": "-1"}}"#),
                      at: "subscriptionGroups[0].subscriptions[0].introductoryOffer.displayPrice", saying: ["negative"])
        expectInvalid(withSubscriptions(sub + #""introductoryOffer": {"paymentMode": "free", "subscriptionPeriod": "P1M", "numberOfPeriods": 0}}"#),
                      at: "subscriptionGroups[0].subscriptions[0].introductoryOffer.numberOfPeriods", saying: ["1 or more"])
        expectInvalid(withSubscriptions(sub + #""groupNumber": "first"}"#),
                      at: "subscriptionGroups[0].subscriptions[0].groupNumber", saying: ["whole number"])
        expectInvalid(withSubscriptions(sub + #""groupNumber": 0}"#),
                      at: "subscriptionGroups[0].subscriptions[0].groupNumber", saying: ["1 or more"])
        expectInvalid(withSubscriptions(sub + #""subscriptionGroupID": "other"}"#),
                      at: "subscriptionGroups[0].subscriptions[0].subscriptionGroupID", saying: ["\"other\"", "\"g1\""])
        expectInvalid(withSubscriptions(sub + #""familyShareable": "yes"}"#),
                      at: "subscriptionGroups[0].subscriptions[0].familyShareable", saying: ["true or false"])
        expectInvalid(withSubscriptions(sub + #""winbackOffers": {"offerID": "w"}}"#),
                      at: "subscriptionGroups[0].subscriptions[0].winbackOffers", saying: ["expected an array"])
        expectInvalid(withProducts(#"{"productID": "a", "type": "Consumable", "displayPrice": "1", "localizations": [{"displayName": "A"}]}"#),
                      at: "products[0].localizations[0]", saying: ["missing required field \"locale\""])
        expectInvalid(#"{"version": {"major": "four"}}"#, at: "version.major", saying: ["whole number"])
        expectInvalid(#"{"version": {"major": 0}}"#, at: "version.major", saying: ["1 or more"])
        expectInvalid(#"{"settings": {"_storefront": 840}}"#, at: "settings._storefront", saying: ["expected a string"])
        expectInvalid(#"{"settings": []}"#, at: "settings", saying: ["expected an object"])
        expectInvalid(#"{"version": {"major": 3}, "subscriptionGroups": [{"id": "g"}]}"#,
                      at: "subscriptionGroups[0]", saying: ["missing required field \"subscriptions\""])
    }

    // MARK: products.json counterparts

    @Test("products.json holds starting settings and subscription offers too")
    func productsJSONExtensions() throws {
        let catalog = try Catalog.parse(Array(#"""
            {"startingSettings": {"askToBuyEnabled": true, "timeRate": 2},
             "subscriptionGroups": [{"id": "g", "subscriptions": [
               {"id": "s", "displayName": "S", "price": "1", "period": "P1M", "level": 1,
                "offers": [{"type": "winBack", "id": "w", "paymentMode": "freeTrial", "period": "P1M"}]}]}]}
            """#.utf8), file: "x.json")
        #expect(catalog.startingSettings == ["askToBuyEnabled": "true", "timeRate": "2"])
        #expect(catalog.product(id: "s")?.subscription?.offers == [
            SubscriptionOffer(kind: .winBack, id: "w", paymentMode: .freeTrial, period: ISODuration(months: 1)),
        ])
        #expect(throws: CatalogError.self) {
            try Catalog.parse(Array(#"{"startingSettings": {"colour": "red"}}"#.utf8), file: "x.json")
        }
        #expect(throws: CatalogError.self) {
            // A one-time product's offers are offer codes only (OneTimeOfferCodeTests).
            try Catalog.parse(Array(#"{"products": [{"id": "p", "type": "consumable", "displayName": "P", "price": "1", "offers": [{"type": "promotional", "id": "o", "price": "0.5"}]}]}"#.utf8), file: "x.json")
        }
    }

    @Test("settings: _locale and a localization's locale are locale identifiers; _includeConsumablesInHistory \"yes\" and an escape in _applicationInternalID are refused")
    func settingsRefusedAtTheirPlace() {
        expectInvalid(#"{"version": {"major": 3}, "products": [], "settings": {"_locale": "en_\u202eUS"}}"#,
                      at: "settings._locale", saying: ["U+202E"])
        expectInvalid(withProducts(#"{"productID": "a", "displayPrice": "1", "type": "Consumable", "localizations": [{"locale": "en\u0007", "displayName": "A"}]}"#),
                      at: "products[0].localizations[0].locale", saying: ["U+0007"])
        expectInvalid(#"{"version": {"major": 3}, "products": [], "settings": {"_includeConsumablesInHistory": "yes"}}"#,
                      at: "settings._includeConsumablesInHistory", saying: ["true or false"])
        expectInvalid(#"{"version": {"major": 3}, "products": [], "settings": {"_applicationInternalID": "64440\u001b00000"}}"#,
                      at: "settings._applicationInternalID", saying: ["digits only"])
    }
}
