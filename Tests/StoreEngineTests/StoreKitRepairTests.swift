import Foundation
import Testing
@testable import StoreEngine

// Small .storekit files with the faults real files carry (written by Xcode, synced from
// App Store Connect, edited by hand), written for these tests in Xcode's shape. Each
// loads, with a note naming the file, the place and what was repaired.

/// A locale repeated in one product's localizations (a sync that added "en_US" twice).
private let repeatedLocale = """
    {
      "identifier" : "5A6B7C8D",
      "products" : [
        {
          "displayPrice" : "2.99",
          "familyShareable" : false,
          "internalID" : "500",
          "localizations" : [
            { "description" : "All levels", "displayName" : "Full Game", "locale" : "en_US" },
            { "description" : "Alle Level", "displayName" : "Vollversion", "locale" : "de" },
            { "description" : "Stale copy", "displayName" : "Old Name", "locale" : "en_US" }
          ],
          "productID" : "com.example.full",
          "referenceName" : "Full Game",
          "type" : "NonConsumable"
        }
      ],
      "settings" : { "_storefront" : "USA" },
      "version" : { "major" : 3, "minor" : 0 }
    }
    """

/// One group's subscriptions with introductory offers in every state a file leaves them.
private func withIntroductoryOffers(_ offers: [String]) -> String {
    let subscriptions = offers.enumerated().map { index, offer in
        """
        {
          "displayPrice" : "9.99", "familyShareable" : false, "groupNumber" : \(index + 1),
          "internalID" : "60\(index)", "introductoryOffer" : \(offer),
          "localizations" : [ { "description" : "", "displayName" : "Plan \(index)", "locale" : "en_US" } ],
          "productID" : "plan.\(index)", "recurringSubscriptionPeriod" : "P1M", "referenceName" : "Plan \(index)",
          "subscriptionGroupID" : "70000001", "type" : "RecurringSubscription"
        }
        """
    }
    return """
        {
          "identifier" : "6B7C8D9E",
          "subscriptionGroups" : [
            { "id" : "70000001", "localizations" : [], "name" : "Plans",
              "subscriptions" : [ \(subscriptions.joined(separator: ",\n")) ] }
          ],
          "version" : { "major" : 3, "minor" : 0 }
        }
        """
}

/// Two groups a hand edit gave the same id (the second copied from the first and renamed).
private let repeatedGroupID = """
    {
      "identifier" : "7C8D9EAF",
      "subscriptionGroups" : [
        { "id" : "80000001", "localizations" : [], "name" : "Streaming",
          "subscriptions" : [
            { "displayPrice" : "4.99", "groupNumber" : 1, "localizations" : [],
              "productID" : "stream.monthly", "recurringSubscriptionPeriod" : "P1M", "referenceName" : "Stream Monthly",
              "subscriptionGroupID" : "80000001", "type" : "RecurringSubscription" }
          ] },
        { "id" : "80000001", "localizations" : [], "name" : "Cloud Storage",
          "subscriptions" : [
            { "displayPrice" : "0.99", "groupNumber" : 1, "localizations" : [],
              "productID" : "cloud.monthly", "recurringSubscriptionPeriod" : "P1M", "referenceName" : "Cloud Monthly",
              "subscriptionGroupID" : "80000001", "type" : "RecurringSubscription" },
            { "displayPrice" : "9.99", "groupNumber" : 2, "localizations" : [],
              "productID" : "cloud.yearly", "recurringSubscriptionPeriod" : "P1Y", "referenceName" : "Cloud Yearly",
              "subscriptionGroupID" : "80000001", "type" : "RecurringSubscription" }
          ] }
      ],
      "version" : { "major" : 3, "minor" : 0 }
    }
    """

/// A file of one consumable whose `settings` are `settings` (a JSON object's members).
private func withSettings(_ settings: String) -> String {
    """
    {
      "products" : [
        { "displayPrice" : "0.99", "localizations" : [], "productID" : "coins", "referenceName" : "Coins", "type" : "Consumable" },
        { "displayPrice" : "1.99", "localizations" : [], "productID" : "pro", "referenceName" : "Pro", "type" : "NonConsumable" }
      ],
      "settings" : { \(settings) },
      "subscriptionGroups" : [
        { "id" : "g", "name" : "G", "subscriptions" : [
          { "displayPrice" : "4.99", "productID" : "monthly", "recurringSubscriptionPeriod" : "P1M", "groupNumber" : 1 } ] }
      ],
      "version" : { "major" : 4, "minor" : 0 }
    }
    """
}

