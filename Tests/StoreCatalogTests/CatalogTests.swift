import Foundation
import Testing
@testable import StoreCatalog

@Suite("Catalog: the bundled products.json")
struct BundledCatalogTests {
    let catalog: Catalog

    init() throws {
        catalog = try Catalog.load(contentsOf: bundledCatalogPath)
    }

    @Test("every product type is present")
    func everyType() {
        #expect(Set(catalog.products.map(\.type)) == Set(ProductType.allCases))
    }

    @Test("the products the seeds name are there")
    func seedProducts() throws {
        let shopping = try #require(catalog.product(id: "com.razeware.razefaces.swiftshopping"))
        #expect(shopping.type == .nonConsumable)
        #expect(shopping.displayName == "Swift Shopping")
        #expect(shopping.price == decimal("0.99"))
        let goPro = try #require(catalog.product(id: "com.CephalopodStudio.PurchasePro.GoPro"))
        #expect(goPro.type == .nonConsumable)
        let month = try #require(catalog.product(id: "barcode_month_subscription"))
        let year = try #require(catalog.product(id: "barcode_year_subscription"))
        #expect(month.type == .autoRenewable)
        #expect(year.type == .autoRenewable)
        #expect(month.subscription?.groupID == year.subscription?.groupID)
        #expect(month.subscription?.period == ISODuration(months: 1))
        #expect(year.subscription?.period == ISODuration(years: 1))
    }

