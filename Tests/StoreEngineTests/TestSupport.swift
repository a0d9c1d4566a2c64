import Foundation
import Synchronization
import Testing
// Every file of the test target sees TestSupport (clock, folders, processes, tmux).
@_exported import TestSupport
@testable import StoreEngine

// MARK: - A clock the tests move (TestSupport's `TestClock`)

extension TestClock {
    /// Moves time forward by a calendar duration.
    func advance(_ duration: ISODuration) {
        set(duration.after(now))
    }
}

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
let bundledCatalogPath: String = Repository.catalog

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

/// The instant the fixture stores start at: January 31, so month arithmetic is interesting.
let fixtureStart = utc(2025, 1, 31, 12)

/// A temporary store file with the fixture catalog and a test clock.
struct StoreFixture {
    let folder: String
    let path: String
    let catalog: Catalog
    let clock: TestClock

    /// A new `Store` on the fixture's file (as a new process would open it).
    func open(account: String = Store.defaultAccount) throws -> Store {
        try Store(catalog: catalog, path: path, account: account, now: clock.closure)
    }
}

/// Runs `body` with a store file in a fresh folder, removed afterwards.
func withStoreFixture<T>(_ body: (StoreFixture) async throws -> T) async throws -> T {
    try await withTemporaryFolder { folder in
        let fixture = StoreFixture(folder: folder, path: folder + "/store.sqlite",
                                   catalog: try fixtureCatalog(), clock: TestClock(fixtureStart))
        return try await body(fixture)
    }
}

/// The transaction of a successful purchase; fails the test for any other result.
func transaction(of result: PurchaseResult, sourceLocation: SourceLocation = #_sourceLocation) throws -> Transaction {
    guard case .success(let transaction) = result else {
        Issue.record("expected success, got \(result.name)", sourceLocation: sourceLocation)
        throw TestFailure.unexpectedResult
    }
    return transaction
}

/// The transaction of a purchase that succeeded (purchased, owned already, or a change scheduled).
func transaction(of outcome: PurchaseOutcome, sourceLocation: SourceLocation = #_sourceLocation) throws -> Transaction {
    try transaction(of: outcome.result, sourceLocation: sourceLocation)
}

enum TestFailure: Error {
    case unexpectedResult
}

/// Buys `productID` and returns the transaction.
func buy(_ store: Store, _ productID: String, quantity: Int = 1,
         sourceLocation: SourceLocation = #_sourceLocation) async throws -> Transaction {
    try transaction(of: try await store.purchase(productID, quantity: quantity), sourceLocation: sourceLocation)
}

/// A decimal from text, never through a binary floating-point literal.
func decimal(_ text: String) -> Decimal {
    Decimal(string: text, locale: Locale(identifier: "en_US_POSIX"))!
}

/// A fresh promotional offer signature for the store's account, as the app's server makes it,
/// with the key `TESTKEY` (made on first use).
func signedOffer(_ store: Store, _ productID: String, _ offerID: String, appAccountToken: UUID? = nil,
                 form: PromotionalOfferSignature.Form = .compactJWS) async throws -> PromotionalOfferSignature {
    if try await !store.appStore.offerKeys().contains(where: { $0.keyID == "TESTKEY" }) {
        _ = try await store.appStore.createOfferKey(keyID: "TESTKEY")
    }
    return try await store.appStore.signPromotionalOffer(productID: productID, offerID: offerID, keyID: "TESTKEY",
                                                         appAccountToken: appAccountToken, form: form)
}
