import Foundation
import Testing
import StorefrontCLI

/// Product ids of the bundled products.json, and small catalogs written by tests.
enum Demo {
    static let swiftShopping = "com.razeware.razefaces.swiftshopping"
    static let iPhoneRage = "com.razeware.razefaces.iphonerage"
    static let nightlyRage = "com.razeware.razefaces.nightlyrage"
    static let goPro = "com.CephalopodStudio.PurchasePro.GoPro"
    static let coins = "com.example.storefront.coins100"
    static let seasonPass = "com.example.storefront.seasonpass"
    static let monthly = "barcode_month_subscription"
    static let yearly = "barcode_year_subscription"
    /// At level 2 beside `monthly`: moving between the two is a crossgrade.
    static let quarterly = "barcode_quarter_subscription"

    /// Every product of the bundled catalog, with its type.
    static let types: [String: String] = [
        swiftShopping: "nonConsumable", iPhoneRage: "nonConsumable", nightlyRage: "nonConsumable",
        goPro: "nonConsumable", coins: "consumable", seasonPass: "nonRenewable",
        monthly: "autoRenewable", yearly: "autoRenewable", quarterly: "autoRenewable",
    ]

    /// A one-product catalog whose product has this JSON text as its body.
    static func catalog(product: String) -> String {
        """
        {
          "storefront": "USA",
          "storefronts": { "USA": { "currency": "USD", "locale": "en_US" } },
          "products": [
            \(product)
          ]
        }
        """
    }

    /// A valid one-product catalog with this display name (JSON-escaped by the caller).
    static func catalog(displayNameJSON: String) -> String {
        catalog(product: """
            { "id": "com.example.one", "type": "nonConsumable", "displayName": "\(displayNameJSON)", "price": "1.99" }
            """)
    }
}

extension [String: Any] {
    /// The array of objects under `key`, or empty.
    func objects(_ key: String) -> [[String: Any]] {
        self[key] as? [[String: Any]] ?? []
    }
}

extension Array where Element == [String: Any] {
    /// The element whose `key` is `value`.
    func first(_ key: String, _ value: String) -> [String: Any]? {
        first { $0[key] as? String == value }
    }
}

/// The usage error `arguments` must give; records an issue (and returns nil) when they parse.
func expectUsageError(_ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) -> UsageError? {
    do {
        let invocation = try Invocation.parse(arguments)
        Issue.record("expected a usage error for \(arguments), got \(invocation.command)", sourceLocation: sourceLocation)
        return nil
    } catch {
        return error
    }
}