private func load(_ text: String) throws -> Catalog {
    try Catalog.parse(Array(text.utf8), file: "Real.storekit")
}

/// Checks that exactly one note contains every one of `words`.
private func expectNote(_ catalog: Catalog, saying words: [String], sourceLocation: SourceLocation = #_sourceLocation) {
    let matching = catalog.notes.filter { note in words.allSatisfy(note.contains) }
    #expect(matching.count == 1, "notes: \(catalog.notes)", sourceLocation: sourceLocation)
    #expect(matching.allSatisfy { $0.hasPrefix("Real.storekit: ") }, "a note names its file", sourceLocation: sourceLocation)
}

@Suite("Real .storekit files: repaired, with notes")
struct StoreKitRepairTests {
    // MARK: Products and offers

    @Test("a locale repeated in one product's localizations: the first wins, with a note")
    func repeatedLocaleFirstWins() throws {
        let catalog = try load(repeatedLocale)
        let full = try #require(catalog.product(id: "com.example.full"))
        #expect(full.localizations.count == 2)
        #expect(full.localization(for: "en_US").displayName == "Full Game")
        #expect(full.localization(for: "de_DE").displayName == "Vollversion")
        #expect(full.displayName == "Full Game")
        expectNote(catalog, saying: ["products[0].localizations[2].locale", "\"en_US\"", "repeats", "first"])
    }

