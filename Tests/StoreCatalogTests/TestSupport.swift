import Foundation
@testable import StoreCatalog

// A copy of the few helpers of Tests/StoreEngineTests/TestSupport.swift these tests use,
// until one TestSupport target serves every test target.

// MARK: - Dates

/// A UTC calendar, independent of the machine's time zone.
let utcCalendar: Calendar = {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: "UTC")!
    return calendar
}()

/// A date in UTC, to whole seconds (the store file keeps milliseconds, so such dates survive a round trip exactly).
func utc(_ year: Int, _ month: Int, _ day: Int, _ hour: Int = 0, _ minute: Int = 0, _ second: Int = 0) -> Date {
    utcCalendar.date(from: DateComponents(year: year, month: month, day: day, hour: hour, minute: minute, second: second))!
}

// MARK: - Temporary folders and files

/// Runs `body` with a fresh, empty folder of its own, removed afterwards.
func withTemporaryFolder<T>(_ body: (String) async throws -> T) async throws -> T {
    let folder = FileManager.default.temporaryDirectory
        .appendingPathComponent("StoreCatalogTests-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: folder) }
    return try await body(folder)
}

/// The bytes of a file, for before/after comparisons.
func fileBytes(_ path: String) throws -> [UInt8] {
    [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
}

/// The names in a folder, sorted.
func folderContents(_ folder: String) throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
}

// MARK: - Catalogs

/// The bundled demo catalog at the package root.
let bundledCatalogPath: String = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent()  // StoreCatalogTests
    .deletingLastPathComponent()  // Tests
    .deletingLastPathComponent()  // package root
    .appendingPathComponent("products.json").path

/// A small catalog with one product of each type, owned by the tests (so the
/// demo catalog can change without breaking the engine tests).
let fixtureCatalogText = """
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

func fixtureCatalog() throws -> Catalog {
    try Catalog.parse(Array(fixtureCatalogText.utf8), file: "fixture.json")
}

/// A decimal from text, never through a binary floating-point literal.
func decimal(_ text: String) -> Decimal {
    Decimal(string: text, locale: Locale(identifier: "en_US_POSIX"))!
}
