import Foundation
import Testing
@testable import StoreCatalog

// Small .storekit files with the shapes a second corpus of real files showed (Xcode 14 to 26,
// versions 1.2 to 6.3), written for these tests. Each used to refuse the whole file or misread it.

/// A file of one group whose subscriptions are `subscriptions` (JSON objects' members), and `extra` top-level members.
private func withSubscriptions(_ subscriptions: [String], products: String = "", extra: String = "") -> String {
    let list = subscriptions.enumerated().map { index, members in
        """
        { "displayPrice" : "9.99", "familyShareable" : false, "groupNumber" : \(index + 1), "internalID" : "90\(index)",
          "localizations" : [ { "description" : "", "displayName" : "Plan \(index)", "locale" : "en_US" } ],
          "productID" : "plan.\(index)", "referenceName" : "Plan \(index)",
          "subscriptionGroupID" : "31000001", "type" : "RecurringSubscription", \(members) }
        """
    }
    return """
        {
          "identifier" : "A1B2C3D4",
          "products" : [ \(products) ],
          "settings" : { "_storefront" : "USA" },
          "subscriptionGroups" : [
            { "id" : "31000001", "localizations" : [], "name" : "Plans", "subscriptions" : [ \(list.joined(separator: ",\n")) ] }
          ],\(extra)
          "version" : { "major" : 5, "minor" : 0 }
        }
        """
}

/// The file, read (version 5.0 is a known version: no note of it).
private func load(_ text: String) throws -> Catalog {
    let catalog = try Catalog.parse(Array(text.utf8), file: "Shapes.storekit")
    #expect(!catalog.notes.contains { $0.contains("is newer") })
    return catalog
}

/// Checks that exactly one note contains every one of `words`.
private func expectNote(_ catalog: Catalog, saying words: [String], sourceLocation: SourceLocation = #_sourceLocation) {
    let matching = catalog.notes.filter { note in words.allSatisfy(note.contains) }
    #expect(matching.count == 1, "notes: \(catalog.notes)", sourceLocation: sourceLocation)
    #expect(matching.allSatisfy { $0.hasPrefix("Shapes.storekit: ") }, sourceLocation: sourceLocation)
}

