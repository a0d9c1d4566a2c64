import Foundation
import Testing
@testable import StoreCatalog

/// The error a catalog text gives; fails the test when it loads.
private func catalogError(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) -> CatalogError? {
    do {
        _ = try Catalog.parse(Array(text.utf8), file: "x.json")
        Issue.record("expected a CatalogError, the catalog loaded", sourceLocation: sourceLocation)
        return nil
    } catch {
        return error
    }
}

/// Checks a catalog is refused as invalid at `path`, with a reason containing every one of `words`.
private func expectInvalid(_ text: String, at path: String, saying words: [String],
                           sourceLocation: SourceLocation = #_sourceLocation) {
    guard let error = catalogError(text, sourceLocation: sourceLocation) else { return }
    #expect(error.kind == .invalid(path: path), sourceLocation: sourceLocation)
    #expect(error.file == "x.json", sourceLocation: sourceLocation)
    for word in words {
        #expect(error.reason.contains(word), "reason: \(error.reason)", sourceLocation: sourceLocation)
    }
    // The message people read names the file, the place and the fault.
    #expect(error.description == "x.json: \(path.isEmpty ? "top level" : path): \(error.reason)",
            sourceLocation: sourceLocation)
}

/// A catalog with one product, `fields` spliced into it.
private func oneProduct(_ fields: String) -> String {
    #"{"storefronts": {"USA": {"currency": "USD"}, "GBR": {"currency": "GBP"}}, "products": [{"#
        + fields + "}]}"
}

/// A catalog with one subscription group holding `subscriptions`.
private func oneGroup(_ subscriptions: String) -> String {
    #"{"subscriptionGroups": [{"id": "g", "subscriptions": ["# + subscriptions + "]}]}"
}

@Suite("Catalog errors")
struct CatalogErrorTests {
    @Test("malformed JSON: line and column")
    func malformed() throws {
        let text = """
            {
              "products": [
                {"id": "a" "type": "consumable"}
              ]
            }
            """
        let error = try #require(catalogError(text))
        #expect(error.kind == .malformed(line: 3, column: 16))
        #expect(error.reason.contains("expected ',' or '}'"))
        #expect(error.description.hasPrefix("x.json:3:16: malformed JSON: "))
    }

    @Test("a duplicate key is malformed JSON, at the repeated key")
    func duplicateKey() throws {
        let error = try #require(catalogError("{\n  \"storefront\": \"USA\",\n  \"storefront\": \"GBR\"\n}"))
        #expect(error.kind == .malformed(line: 3, column: 3))
        #expect(error.reason.contains("duplicate key \"storefront\""))
    }

    @Test("an empty file is malformed JSON at 1:1")
    func emptyFile() throws {
        let error = try #require(catalogError(""))
        #expect(error.kind == .malformed(line: 1, column: 1))
    }

    @Test("a missing file is .missing, a folder is .unreadable")
    func missingFileAndFolder() async throws {
        try await withTemporaryFolder { folder in
            let missing = folder + "/nope.json"
            do {
                _ = try Catalog.load(contentsOf: missing)
                Issue.record("a missing catalog loaded")
            } catch let error as CatalogError {
                #expect(error.kind == .missing)
                #expect(error.file == missing)
                #expect(error.description.hasPrefix(missing + ": "))
            }
            do {
                _ = try Catalog.load(contentsOf: folder)
                Issue.record("a folder loaded as a catalog")
            } catch let error as CatalogError {
                #expect(error.kind == .unreadable)
                #expect(error.reason.contains("folder"))
            }
            // And a good file at a path loads, with errors naming that path.
            let bad = folder + "/bad.json"
            try Data("{\"products\": 3}".utf8).write(to: URL(fileURLWithPath: bad))
            do {
                _ = try Catalog.load(contentsOf: bad)
                Issue.record("a bad catalog loaded")
            } catch let error as CatalogError {
                #expect(error.file == bad)
                #expect(error.kind == .invalid(path: "products"))
            }
        }
    }

