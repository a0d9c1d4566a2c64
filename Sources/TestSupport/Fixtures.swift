import Foundation

// MARK: - Dates

/// A UTC calendar, independent of the machine's time zone.
public let utcCalendar: Calendar = {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: "UTC")!
    return calendar
}()

/// A date in UTC, to whole seconds (the store file keeps milliseconds, so such dates survive a round trip exactly).
public func utc(_ year: Int, _ month: Int, _ day: Int, _ hour: Int = 0, _ minute: Int = 0, _ second: Int = 0) -> Date {
    utcCalendar.date(from: DateComponents(year: year, month: month, day: day, hour: hour, minute: minute, second: second))!
}

// MARK: - Files

/// The bytes of a file, for before/after comparisons.
public func fileBytes(_ path: String) throws -> [UInt8] {
    [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
}

/// The names in a folder, sorted.
public func folderContents(_ folder: String) throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
}

// MARK: - Catalogs

/// The bundled demo catalog at the package root.
public let bundledCatalogPath: String = Repository.catalog

/// A small catalog with one product of each type, owned by the tests (so the
/// demo catalog can change without breaking them): each test target parses it with its own reader.
public let fixtureCatalogText = """
    {
      "paywall": { "title": "Fixture", "subtitle": "For tests", "features": ["one", "two"] },
      "storefront": "USA",
      "storefronts": {
        "USA": { "currency": "USD", "locale": "en_US" },
        "GBR": { "currency": "GBP", "locale": "en_GB" },
        "DEU": { "currency": "EUR", "locale": "de_DE" },
        "JPN": { "currency": "JPY", "locale": "ja_JP" }
      },
      "subscriptionGroups": [
        { "id": "premium", "displayName": "Premium",
          "subscriptions": [
            { "id": "sub.monthly", "displayName": "Monthly", "description": "Billed monthly",
              "price": "4.99", "prices": { "DEU": "5.49", "JPN": "700" },
              "period": "P1M", "level": 2,
              "introductoryOffer": { "paymentMode": "freeTrial", "period": "P1W" } },
            { "id": "sub.yearly", "displayName": "Yearly", "description": "Billed yearly",
              "price": "39.99", "prices": { "DEU": "44.99" },
              "period": "P1Y", "level": 1 }
          ] }
      ],
      "products": [
        { "id": "pro", "type": "nonConsumable", "displayName": "Go Pro", "description": "Unlock pro",
          "price": "0.99", "prices": { "JPN": "160" },
          "localizations": { "de_DE": { "displayName": "Pro freischalten", "description": "Pro-Funktionen" } } },
        { "id": "faces", "type": "nonConsumable", "displayName": "Faces", "price": "1.99" },
        { "id": "coins", "type": "consumable", "displayName": "100 Coins", "description": "A pouch",
          "price": "0.99", "prices": { "JPN": "160" } },
        { "id": "pass", "type": "nonRenewable", "displayName": "Season Pass", "description": "Three months",
          "price": "9.99", "duration": "P3M" }
      ]
    }
    """

/// A `.storekit` file with starting settings of its own (Ask to Buy on), for the starting-settings tests.
public let askToBuyStoreKitText = """
    {
      "identifier" : "5A6B7C8D",
      "nonRenewingSubscriptions" : [],
      "products" : [
        { "displayPrice" : "1.99", "familyShareable" : false, "internalID" : "1",
          "localizations" : [ { "description" : "The whole thing", "displayName" : "Unlock", "locale" : "en_US" } ],
          "productID" : "com.example.shop.unlock", "referenceName" : "Unlock", "type" : "NonConsumable" }
      ],
      "settings" : { "_storefront" : "USA", "_locale" : "en_US", "_askToBuyEnabled" : true, "_timeRate" : 0 },
      "subscriptionGroups" : [],
      "version" : { "major" : 3, "minor" : 0 }
    }
    """