@Suite("Xcode file shapes: unfinished offers, empty prices and names, billing plans, offer keys, codes")
struct XcodeFileShapesTests {
    @Test("an offer with paymentMode \"none\" (saved unfinished) is left out with a note; the file and its other offers load")
    func unfinishedOffers() throws {
        let catalog = try load(withSubscriptions([
            #""recurringSubscriptionPeriod" : "P1M", "introductoryOffer" : { "internalID" : "1", "paymentMode" : "none", "subscriptionPeriod" : "P1W" }"#,
            #"""
            "recurringSubscriptionPeriod" : "P1M",
            "introductoryOffer" : { "paymentMode" : "free", "subscriptionPeriod" : "P1W" },
            "adHocOffers" : [ { "offerID" : "half", "paymentMode" : "none", "subscriptionPeriod" : "P1M" },
                              { "displayPrice" : "4.99", "offerID" : "back", "paymentMode" : "payUpFront", "subscriptionPeriod" : "P1M" } ]
            """#,
        ]))
        #expect(catalog.products.count == 2)
        #expect(catalog.product(id: "plan.0")?.subscription?.introductoryOffer == nil)
        let kept = try #require(catalog.product(id: "plan.1")?.subscription)
        #expect(kept.introductoryOffer?.paymentMode == .freeTrial)
        #expect(kept.offers.map(\.id) == ["back"])
        expectNote(catalog, saying: ["subscriptions[0].introductoryOffer.paymentMode", "\"none\"", "left out"])
        expectNote(catalog, saying: ["subscriptions[1].adHocOffers[0].paymentMode", "\"none\"", "left out"])
        #expect(catalog.notes.count == 2)
    }

    @Test("a product with an empty displayPrice is read as 0 (free), with a note, not a refusal of the file")
    func emptyProductPrice() throws {
        let catalog = try load(withSubscriptions([#""recurringSubscriptionPeriod" : "P1M""#], products: """
            { "displayPrice" : "", "familyShareable" : false, "internalID" : "1", "localizations" : [],
              "productID" : "tip", "referenceName" : "Tip", "type" : "Consumable" }
            """))
        #expect(catalog.product(id: "tip")?.price == 0)
        #expect(catalog.product(from: try #require(catalog.product(id: "tip")), in: catalog.storefronts[0]).displayPrice == "$0.00")
        expectNote(catalog, saying: ["products[0].displayPrice", "empty", "read as 0"])
    }

    @Test("a product with no referenceName and an empty displayName has an empty name, as Xcode shows it, not its id")
    func emptyName() throws {
        let catalog = try load(withSubscriptions([#""recurringSubscriptionPeriod" : "P1M""#], products: """
            { "displayPrice" : "0.99", "localizations" : [ { "description" : "", "displayName" : "", "locale" : "en_US" } ],
              "productID" : "com.example.nameless", "type" : "NonConsumable" },
            { "displayPrice" : "0.99", "localizations" : [], "productID" : "com.example.bare", "type" : "NonConsumable" },
            { "displayPrice" : "0.99", "localizations" : [ { "displayName" : "", "locale" : "en_US" } ],
              "productID" : "com.example.referenced", "referenceName" : "Referenced", "type" : "NonConsumable" }
            """))
        let nameless = try #require(catalog.product(id: "com.example.nameless"))
        #expect(nameless.displayName == "")
        #expect(nameless.localization(for: "en_US").displayName == "")
        #expect(catalog.product(from: nameless, in: catalog.storefronts[0]).displayName == "")
        #expect(catalog.product(id: "com.example.bare")?.displayName == "")
        #expect(catalog.product(id: "com.example.referenced")?.displayName == "Referenced", "a reference name still stands in")
        // products.json needs a name: convert writes the id, says so, and the result loads.
        let (document, notes) = catalog.productsJSON()
        #expect(notes.filter { $0.contains("com.example.nameless") && $0.contains("no name") }.count == 1)
        let back = try Catalog.parse(Array(document.serialized().utf8), file: "converted.json")
        #expect(back.product(id: "com.example.nameless")?.displayName == "com.example.nameless")
    }

    @Test("a billing plan with isEnabled false is not kept: a disabled monthly plan is neither offered nor in the pricing terms")
    func disabledBillingPlan() throws {
        let catalog = try load(withSubscriptions([
            #"""
            "recurringSubscriptionPeriod" : "P1Y",
            "billingPlans" : [
              { "billingPlanType" : "BILLED_UPFRONT", "commitmentDisplayPrice" : "99.99", "displayPrice" : "99.99", "isEnabled" : true },
              { "billingPlanType" : "MONTHLY", "commitmentDisplayPrice" : "119.88", "displayPrice" : "9.99", "isEnabled" : false } ]
            """#,
            #"""
            "recurringSubscriptionPeriod" : "P1M",
            "billingPlans" : [ { "billingPlanType" : "MONTHLY", "displayPrice" : "", "isEnabled" : false },
                               { "billingPlanType" : "BILLED_UPFRONT", "displayPrice" : "9.99", "isEnabled" : false } ]
            """#,
        ]))
        let yearly = try #require(catalog.product(id: "plan.0"))
        #expect(yearly.subscription?.billingPlans == [])
        #expect(catalog.product(from: yearly, in: catalog.storefronts[0]).subscription?.pricingTerms.map(\.billingPlanType) == [.billedUpfront])
        expectNote(catalog, saying: ["subscriptions[0].billingPlans[1].isEnabled", "\"MONTHLY\"", "not offered"])
        #expect(yearly.subscription?.isBilledUpfrontOnSale == true)
        // A turned-off plan is not checked (a monthly plan on a monthly subscription, no price); up front goes off sale too.
        #expect(catalog.product(id: "plan.1")?.subscription?.billingPlans == [])
        #expect(catalog.product(id: "plan.1")?.subscription?.isBilledUpfrontOnSale == false)
        expectNote(catalog, saying: ["subscriptions[1].billingPlans[0].isEnabled", "\"MONTHLY\""])
        expectNote(catalog, saying: ["subscriptions[1].billingPlans[1].isEnabled", "\"BILLED_UPFRONT\"", "billed up front is refused"])
        #expect(catalog.notes.count == 3)
    }

    @Test("introductoryOffers with one entry per billing plan: each plan keeps its own, named or in billingPlans' order")
    func introductoryOfferPerPlan() throws {
        let plans = #"""
            "billingPlans" : [
              { "billingPlanType" : "BILLED_UPFRONT", "displayPrice" : "99.99", "isEnabled" : true },
              { "billingPlanType" : "MONTHLY", "commitmentDisplayPrice" : "119.88", "displayPrice" : "9.99", "isEnabled" : true } ]
            """#
        let catalog = try load(withSubscriptions([
            #""recurringSubscriptionPeriod" : "P1Y", "# + plans + #"""
            ,
            "introductoryOffers" : [
              { "billingPlanType" : "MONTHLY", "displayPrice" : "4.99", "numberOfPeriods" : 3, "paymentMode" : "payAsYouGo", "subscriptionPeriod" : "P1M" },
              { "billingPlanType" : "BILLED_UPFRONT", "paymentMode" : "free", "subscriptionPeriod" : "P2W" } ]
            """#,
            #""recurringSubscriptionPeriod" : "P1Y", "# + plans + #"""
            ,
            "introductoryOffer" : { "paymentMode" : "free", "subscriptionPeriod" : "P1W" },
            "introductoryOffers" : [
              { "paymentMode" : "free", "subscriptionPeriod" : "P1W" },
              { "displayPrice" : "0.99", "paymentMode" : "payUpFront", "subscriptionPeriod" : "P1M" } ]
            """#,
        ]))
        let named = try #require(catalog.product(id: "plan.0")?.subscription)
        #expect(named.introductoryOffer == IntroductoryOffer(paymentMode: .freeTrial, period: ISODuration(weeks: 2), periodCount: 1, price: 0))
        #expect(named.monthlyPlan?.introductoryOffer == IntroductoryOffer(paymentMode: .payAsYouGo, period: ISODuration(months: 1),
                                                                          periodCount: 3, price: decimal("4.99")))
        let ordered = try #require(catalog.product(id: "plan.1")?.subscription)
        #expect(ordered.introductoryOffer?.period == ISODuration(weeks: 1))
        #expect(ordered.monthlyPlan?.introductoryOffer == IntroductoryOffer(paymentMode: .payUpFront, period: ISODuration(months: 1),
                                                                            periodCount: 1, price: decimal("0.99")))
        #expect(catalog.notes.isEmpty, "\(catalog.notes)")
        // The app sees each plan's own offer in its pricing terms.
        let terms = catalog.product(from: try #require(catalog.product(id: "plan.0")), in: catalog.storefronts[0]).subscription?.pricingTerms
        #expect(terms?.map { $0.introductoryOffer?.paymentMode } == [.freeTrial, .payAsYouGo])
        #expect(terms?.last?.introductoryOffer?.displayPrice == "$4.99")
        // Converted to products.json and back: the same catalog.
        let back = try Catalog.parse(Array(catalog.productsJSON().document.serialized().utf8), file: "converted.json")
        #expect(back == catalog)
        #expect(back.product(id: "plan.0")?.subscription?.monthlyPlan?.introductoryOffer?.periodCount == 3)
    }

    @Test("subscriptionOffersKeyPair is read as the catalog's offer key, kept by convert; a key that is not base64 is refused")
    func offerKeyPair() throws {
        let key = "MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgglbQB/juN7xJD7HZ+SJUcK48AHX/lJw2HhJAF37HPnGhRANCAARbhndqEz3OkqXvfIJElzwUWTf4q5TMPOY3iWu0HNtlKErfM+cuvijTiTZ9+OhgM2j6NiWSgtaa0PDPhZznjLp/"
        let catalog = try load(withSubscriptions([#""recurringSubscriptionPeriod" : "P1M""#],
                                                 extra: #" "subscriptionOffersKeyPair" : { "id" : "7E1F2A3B", "privateKey" : "\#(key)" },"#))
        #expect(catalog.offerKey == CatalogOfferKey(keyID: "7E1F2A3B", privateKeyBase64: key))
        let pem = try #require(catalog.offerKey?.privateKeyPEM)
        #expect(pem.hasPrefix("-----BEGIN PRIVATE KEY-----\n") && pem.hasSuffix("\n-----END PRIVATE KEY-----\n"))
        #expect(pem.split(separator: "\n").dropFirst().dropLast().allSatisfy { $0.count <= 64 })
        #expect(pem.split(separator: "\n").dropFirst().dropLast().joined() == key)
        let back = try Catalog.parse(Array(catalog.productsJSON().document.serialized().utf8), file: "converted.json")
        #expect(back == catalog && back.offerKey == catalog.offerKey)

        let bad = withSubscriptions([#""recurringSubscriptionPeriod" : "P1M""#],
                                    extra: #" "subscriptionOffersKeyPair" : { "id" : "7E1F2A3B", "privateKey" : "not a key!" },"#)
        #expect(throws: CatalogError.self) { try load(bad) }
        do { _ = try load(bad) } catch let error as CatalogError {
            #expect(error.description.contains("subscriptionOffersKeyPair.privateKey") && error.description.contains("base64"))
        } catch { Issue.record("\(error)") }
    }

    @Test("offer codes several offers answer to, case aside, get a note each naming the products (catalog check shows it)")
    func ambiguousCodes() throws {
        let catalog = try load(withSubscriptions([
            #""recurringSubscriptionPeriod" : "P1M", "codeOffers" : [ { "paymentMode" : "free", "referenceName" : "SPRING", "subscriptionPeriod" : "P1M" } ]"#,
            #""recurringSubscriptionPeriod" : "P1M", "codeOffers" : [ { "paymentMode" : "free", "referenceName" : "spring", "subscriptionPeriod" : "P1M" } ]"#,
            #"""
            "recurringSubscriptionPeriod" : "P1Y",
            "codeOffers" : [ { "offerID" : "press", "paymentMode" : "free", "referenceName" : "Press", "subscriptionPeriod" : "P1M" },
                             { "offerID" : "PRESS", "paymentMode" : "free", "referenceName" : "press", "subscriptionPeriod" : "P2M" } ]
            """#,
            #""recurringSubscriptionPeriod" : "P1M", "codeOffers" : [ { "offerID" : "solo", "paymentMode" : "free", "referenceName" : "Solo", "subscriptionPeriod" : "P1M" } ]"#,
        ]))
        expectNote(catalog, saying: ["offer code \"SPRING\" is ambiguous", "2 offers", "\"SPRING\" (plan.0", "\"spring\" (plan.1"])
        expectNote(catalog, saying: ["offer code \"PRESS\" is ambiguous", "(plan.2, offer \"Press\")", "(plan.2, offer \"press\")"])
        #expect(catalog.notes.count == 2, "one offer's own id and reference name are no clash: \(catalog.notes)")
    }
}