    @Test("the subscription group lists its subscriptions by level, highest tier first")
    func groupOrder() throws {
        let group = try #require(catalog.subscriptionGroups.first)
        let levels = try group.subscriptionIDs.map { try #require(catalog.product(id: $0)?.subscription?.level) }
        #expect(levels == levels.sorted())
        #expect(levels.first == 1)
        #expect(Set(group.subscriptionIDs) == ["barcode_month_subscription", "barcode_year_subscription", "barcode_quarter_subscription"])
    }

    @Test("display order: subscriptions, then non-consumables, consumables, non-renewing")
    func displayOrder() {
        let rank: [ProductType: Int] = [.autoRenewable: 0, .nonConsumable: 1, .consumable: 2, .nonRenewable: 3]
        let ranks = catalog.products.map { rank[$0.type]! }
        #expect(ranks == ranks.sorted())
        // Non-consumables keep their file order.
        let nonConsumables = catalog.products.filter { $0.type == .nonConsumable }.map(\.id)
        #expect(nonConsumables.first == "com.razeware.razefaces.swiftshopping")
    }

    @Test("prices are written as each storefront's locale writes them")
    func localizedPrices() throws {
        func displayPrice(_ id: String, _ code: String) throws -> String {
            let storefront = try #require(catalog.storefront(code))
            return catalog.product(from: try #require(catalog.product(id: id)), in: storefront).displayPrice
        }
        let shopping = "com.razeware.razefaces.swiftshopping"
        #expect(try displayPrice(shopping, "USA") == "$0.99")
        #expect(try displayPrice(shopping, "GBR") == "£0.99")
        #expect(try displayPrice(shopping, "DEU") == "0,99\u{A0}€")  // a no-break space before the euro sign
        #expect(try displayPrice(shopping, "JPN") == "\u{A5}160")     // the JPN override, no decimals
        #expect(try displayPrice("com.example.storefront.seasonpass", "GBR") == "£8.99")  // GBR override
        #expect(try displayPrice("barcode_year_subscription", "JPN") == "\u{A5}5,900")
    }

    @Test("the currency of a product follows the storefront")
    func currency() throws {
        let products = catalog.products(in: try #require(catalog.storefront("DEU")))
        #expect(products.allSatisfy { $0.currencyCode == "EUR" })
        #expect(products.map(\.id) == catalog.products.map(\.id))
        let goPro = try #require(products.first { $0.id == "com.CephalopodStudio.PurchasePro.GoPro" })
        #expect(goPro.displayName == "Pro freischalten")  // the de_DE localization
        let shopping = try #require(products.first { $0.id == "com.razeware.razefaces.swiftshopping" })
        #expect(shopping.displayName == "Swift Shopping")  // no localization: the base text
    }
}

@Suite("Catalog: reading and localizing")
struct CatalogReadingTests {
    @Test("the fixture catalog reads every field")
    func fields() throws {
        let catalog = try fixtureCatalog()
        #expect(catalog.paywall == Paywall(title: "Fixture", subtitle: "For tests", features: ["one", "two"]))
        #expect(catalog.defaultStorefront == "USA")
        #expect(catalog.storefronts.map(\.countryCode) == ["USA", "GBR", "DEU", "JPN"])
        #expect(catalog.storefront("DEU") == Storefront(countryCode: "DEU", currency: "EUR", locale: "de_DE"))
        #expect(catalog.products.map(\.id) == ["sub.yearly", "sub.monthly", "pro", "faces", "coins", "pass"])

        let monthly = try #require(catalog.product(id: "sub.monthly"))
        let terms = try #require(monthly.subscription)
        #expect(terms.groupID == "premium")
        #expect(terms.level == 2)
        #expect(terms.period == ISODuration(months: 1))
        let offer = try #require(terms.introductoryOffer)
        #expect(offer.paymentMode == .freeTrial)
        #expect(offer.period == ISODuration(weeks: 1))
        #expect(offer.price == 0)
        #expect(offer.periodCount == 1)
        #expect(monthly.prices == ["DEU": decimal("5.49"), "JPN": decimal("700")])

        let pass = try #require(catalog.product(id: "pass"))
        #expect(pass.duration == ISODuration(months: 3))
        #expect(pass.subscription == nil)
        #expect(try #require(catalog.product(id: "pro")).duration == nil)
        #expect(catalog.group(id: "premium")?.subscriptionIDs == ["sub.yearly", "sub.monthly"])
        #expect(catalog.product(id: "nope") == nil)
    }

    @Test("a product as a storefront shows it")
    func productInStorefront() throws {
        let catalog = try fixtureCatalog()
        let monthly = catalog.product(from: try #require(catalog.product(id: "sub.monthly")),
                                      in: try #require(catalog.storefront("DEU")))
        #expect(monthly.price == decimal("5.49"))
        #expect(monthly.displayPrice == "5,49\u{A0}€")
        #expect(monthly.currencyCode == "EUR")
        #expect(monthly.subscription?.groupDisplayName == "Premium")
        #expect(monthly.subscription?.introductoryOffer?.displayPrice == "0,00\u{A0}€")
        #expect(monthly.kindLabel == "1 month")
        let pass = catalog.product(from: try #require(catalog.product(id: "pass")),
                                   in: try #require(catalog.storefront("USA")))
        #expect(pass.kindLabel == "Non-renewing 3 months")
        #expect(pass.nonRenewingDuration == ISODuration(months: 3))
    }

    @Test("a price written as a JSON number is read from its exact text")
    func numberPrice() throws {
        let catalog = try Catalog.parse(Array(#"{"products": [{"id": "a", "type": "consumable", "displayName": "A", "price": 0.1}]}"#.utf8), file: "x.json")
        let price = try #require(catalog.product(id: "a")).price
        #expect(price == decimal("0.1"))
        #expect(price * 3 == decimal("0.3"))
    }

    @Test("without storefronts the catalog sells in the United States")
    func defaultStorefront() throws {
        let catalog = try Catalog.parse(Array(#"{"products": []}"#.utf8), file: "x.json")
        #expect(catalog.storefronts == [.unitedStates])
        #expect(catalog.defaultStorefront == "USA")
        #expect(catalog.paywall == Paywall())
        #expect(catalog.products.isEmpty)
    }

    @Test("the first storefront is the default when none is named")
    func firstStorefrontIsDefault() throws {
        let text = #"{"storefronts": {"JPN": {"currency": "JPY", "locale": "ja_JP"}, "USA": {"currency": "USD"}}}"#
        let catalog = try Catalog.parse(Array(text.utf8), file: "x.json")
        #expect(catalog.defaultStorefront == "JPN")
        #expect(catalog.storefront("USA")?.locale == "en_US")
    }

    static func product(localizations: [String: Localization]) -> CatalogProduct {
        CatalogProduct(id: "p", type: .nonConsumable, displayName: "Base", description: "Base text",
                       price: 1, prices: [:], localizations: localizations, duration: nil, subscription: nil,
                       familyShareable: false)
    }

    @Test("localization: the exact locale first")
    func exactLocale() {
        let product = Self.product(localizations: [
            "de": Localization(displayName: "Deutsch", description: ""),
            "de_CH": Localization(displayName: "Schweiz", description: ""),
        ])
        #expect(product.localization(for: "de_CH").displayName == "Schweiz")
        #expect(product.localization(for: "de-CH").displayName == "Schweiz")  // BCP 47 spelling too
        #expect(product.localization(for: "de_DE").displayName == "Deutsch")
    }

    @Test("localization: then the language")
    func languageFallback() {
        let product = Self.product(localizations: ["de": Localization(displayName: "Deutsch", description: "Text")])
        #expect(product.localization(for: "de_DE") == Localization(displayName: "Deutsch", description: "Text"))
        #expect(product.localization(for: "de_AT").displayName == "Deutsch")
        #expect(product.localization(for: "de").displayName == "Deutsch")
        let regional = Self.product(localizations: ["de_DE": Localization(displayName: "Deutschland", description: "")])
        #expect(regional.localization(for: "de_AT").displayName == "Deutschland")  // same language, other region
        #expect(regional.localization(for: "de").displayName == "Deutschland")
    }

    @Test("localization: among other regions of the language, always the same one")
    func otherRegionIsDeterministic() {
        // Dictionary order changes from one process to the next; the choice must not.
        let keys = ["de_LU", "de_DE", "de_CH", "de_BE", "de_LI"]
        for _ in 0..<20 {
            var localizations: [String: Localization] = [:]
            for key in keys.shuffled() { localizations[key] = Localization(displayName: key, description: "") }
            #expect(Self.product(localizations: localizations).localization(for: "de_AT").displayName == "de_BE")
        }
    }

    @Test("localization: then the base text")
    func baseFallback() {
        let product = Self.product(localizations: ["de_DE": Localization(displayName: "Deutsch", description: "")])
        #expect(product.localization(for: "en_US") == Localization(displayName: "Base", description: "Base text"))
        #expect(product.localization(for: "ja_JP").displayName == "Base")
        // "d" is no language prefix of "de".
        #expect(product.localization(for: "d").displayName == "Base")
    }
}

@Suite("Money")
struct MoneyTests {
    @Test("display prices per storefront", arguments: [
        ("USD", "en_US", "0.99", "$0.99"),
        ("GBP", "en_GB", "0.99", "£0.99"),
        ("EUR", "de_DE", "0.99", "0,99\u{A0}€"),
        ("EUR", "de_DE", "1234.5", "1.234,50\u{A0}€"),
        ("JPY", "ja_JP", "160", "\u{A5}160"),
        ("USD", "en_US", "0", "$0.00"),
    ])
    func displayPrice(currency: String, locale: String, price: String, expected: String) {
        let storefront = Storefront(countryCode: "XXX", currency: currency, locale: locale)
        #expect(storefront.displayPrice(decimal(price)) == expected)
    }
}
