import Foundation
import Testing

/// `storefront products`, run as a separate process: JSON with StoreKit 2's
/// names, the human table, storefront prices, catalog text as data.
@Suite("products (process)")
struct ProductsCommandTests {
    @Test func jsonUsesStoreKitNamesAndListsTheBundledCatalog() async throws {
        let sandbox = try Sandbox()
        let run = try await sandbox.storefront("products", "--json")
        run.expect(exit: 0)
        #expect(run.stderr.isEmpty, "\(run)")
        let document = try run.jsonObject()

        let storefront = try #require(document["storefront"] as? [String: Any])
        #expect(storefront["countryCode"] as? String == "USA")
        #expect(storefront["currency"] as? String == "USD")
        #expect(document["canMakePayments"] as? Bool == true)

        let products = document.objects("products")
        let byID = Dictionary(products.map { ($0["id"] as? String ?? "?", $0) }, uniquingKeysWith: { a, _ in a })
        #expect(Set(byID.keys) == Set(Demo.types.keys))
        #expect(products.count == Demo.types.count)
        for (id, type) in Demo.types {
            let product = try #require(byID[id], "\(id) missing")
            #expect(product["type"] as? String == type, "\(id)")
            #expect((product["displayName"] as? String)?.isEmpty == false, "\(id)")
            #expect(product["description"] is String, "\(id)")
            // price is an exact decimal string, never a binary float.
            let price = try #require(product["price"] as? String, "\(id): price is not a string")
            #expect(Decimal(string: price) != nil, "\(id): \(price)")
            #expect((product["displayPrice"] as? String)?.hasPrefix("$") == true, "\(id)")
        }

        let shopping = try #require(byID[Demo.swiftShopping])
        #expect(shopping["displayName"] as? String == "Swift Shopping")
        #expect(shopping["price"] as? String == "0.99")
        #expect(shopping["displayPrice"] as? String == "$0.99")
        #expect(shopping["owned"] as? Bool == false)
        #expect(byID[Demo.coins]?["balance"] as? Int == 0)
        #expect(byID[Demo.coins]?["owned"] == nil, "a consumable is never owned")
        let monthly = try #require(byID[Demo.monthly]?["subscription"] as? [String: Any])
        #expect(monthly["subscriptionGroupID"] as? String == "premium")
        #expect(monthly["subscriptionPeriod"] as? String == "P1M")
        #expect((monthly["introductoryOffer"] as? [String: Any])?["paymentMode"] as? String == "freeTrial")
        #expect(byID[Demo.swiftShopping]?["subscription"] == nil)
    }

    @Test func humanOutputIsAnAlignedTable() async throws {
        let sandbox = try Sandbox()
        let run = try await sandbox.storefront("products")
        run.expect(exit: 0)
        let lines = run.stdout.split(separator: "\n").map(String.init)
        let header = try #require(lines.first { $0.hasPrefix("PRODUCT ID") }, "\(run)")
        let row = try #require(lines.first { $0.contains("Swift Shopping") }, "\(run)")
        #expect(row.contains("$0.99"))
        #expect(row.hasPrefix(Demo.swiftShopping))

        // Every column's cells start where its header does (all ASCII in the USA storefront).
        func column(_ text: String, in line: String) -> Int? {
            line.range(of: text).map { line.distance(from: line.startIndex, to: $0.lowerBound) }
        }
        #expect(column("Swift Shopping", in: row) == column("NAME", in: header))
        #expect(column("$0.99", in: row) == column("PRICE", in: header))
        let seasonRow = try #require(lines.first { $0.hasPrefix(Demo.seasonPass) })
        #expect(column("$9.99", in: seasonRow) == column("PRICE", in: header))
        let coinsRow = try #require(lines.first { $0.hasPrefix(Demo.coins) })
        #expect(column("Balance", in: coinsRow) == column("STATUS", in: header))
        // One row per product.
        for id in Demo.types.keys {
            #expect(lines.filter { $0.hasPrefix(id + " ") }.count == 1, "\(id)")
        }
    }

    @Test func germanStorefrontShowsEuroPricesAsFoundationFormatsThem() async throws {
        let sandbox = try Sandbox()
        let set = try await sandbox.storefront("settings", "set", "storefront", "DEU")
        set.expect(exit: 0)
        #expect(set.stdout.contains("DEU"))

        let expected = Decimal(string: "0.99")!.formatted(.currency(code: "EUR").locale(Locale(identifier: "de_DE")))
        #expect(expected.contains("0,99") && expected.contains("€"), "Foundation wrote \(expected)")

        let json = try await sandbox.storefront("products", "--json")
        json.expect(exit: 0)
        let document = try json.jsonObject()
        let storefront = try #require(document["storefront"] as? [String: Any])
        #expect(storefront["countryCode"] as? String == "DEU")
        #expect(storefront["currency"] as? String == "EUR")
        let products = document.objects("products")
        let shopping = try #require(products.first("id", Demo.swiftShopping))
        #expect(shopping["displayPrice"] as? String == expected)
        #expect(shopping["currencyCode"] as? String == "EUR")
        #expect(shopping["price"] as? String == "0.99")
        // Localized names follow the storefront's locale; others fall back to the base text.
        #expect(products.first("id", Demo.goPro)?["displayName"] as? String == "Pro freischalten")
        #expect(products.first("id", Demo.swiftShopping)?["displayName"] as? String == "Swift Shopping")

        let table = try await sandbox.storefront("products")
        table.expect(exit: 0)
        let row = try #require(table.stdout.split(separator: "\n").first { $0.contains("Swift Shopping") })
        #expect(row.contains(expected), "\(table)")
        #expect(!table.stdout.contains("$"), "no dollar prices left:\n\(table)")

        // A purchase is charged in the storefront's currency.
        let buy = try await sandbox.storefront("buy", Demo.swiftShopping, "--json")
        buy.expect(exit: 0)
        let transaction = try #require(try buy.jsonObject()["transaction"] as? [String: Any])
        #expect(transaction["currency"] as? String == "EUR")
        #expect(transaction["storefront"] as? String == "DEU")
    }