    @Test("the top level must be an object")
    func topLevel() {
        expectInvalid("[1, 2]", at: "", saying: ["expected an object", "an array"])
    }

    @Test("products must be an array of objects")
    func productsShape() {
        expectInvalid(#"{"products": {"id": "a"}}"#, at: "products", saying: ["expected an array"])
        expectInvalid(#"{"products": ["a"]}"#, at: "products[0]", saying: ["expected an object", "a string"])
    }

    @Test("missing required fields name the field and the product", arguments: ["id", "type", "displayName", "price"])
    func missingField(field: String) {
        var fields = [
            "id": #""id": "a""#, "type": #""type": "consumable""#,
            "displayName": #""displayName": "A""#, "price": #""price": "0.99""#,
        ]
        fields[field] = nil
        let good = #"{"id": "ok", "type": "consumable", "displayName": "OK", "price": "1"}"#
        let text = #"{"products": ["# + good + ", {" + fields.values.sorted().joined(separator: ", ") + "}]}"
        expectInvalid(text, at: "products[1]", saying: ["missing required field", "\"\(field)\""])
    }

    @Test("a null required field counts as missing")
    func nullField() {
        expectInvalid(oneProduct(#""id": "a", "type": "consumable", "displayName": "A", "price": null"#),
                      at: "products[0]", saying: ["missing required field \"price\""])
    }

    @Test("an empty id or display name is refused")
    func emptyStrings() {
        expectInvalid(oneProduct(#""id": " ", "type": "consumable", "displayName": "A", "price": "1""#),
                      at: "products[0].id", saying: ["empty"])
        expectInvalid(oneProduct(#""id": "a", "type": "consumable", "displayName": "", "price": "1""#),
                      at: "products[0].displayName", saying: ["empty"])
    }

    @Test("an unknown product type names the type and the allowed ones")
    func unknownType() {
        expectInvalid(oneProduct(#""id": "a", "type": "subscription", "displayName": "A", "price": "1""#),
                      at: "products[0].type", saying: ["unknown product type", "\"subscription\"", "nonConsumable"])
        expectInvalid(oneProduct(#""id": "a", "type": 3, "displayName": "A", "price": "1""#),
                      at: "products[0].type", saying: ["expected a string"])
    }

    @Test("auto-renewable subscriptions belong in a subscription group")
    func autoRenewableInProducts() {
        expectInvalid(oneProduct(#""id": "a", "type": "autoRenewable", "displayName": "A", "price": "1""#),
                      at: "products[0].type", saying: ["subscriptionGroups"])
        expectInvalid(oneGroup(#"{"id": "s", "type": "consumable", "displayName": "S", "price": "1", "period": "P1M", "level": 1}"#),
                      at: "subscriptionGroups[0].subscriptions[0].type", saying: ["autoRenewable"])
    }

    @Test("duplicate product ids among products")
    func duplicateIDsInProducts() {
        let text = #"""
            {"products": [
              {"id": "a", "type": "consumable", "displayName": "A", "price": "1"},
              {"id": "b", "type": "consumable", "displayName": "B", "price": "1"},
              {"id": "a", "type": "nonConsumable", "displayName": "A2", "price": "1"}
            ]}
            """#
        expectInvalid(text, at: "products[2].id", saying: ["duplicate product id \"a\"", "products[0].id"])
    }

    @Test("duplicate product ids across products and subscriptions")
    func duplicateIDsAcross() {
        let text = #"""
            {"products": [{"id": "same", "type": "nonConsumable", "displayName": "A", "price": "1"}],
             "subscriptionGroups": [{"id": "g", "subscriptions": [
               {"id": "other", "displayName": "O", "price": "1", "period": "P1M", "level": 1},
               {"id": "same", "displayName": "S", "price": "1", "period": "P1M", "level": 2}]}]}
            """#
        expectInvalid(text, at: "subscriptionGroups[0].subscriptions[1].id",
                      saying: ["duplicate product id \"same\"", "products[0].id"])
        let twoGroups = #"""
            {"subscriptionGroups": [
               {"id": "g1", "subscriptions": [{"id": "s", "displayName": "S", "price": "1", "period": "P1M", "level": 1}]},
               {"id": "g2", "subscriptions": [{"id": "s", "displayName": "S", "price": "1", "period": "P1M", "level": 1}]}]}
            """#
        expectInvalid(twoGroups, at: "subscriptionGroups[1].subscriptions[0].id",
                      saying: ["duplicate product id \"s\"", "subscriptionGroups[0].subscriptions[0].id"])
    }

    @Test("duplicate subscription group ids")
    func duplicateGroupIDs() {
        let text = #"{"subscriptionGroups": [{"id": "g", "subscriptions": []}, {"id": "g", "subscriptions": []}]}"#
        expectInvalid(text, at: "subscriptionGroups[1].id", saying: ["duplicate subscription group id \"g\""])
    }

    @Test("non-numeric prices", arguments: [#""abc""#, #""1,99""#, #""$0.99""#, #""""#, #""1e2""#, #""0.9.9""#, "true", "[1]"])
    func nonNumericPrice(price: String) {
        expectInvalid(oneProduct(#""id": "a", "type": "consumable", "displayName": "A", "price": "# + price),
                      at: "products[0].price", saying: ["price"])
    }

    @Test("negative prices", arguments: [#""-0.99""#, "-1"])
    func negativePrice(price: String) {
        expectInvalid(oneProduct(#""id": "a", "type": "consumable", "displayName": "A", "price": "# + price),
                      at: "products[0].price", saying: ["negative"])
    }

    @Test("a bad storefront price override names the storefront")
    func badOverride() {
        expectInvalid(oneProduct(#""id": "a", "type": "consumable", "displayName": "A", "price": "1", "prices": {"GBR": "-2"}"#),
                      at: "products[0].prices.GBR", saying: ["negative"])
        expectInvalid(oneProduct(#""id": "a", "type": "consumable", "displayName": "A", "price": "1", "prices": {"GBR": "cheap"}"#),
                      at: "products[0].prices.GBR", saying: ["\"cheap\"", "not a decimal price"])
    }

    @Test("a price override for a storefront the catalog does not have")
    func unknownStorefrontOverride() {
        expectInvalid(oneProduct(#""id": "a", "type": "consumable", "displayName": "A", "price": "1", "prices": {"FRA": "1"}"#),
                      at: "products[0].prices.FRA", saying: ["\"FRA\"", "storefronts"])
    }

    @Test("bad ISO-8601 durations", arguments: ["3 months", "P", "P1H", "PT", "P0M", "1M"])
    func badDuration(duration: String) {
        expectInvalid(oneProduct(#""id": "a", "type": "nonRenewable", "displayName": "A", "price": "1", "duration": ""# + duration + #"""#),
                      at: "products[0].duration", saying: ["ISO-8601 duration", "\"\(duration)\""])
        expectInvalid(oneGroup(#"{"id": "s", "displayName": "S", "price": "1", "level": 1, "period": ""# + duration + #""}"#),
                      at: "subscriptionGroups[0].subscriptions[0].period", saying: ["ISO-8601 duration"])
        expectInvalid(oneGroup(#"{"id": "s", "displayName": "S", "price": "1", "level": 1, "period": "P1M", "introductoryOffer": {"paymentMode": "freeTrial", "period": ""# + duration + #""}}"#),
                      at: "subscriptionGroups[0].subscriptions[0].introductoryOffer.period", saying: ["ISO-8601 duration"])
    }

    @Test("a non-renewing subscription needs a duration; nothing else may have one")
    func durationPlacement() {
        expectInvalid(oneProduct(#""id": "a", "type": "nonRenewable", "displayName": "A", "price": "1""#),
                      at: "products[0]", saying: ["missing required field \"duration\""])
        expectInvalid(oneProduct(#""id": "a", "type": "consumable", "displayName": "A", "price": "1", "duration": "P1M""#),
                      at: "products[0].duration", saying: ["nonRenewable"])
    }

    @Test("subscriptions may share a level inside a group (crossgrades), ordered by level then file order")
    func repeatedLevel() throws {
        let text = oneGroup("""
            {"id": "a", "displayName": "A", "price": "1", "period": "P1M", "level": 1},
            {"id": "b", "displayName": "B", "price": "1", "period": "P1M", "level": 2},
            {"id": "c", "displayName": "C", "price": "1", "period": "P1Y", "level": 1}
            """)
        let shared = try Catalog.parse(Array(text.utf8), file: "shared.json")
        #expect(shared.group(id: "g")?.subscriptionIDs == ["a", "c", "b"])
        #expect(shared.product(id: "c")?.subscription?.level == 1)
        // The same level in two different groups is fine.
        let twoGroups = #"""
            {"subscriptionGroups": [
               {"id": "g1", "subscriptions": [{"id": "a", "displayName": "A", "price": "1", "period": "P1M", "level": 1}]},
               {"id": "g2", "subscriptions": [{"id": "b", "displayName": "B", "price": "1", "period": "P1M", "level": 1}]}]}
            """#
        #expect(throws: Never.self) { try Catalog.parse(Array(twoGroups.utf8), file: "x.json") }
    }

    @Test("a subscription level must be a whole number of 1 or more", arguments: [
        (#""1""#, "expected a whole number"), ("1.5", "expected a whole number"),
        ("0", "1 or more"), ("-1", "1 or more"),
    ])
    func badLevel(level: String, words: String) {
        expectInvalid(oneGroup(#"{"id": "s", "displayName": "S", "price": "1", "period": "P1M", "level": "# + level + "}"),
                      at: "subscriptionGroups[0].subscriptions[0].level", saying: [words])
    }

    @Test("a subscription without level or period")
    func subscriptionMissingFields() {
        expectInvalid(oneGroup(#"{"id": "s", "displayName": "S", "price": "1", "period": "P1M"}"#),
                      at: "subscriptionGroups[0].subscriptions[0]", saying: ["missing required field \"level\""])
        expectInvalid(oneGroup(#"{"id": "s", "displayName": "S", "price": "1", "level": 1}"#),
                      at: "subscriptionGroups[0].subscriptions[0]", saying: ["missing required field \"period\""])
        expectInvalid(#"{"subscriptionGroups": [{"id": "g"}]}"#,
                      at: "subscriptionGroups[0]", saying: ["missing required field \"subscriptions\""])
    }

    @Test("an unknown introductory offer payment mode, or a paid offer without price")
    func badOffer() {
        expectInvalid(oneGroup(#"{"id": "s", "displayName": "S", "price": "1", "period": "P1M", "level": 1, "introductoryOffer": {"paymentMode": "gratis", "period": "P1W"}}"#),
                      at: "subscriptionGroups[0].subscriptions[0].introductoryOffer.paymentMode",
                      saying: ["unknown payment mode", "\"gratis\"", "freeTrial"])
        expectInvalid(oneGroup(#"{"id": "s", "displayName": "S", "price": "1", "period": "P1M", "level": 1, "introductoryOffer": {"paymentMode": "payUpFront", "period": "P1W"}}"#),
                      at: "subscriptionGroups[0].subscriptions[0].introductoryOffer", saying: ["missing required field \"price\""])
        expectInvalid(oneGroup(#"{"id": "s", "displayName": "S", "price": "1", "period": "P1M", "level": 1, "introductoryOffer": {"paymentMode": "payAsYouGo", "price": "1", "period": "P1W", "periodCount": 0}}"#),
                      at: "subscriptionGroups[0].subscriptions[0].introductoryOffer.periodCount", saying: ["1 or more"])
    }

    @Test("a storefront without a currency")
    func storefrontWithoutCurrency() {
        expectInvalid(#"{"storefronts": {"USA": {"currency": "USD"}, "GBR": {"locale": "en_GB"}}}"#,
                      at: "storefronts.GBR", saying: ["\"GBR\"", "no currency"])
    }

    @Test("a malformed storefront code or currency code")
    func badStorefrontCodes() {
        expectInvalid(#"{"storefronts": {"usa": {"currency": "USD"}}}"#,
                      at: "storefronts.usa", saying: ["\"usa\"", "alpha-3"])
        expectInvalid(#"{"storefronts": {"USA": {"currency": "dollars"}}}"#,
                      at: "storefronts.USA.currency", saying: ["\"dollars\"", "ISO 4217"])
        expectInvalid(#"{"storefronts": {}}"#, at: "storefronts", saying: ["at least one"])
    }

    @Test("a default storefront that is not among the storefronts")
    func defaultStorefrontUnknown() {
        expectInvalid(#"{"storefront": "FRA", "storefronts": {"USA": {"currency": "USD"}, "GBR": {"currency": "GBP"}}}"#,
                      at: "storefront", saying: ["\"FRA\"", "USA, GBR"])
        // With no storefronts at all, only USA exists.
        expectInvalid(#"{"storefront": "DEU"}"#, at: "storefront", saying: ["\"DEU\""])
    }

    @Test("values of the wrong kind name what was found")
    func wrongKinds() {
        expectInvalid(#"{"paywall": {"features": "many"}}"#, at: "paywall.features", saying: ["expected an array", "a string"])
        expectInvalid(oneProduct(#""id": "a", "type": "consumable", "displayName": "A", "price": "1", "familyShareable": "yes""#),
                      at: "products[0].familyShareable", saying: ["true or false"])
        expectInvalid(oneProduct(#""id": "a", "type": "consumable", "displayName": "A", "price": "1", "localizations": {"de_DE": {"description": "x"}}"#),
                      at: "products[0].localizations.de_DE", saying: ["missing required field \"displayName\""])
    }

    @Test("control characters in a bad value are escaped in the message")
    func escapedValues() throws {
        let error = try #require(catalogError(oneProduct(#""id": "a", "type": "bad\u001b[31mtype", "displayName": "A", "price": "1""#)))
        #expect(!error.description.unicodeScalars.contains { $0.value < 0x20 })
        #expect(error.reason.contains(#"\u001b"#))
    }

    // The catalog is read from the document's bytes, not from a tree of it: these hold what a tree gave for free.

    @Test("a syntax error anywhere wins over a fault in the content before it")
    func syntaxBeforeContent() throws {
        // products[0] has no price, and the file is cut short after it: still malformed, at the end.
        let error = try #require(catalogError(oneProduct(#""id": "a", "type": "consumable", "displayName": "A""#) + "\n,"))
        #expect(error.kind == .malformed(line: 2, column: 1))
    }

    @Test("a duplicate key inside a product is malformed JSON, at the repeated key")
    func duplicateKeyInProduct() throws {
        let error = try #require(catalogError(oneProduct(#""id": "a", "type": "consumable", "id": "b""#)))
        #expect(error.reason.contains("duplicate key \"id\""))
        guard case .malformed(1, let column) = error.kind else { Issue.record("\(error.kind)"); return }
        // Just past what comes before it (the one-product text without its closing "}]}").
        #expect(column == oneProduct(#""id": "a", "type": "consumable", "#).count - 3 + 1)
    }

    @Test("keys written with escapes are the keys they spell")
    func escapedKeys() throws {
        let catalog = try Catalog.parse(Array(oneProduct(#""\u0069d": "a", "typ\u0065": "consumable", "displayName": "A", "price": "1""#).utf8),
                                        file: "x.json")
        #expect(catalog.product(id: "a")?.type == .consumable)
        // And a duplicate spelled differently is still a duplicate.
        let error = try #require(catalogError(oneProduct(#""id": "a", "\u0069d": "b""#)))
        #expect(error.reason.contains("duplicate key \"id\""))
    }

    @Test("a later product with Xcode's keys makes the file a .storekit one, as before")
    func storeKitKeysLater() throws {
        let text = #"{"products": [{"id": "a", "type": "consumable", "displayName": "A", "price": "1"}, "#
            + #"{"id": "b", "type": "consumable", "displayName": "B", "price": "1", "referenceName": "B"}]}"#
        // Read as .storekit: the first product has no productID.
        let error = try #require(catalogError(text))
        #expect(error.kind == .invalid(path: "products[0]"))
        #expect(error.reason.contains("productID"))
    }

    @Test("the place of a fault after escaped text and many products is exact")
    func deepPath() {
        let products = (0..<50).map { #"{"id": "p\#($0)", "type": "consumable", "displayName": "\u00c9 \"\#($0)\"", "price": "1"}"# }
        let text = #"{"products": ["# + products.joined(separator: ",")
            + #", {"id": "x", "type": "consumable", "displayName": "X", "price": "1", "localizations": {"d\u0065": {"displayName": 3}}}]}"#
        expectInvalid(text, at: "products[50].localizations.de.displayName", saying: ["expected a string", "a number"])
    }

    @Test("a locale with a bidi override or a control character is refused at its place; a plain one is read")
    func localesAreIdentifiers() throws {
        expectInvalid(#"{"storefronts": {"USA": {"currency": "USD", "locale": "en_\u202eUS"}}, "products": []}"#,
                      at: "storefronts.USA.locale", saying: ["a locale is ASCII letters", "U+202E"])
        expectInvalid(#"{"storefronts": {"USA": {"currency": "USD", "locale": "en\u001b[31m"}}, "products": []}"#,
                      at: "storefronts.USA.locale", saying: ["U+001B"])
        expectInvalid(oneProduct(#""id": "a", "type": "consumable", "displayName": "A", "price": "1", "localizations": {"de\u200f": {"displayName": "A"}}"#),
                      at: "products[0].localizations.de\u{200F}", saying: ["U+200F"])
        let plain = try Catalog.parse(Array(#"{"storefronts": {"SRB": {"currency": "RSD", "locale": "sr-Latn_RS@calendar=gregorian"}}, "products": []}"#.utf8), file: "x.json")
        #expect(plain.storefronts.first?.locale == "sr-Latn_RS@calendar=gregorian")
    }

    @Test("startingSettings: a switch is true or false, never \"yes\"; applicationInternalID is digits, never an id with an escape in it")
    func startingSettingsMeanWhatTheySay() throws {
        expectInvalid(#"{"products": [], "startingSettings": {"includeConsumablesInHistory": "yes"}}"#,
                      at: "startingSettings.includeConsumablesInHistory", saying: ["true or false", "\"yes\""])
        expectInvalid(#"{"products": [], "startingSettings": {"askToBuyEnabled": 1}}"#,
                      at: "startingSettings.askToBuyEnabled", saying: ["true or false"])
        expectInvalid(#"{"products": [], "startingSettings": {"applicationInternalID": "12\u001b34"}}"#,
                      at: "startingSettings.applicationInternalID", saying: ["digits only"])
        // As a written catalog keeps them (text), and as JSON's own.
        let kept = try Catalog.parse(Array(#"{"products": [], "startingSettings": {"includeConsumablesInHistory": "true", "askToBuyEnabled": false, "applicationInternalID": 1234567890}}"#.utf8), file: "x.json")
        #expect(kept.startingSettings == ["includeConsumablesInHistory": "true", "askToBuyEnabled": "false", "applicationInternalID": "1234567890"])
    }
}