    @Test("an empty displayPrice on an introductory offer: 0 for a free trial; pay as you go or up front read as 0, with a note")
    func emptyOfferPrice() throws {
        let catalog = try load(withIntroductoryOffers([
            #"{ "displayPrice" : "", "internalID" : "1", "paymentMode" : "free", "subscriptionPeriod" : "P1W" }"#,
            #"{ "displayPrice" : "", "internalID" : "2", "numberOfPeriods" : 3, "paymentMode" : "payAsYouGo", "subscriptionPeriod" : "P1M" }"#,
            #"{ "displayPrice" : " ", "internalID" : "3", "paymentMode" : "payUpFront", "subscriptionPeriod" : "P3M" }"#,
            #"{ "internalID" : "4", "paymentMode" : "payAsYouGo", "subscriptionPeriod" : "P1M" }"#,
        ]))
        let offers = (0..<4).map { catalog.product(id: "plan.\($0)")?.subscription?.introductoryOffer }
        #expect(offers.map { $0?.price } == [0, 0, 0, 0])
        #expect(offers.map { $0?.paymentMode } == [.freeTrial, .payAsYouGo, .payUpFront, .payAsYouGo])
        #expect(offers[1]?.periodCount == 3)
        #expect(catalog.notes.count == 3, "no note for the free trial: it costs 0 anyway")
        expectNote(catalog, saying: ["subscriptions[1].introductoryOffer.displayPrice", "payAsYouGo", "empty", "costing 0"])
        expectNote(catalog, saying: ["subscriptions[2].introductoryOffer.displayPrice", "payUpFront", "empty", "costing 0"])
        expectNote(catalog, saying: ["subscriptions[3].introductoryOffer:", "without a displayPrice", "costing 0"])
        // Priced in every storefront, and buyable: the offer's price is 0.
        let product = catalog.product(from: try #require(catalog.product(id: "plan.1")), in: catalog.storefronts[0])
        #expect(product.price == decimal("9.99"))
    }

    @Test("a free trial that still carries a displayPrice from an earlier edit costs 0")
    func freeTrialLeftoverPrice() throws {
        let catalog = try load(withIntroductoryOffers([
            #"{ "displayPrice" : "4.99", "internalID" : "1", "paymentMode" : "free", "subscriptionPeriod" : "P1W" }"#,
            #"{ "displayPrice" : "0.00", "internalID" : "2", "paymentMode" : "free", "subscriptionPeriod" : "P2W" }"#,
            #"{ "displayPrice" : "abc", "internalID" : "3", "paymentMode" : "free", "subscriptionPeriod" : "P1M" }"#,
        ]))
        let offers = (0..<3).map { catalog.product(id: "plan.\($0)")?.subscription?.introductoryOffer }
        #expect(offers.map { $0?.price } == [0, 0, 0])
        #expect(offers.allSatisfy { $0?.paymentMode == .freeTrial })
        #expect(catalog.notes.count == 2, "\"0.00\" is no leftover")
        expectNote(catalog, saying: ["subscriptions[0].introductoryOffer.displayPrice", "free trial costs 0", "\"4.99\""])
        expectNote(catalog, saying: ["subscriptions[2].introductoryOffer.displayPrice", "free trial costs 0", "\"abc\""])
    }

    @Test("a free promotional or code offer costs 0 too; an empty price of another offer is 0 with a note")
    func otherOffers() throws {
        let text = withIntroductoryOffers(["null"]).replacingOccurrences(of: #""introductoryOffer" : null,"#, with: """
            "introductoryOffer" : null,
            "codeOffers" : [ { "displayPrice" : "1.99", "paymentMode" : "free", "referenceName" : "Press", "subscriptionPeriod" : "P1M" } ],
            "adHocOffers" : [ { "displayPrice" : "", "offerID" : "back", "paymentMode" : "payUpFront", "subscriptionPeriod" : "P1Y" } ],
            """)
        let catalog = try load(text)
        let offers = try #require(catalog.product(id: "plan.0")?.subscription?.offers)
        #expect(offers.map(\.price) == [0, 0])
        #expect(catalog.notes.count == 2)
        expectNote(catalog, saying: ["codeOffers[0].displayPrice", "free trial costs 0"])
        expectNote(catalog, saying: ["adHocOffers[0].displayPrice", "empty", "costing 0"])
    }

    // MARK: Subscription groups

    @Test("subscription group ids repeated across groups: kept apart under a derived id, with a note; no product lost")
    func repeatedGroupIDs() throws {
        let catalog = try load(repeatedGroupID)
        #expect(catalog.subscriptionGroups.map(\.id) == ["80000001", "80000001-2"])
        #expect(catalog.subscriptionGroups.map(\.displayName) == ["Streaming", "Cloud Storage"])
        #expect(catalog.group(id: "80000001-2")?.subscriptionIDs == ["cloud.monthly", "cloud.yearly"])
        #expect(catalog.products.count == 3)
        #expect(catalog.product(id: "stream.monthly")?.subscription?.groupID == "80000001")
        #expect(catalog.product(id: "cloud.yearly")?.subscription?.groupID == "80000001-2")
        // Each group keeps its own levels: both level-1 plans stay top tiers of their own groups.
        #expect(catalog.product(id: "cloud.monthly")?.subscription?.level == 1)
        expectNote(catalog, saying: ["subscriptionGroups[1].id", "\"80000001\" repeats", "\"Streaming\"",
                                     "\"Cloud Storage\"", "\"80000001-2\""])

        // Converted, the groups stay apart; a third copy gets the next free id.
        let back = try Catalog.parse(Array(catalog.productsJSON().document.serialized().utf8), file: "converted.json")
        #expect(back == catalog)
        let three = try load(repeatedGroupID.replacingOccurrences(of: #""name" : "Cloud Storage","#, with: """
            "name" : "Cloud Storage", "subscriptions" : [] }, { "id" : "80000001", "name" : "Third",
            """))
        #expect(three.subscriptionGroups.map(\.id) == ["80000001", "80000001-2", "80000001-3"])
    }

    @Test("both repeated groups can be subscribed to at once: they are separate groups")
    func repeatedGroupsInTheStore() async throws {
        try await withTemporaryFolder { folder in
            let store = try Store(catalog: try load(repeatedGroupID), path: folder + "/store.sqlite")
            _ = try await buy(store, "stream.monthly")
            _ = try await buy(store, "cloud.yearly")
            #expect(Set(try await store.currentEntitlements().map(\.productID)) == ["stream.monthly", "cloud.yearly"])
        }
    }

    // MARK: Storefronts

    @Test("every App Store storefront, with its currency, locale and Apple's numeric id")
    func appStoreStorefronts() throws {
        let all = AppStoreStorefront.all
        #expect(all.count == 175)
        #expect(Set(all.map(\.countryCode)).count == 175)
        #expect(Set(all.map(\.id)).count == 175)
        #expect(all.allSatisfy { $0.countryCode.count == 3 && $0.currency.count == 3 && Int($0.id) != nil })
        let ids = Dictionary(uniqueKeysWithValues: all.map { ($0.countryCode, $0.id) })
        #expect(ids["USA"] == "143441")
        #expect(ids["GBR"] == "143444")
        #expect(ids["DEU"] == "143443")
        #expect(ids["FRA"] == "143442")
        #expect(ids["JPN"] == "143462")
        #expect(ids["PRT"] == "143453")
        #expect(ids["UKR"] == "143492")
        #expect(ids["VNM"] == "143471")
        // Every locale formats a price (none falls back to a bare number).
        for storefront in all {
            let shown = Storefront(countryCode: storefront.countryCode, currency: storefront.currency,
                                   locale: storefront.locale).displayPrice(decimal("4.99"))
            #expect(!shown.isEmpty && shown != "4.99", "\(storefront.countryCode): \(shown)")
        }
    }

    @Test("a file set to PRT, UKR or VNM shows its own currency and locale", arguments: [
        ("PRT", "EUR", "pt_PT", "143453", "4,99 €"),
        ("UKR", "USD", "uk_UA", "143492", "4,99 USD"),
        ("VNM", "VND", "vi_VN", "143471", "5 ₫"),
    ])
    func ownStorefront(code: String, currency: String, locale: String, id: String, shown: String) throws {
        let catalog = try load(withSettings(#""_storefront" : ""# + code + #"""#))
        #expect(catalog.notes.isEmpty, "\(catalog.notes)")
        #expect(catalog.defaultStorefront == code)
        let home = try #require(catalog.storefront(code))
        #expect(home == Storefront(countryCode: code, currency: currency, locale: locale))
        #expect(home.storefrontID == id)
        #expect(home.displayPrice(decimal("4.99")).replacingOccurrences(of: "\u{A0}", with: " ") == shown)
        // Every App Store storefront is there, showing the file's prices in the file's currency.
        #expect(catalog.storefronts.count == 175)
        #expect(catalog.storefronts.allSatisfy { $0.currency == currency })
        #expect(catalog.storefront("USA")?.storefrontID == "143441")
    }

    @Test("the engine's Storefront carries Apple's numeric id; a code the App Store lacks has none")
    func storefrontIDs() throws {
        let catalog = try fixtureCatalog()
        #expect(catalog.storefronts.map(\.storefrontID) == ["143441", "143444", "143443", "143462"])
        #expect(Storefront(countryCode: "XYZ", currency: "USD", locale: "en_US").storefrontID == nil)
        #expect(Storefront.unitedStates.storefrontID == "143441")
    }

    @Test("right-to-left prices keep their digits and symbol, without invisible direction marks")
    func rightToLeftPrices() {
        for (code, currency, locale) in [("SAU", "SAR", "ar_SA"), ("ISR", "ILS", "he_IL"), ("EGY", "EGP", "ar_EG")] {
            let shown = Storefront(countryCode: code, currency: currency, locale: locale).displayPrice(decimal("4.99"))
            #expect(!shown.unicodeScalars.contains { [0x200E, 0x200F, 0x061C].contains($0.value) }, "\(code)")
            #expect(!shown.isEmpty)
        }
    }

    // MARK: Settings: Xcode's numbering applied

    @Test("_timeRate: Xcode's SKTestSession.TimeRate raw values become the timeRate setting's default", arguments: [
        (0, TimeRate.realTime), (4, .monthlyRenewalEveryThirtyMinutes), (5, .monthlyRenewalEveryFifteenMinutes),
        (6, .monthlyRenewalEveryThirtySeconds), (10, .monthlyRenewalEveryHour), (11, .monthlyRenewalEveryThirtyMinutes),
        (12, .monthlyRenewalEveryFifteenMinutes), (13, .monthlyRenewalEveryFiveMinutes),
        (15, .monthlyRenewalEveryThirtySeconds), (1000, .oneRenewalEveryFifteenMinutes),
        (1001, .oneRenewalEveryFiveMinutes), (1002, .oneRenewalEveryMinute), (1003, .oneRenewalEveryThirtySeconds),
        (1004, .oneRenewalEveryTenSeconds), (1005, .oneRenewalEveryTwoSeconds),
    ])
    func timeRates(raw: Int, rate: TimeRate) throws {
        let catalog = try load(withSettings(#""_timeRate" : \#(raw)"#))
        #expect(catalog.settingDefaults["timeRate"] == rate.rawValue)
        #expect(catalog.notes.isEmpty, "\(catalog.notes)")
    }

    @Test("_timeRate: the day-based rates Apple withdrew run at the nearest rate here; an unknown one stays real time; each with a note")
    func unmappedTimeRates() throws {
        for raw in [1, 2, 3] {
            let catalog = try load(withSettings(#""_timeRate" : \#(raw)"#))
            #expect(catalog.settingDefaults["timeRate"] == "monthlyRenewalEveryHour")
            expectNote(catalog, saying: ["settings._timeRate \(raw)", "IsOneDay", "monthlyRenewalEveryHour"])
        }
        let unknown = try load(withSettings(#""_timeRate" : 7"#))
        #expect(unknown.settingDefaults["timeRate"] == nil)
        expectNote(unknown, saying: ["settings._timeRate \"7\"", "not one of Xcode's time rates", "real time"])
    }

    @Test("_storeKitErrors: each enabled error of an API the store simulates becomes its error setting's default")
    func storeKitErrors() throws {
        let catalog = try load(withSettings(#"""
            "_storeKitErrors" : [
              { "current" : { "index" : 2, "type" : "generic" }, "enabled" : true, "name" : "Load Products" },
              { "current" : { "index" : 2, "type" : "purchase" }, "enabled" : true, "name" : "Purchase" },
              { "current" : { "index" : 4, "type" : "verification" }, "enabled" : true, "name" : "Verification" },
              { "current" : { "index" : 3, "type" : "generic" }, "enabled" : true, "name" : "App Store Sync" },
              { "current" : { "index" : 0, "type" : "generic" }, "enabled" : false, "name" : "Subscription Status" },
              { "current" : null, "enabled" : false, "name" : "App Transaction" }
            ]
            """#))
        #expect(catalog.settingDefaults == [
            "loadProductsError": "networkError", "purchaseError": "purchaseNotAllowed",
            "verificationError": "invalidSignature", "restoreError": "systemError",
        ])
        expectNote(catalog, saying: ["_storeKitErrors[0]", "\"Load Products\"", "generic error 2", "StoreKitError.networkError"])
        expectNote(catalog, saying: ["_storeKitErrors[1]", "purchase error 2", "Product.PurchaseError.purchaseNotAllowed"])
        expectNote(catalog, saying: ["_storeKitErrors[2]", "VerificationResult.VerificationError.invalidSignature"])
        expectNote(catalog, saying: ["_storeKitErrors[3]", "\"App Store Sync\"", "restoreError starts as systemError"])
        #expect(catalog.notes.count == 4, "disabled entries say nothing")
    }

    @Test("_storeKitErrors: what cannot map gets a note and leaves its setting alone")
    func unmappedStoreKitErrors() throws {
        let catalog = try load(withSettings(#"""
            "_storeKitErrors" : [
              { "current" : { "index" : 0, "type" : "generic" }, "enabled" : true, "name" : "Subscription Status" },
              { "current" : { "index" : 1, "type" : "purchase" }, "enabled" : true, "name" : "Load Products" },
              { "current" : { "index" : 7, "type" : "generic" }, "enabled" : true, "name" : "App Store Sync" },
              { "current" : { "index" : 99, "type" : "purchase" }, "enabled" : true, "name" : "Purchase" },
              { "current" : "networkError", "enabled" : true, "name" : "Verification" },
              { "enabled" : true }
            ]
            """#))
        #expect(catalog.settingDefaults.isEmpty)
        expectNote(catalog, saying: ["_storeKitErrors[0]", "\"Subscription Status\" are not simulated here"])
        expectNote(catalog, saying: ["_storeKitErrors[1]", "error 1 of type \"purchase\"", "loadProductsError stays none"])
        expectNote(catalog, saying: ["_storeKitErrors[2]", "error 7", "restoreError stays none"])
        expectNote(catalog, saying: ["_storeKitErrors[3]", "error 99", "purchaseError stays none"])
        expectNote(catalog, saying: ["_storeKitErrors[4].current", "no verificationError"])
        expectNote(catalog, saying: ["_storeKitErrors[5]", "names no StoreKit API"])
        #expect(catalog.notes.count == 6)
    }

    @Test("_failTransactionsEnabled: purchases fail with unknown (Xcode's failureError default); a Purchase error entry wins")
    func failTransactions() throws {
        let failing = try load(withSettings(#""_failTransactionsEnabled" : true"#))
        #expect(failing.settingDefaults == ["purchaseError": "unknown"])
        expectNote(failing, saying: ["settings._failTransactionsEnabled", "unknown"])
        #expect(try load(withSettings(#""_failTransactionsEnabled" : false"#)).settingDefaults.isEmpty)

        let both = try load(withSettings(#"""
            "_failTransactionsEnabled" : true,
            "_storeKitErrors" : [ { "current" : { "index" : 1, "type" : "generic" }, "enabled" : true, "name" : "Purchase" } ]
            """#))
        #expect(both.settingDefaults == ["purchaseError": "userCancelled"])
    }

    @Test("products.json's startingSettings map the same way, its notes naming startingSettings")
    func productsJSONStartingSettings() throws {
        let catalog = try Catalog.parse(Array(#"""
            {"startingSettings": {"timeRate": "1002", "askToBuyEnabled": true,
              "storeKitErrors": "[{\"current\":{\"index\":0,\"type\":\"generic\"},\"enabled\":true,\"name\":\"Load Products\"}]"},
             "products": [{"id": "p", "type": "consumable", "displayName": "P", "price": "1"}]}
            """#.utf8), file: "products.json")
        #expect(catalog.settingDefaults == ["timeRate": "oneRenewalEveryMinute", "askToBuy": "true", "loadProductsError": "unknown"])
        #expect(catalog.notes == ["products.json: startingSettings.storeKitErrors[0]: \"Load Products\" fails with Xcode's generic error 0, read as StoreKitError.unknown: loadProductsError starts as unknown"])
        let named = try Catalog.parse(Array(#"{"startingSettings": {"timeRate": "monthlyRenewalEveryHour"}}"#.utf8), file: "p.json")
        #expect(named.settingDefaults == ["timeRate": "monthlyRenewalEveryHour"])
    }

    // MARK: Settings in the store

    @Test("a store on such a file starts with the mapped settings: its errors fail the calls, its clock runs fast")
    func appliedInTheStore() async throws {
        let catalog = try load(withSettings(#"""
            "_timeRate" : 10,
            "_storeKitErrors" : [
              { "current" : { "index" : 2, "type" : "generic" }, "enabled" : true, "name" : "Load Products" },
              { "current" : { "index" : 1, "type" : "purchase" }, "enabled" : true, "name" : "Purchase" },
              { "current" : { "index" : 3, "type" : "generic" }, "enabled" : true, "name" : "App Store Sync" }
            ]
            """#))
        try await withTemporaryFolder { folder in
            let clock = TestClock(fixtureStart)
            let store = try Store(catalog: catalog, path: folder + "/store.sqlite", now: clock.closure)
            let settings = Dictionary(uniqueKeysWithValues: try await store.settings().map { ($0.name, $0) })
            #expect(settings["timeRate"]?.value == "monthlyRenewalEveryHour")
            #expect(settings["timeRate"]?.isDefault == true)
            #expect(settings["purchaseError"]?.value == "productUnavailable")

            await #expect(throws: StoreError.simulated(.networkError, cause: "loadProductsError is networkError")) {
                try await store.products()
            }
            await #expect(throws: StoreError.simulated(.systemError, cause: "restoreError is systemError")) {
                try await store.sync()
            }
            await #expect(throws: StoreError.self) { try await store.purchase("pro") }

            // An hour of real time is a month of store time from the first clock read on.
            let start = try await store.clock().now
            #expect(start == fixtureStart)
            clock.advance(by: 3600)
            let later = try await store.clock().now
            #expect(later.timeIntervalSince(start) > 27 * 86_400)
            // Another process on the same file reads the same clock.
            let other = try Store(catalog: catalog, path: folder + "/store.sqlite", now: clock.closure)
            #expect(try await other.clock().now == later)

            // A set value wins over the file's.
            try await store.setSetting("purchaseError", to: "none")
            _ = try await buy(store, "pro")
        }
    }
}