    @Test func japaneseStorefrontUsesItsOwnPriceTier() async throws {
        let sandbox = try Sandbox()
        try await sandbox.storefront("settings", "set", "storefront", "jpn").expect(exit: 0)
        let run = try await sandbox.storefront("products", "--json")
        run.expect(exit: 0)
        let shopping = try #require(try run.jsonObject().objects("products").first("id", Demo.swiftShopping))
        let expected = Decimal(160).formatted(.currency(code: "JPY").locale(Locale(identifier: "ja_JP")))
        #expect(shopping["price"] as? String == "160")
        #expect(shopping["displayPrice"] as? String == expected)
        #expect(shopping["currencyCode"] as? String == "JPY")
    }

    @Test func anUnknownStorefrontIsRefusedAndNamesTheChoices() async throws {
        let sandbox = try Sandbox()
        let run = try await sandbox.storefront("settings", "set", "storefront", "FRA")
        run.expect(exit: 64)
        #expect(run.stdout.isEmpty)
        #expect(run.stderr.contains("FRA") && run.stderr.contains("DEU") && run.stderr.contains("USA"), "\(run)")
        let after = try await sandbox.storefront("products", "--json")
        #expect((try after.jsonObject()["storefront"] as? [String: Any])?["countryCode"] as? String == "USA")
    }

    @Test func escapeCharactersFromTheCatalogNeverReachTheTerminalRaw() async throws {
        let sandbox = try Sandbox()
        let catalog = try sandbox.write("evil.json", Demo.catalog(displayNameJSON: "Evil\\u001b[2J\\u001b[31mRed"))

        let table = try await sandbox.storefront("products", catalog: catalog)
        table.expect(exit: 0)
        #expect(!table.stdoutBytes.contains(0x1B), "raw ESC in the table:\n\(table)")
        #expect(table.stdout.contains("Evil\\e[2J\\e[31mRed"), "\(table)")

        let buy = try await sandbox.storefront("buy", "com.example.one", catalog: catalog)
        buy.expect(exit: 0)
        #expect(!buy.stdoutBytes.contains(0x1B), "\(buy)")
        #expect(buy.stdout.contains("Evil\\e[2J"), "\(buy)")

        // JSON keeps the exact text, escaped as JSON escapes it.
        let json = try await sandbox.storefront("products", "--json", catalog: catalog)
        json.expect(exit: 0)
        #expect(!json.stdoutBytes.contains(0x1B))
        let product = try #require(try json.jsonObject().objects("products").first)
        #expect(product["displayName"] as? String == "Evil\u{1B}[2J\u{1B}[31mRed")
    }

    @Test func anAccountNameWithEscapesIsShownEscaped() async throws {
        let sandbox = try Sandbox()
        for command in [["products"], ["transactions"], ["entitlements"]] {
            let run = try await sandbox.storefront(["--account", "qa\u{1B}]0;pwned\u{07}"] + command)
            run.expect(exit: 0)
            #expect(!run.stdoutBytes.contains(0x1B) && !run.stdoutBytes.contains(0x07), "\(run)")
            #expect(run.stdout.contains("qa\\e]0;pwned"), "\(run)")
        }
    }

    @Test func wideCharactersKeepTheTableAligned() async throws {
        let sandbox = try Sandbox()
        let catalog = try sandbox.write("wide.json", Demo.catalog(product: """
            { "id": "a.wide", "type": "nonConsumable", "displayName": "日本語の名前", "price": "1.99" },
            { "id": "b.narrow", "type": "nonConsumable", "displayName": "Plain", "price": "2.99" }
            """))
        let run = try await sandbox.storefront("products", catalog: catalog)
        run.expect(exit: 0)
        let lines = run.stdout.split(separator: "\n").map(String.init)
        let wide = try #require(lines.first { $0.hasPrefix("a.wide") })
        let narrow = try #require(lines.first { $0.hasPrefix("b.narrow") })
        // Each CJK character takes two terminal columns: measure columns before the price.
        func columns(before text: String, in line: String) -> Int? {
            guard let range = line.range(of: text) else { return nil }
            return line[..<range.lowerBound].unicodeScalars.reduce(0) {
                $0 + (($1.value >= 0x3000 && $1.value <= 0x9FFF) ? 2 : 1)
            }
        }
        #expect(columns(before: "$1.99", in: wide) == columns(before: "$2.99", in: narrow), "\(run)")
    }
}
