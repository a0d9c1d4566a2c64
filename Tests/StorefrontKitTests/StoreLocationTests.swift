import Foundation
import Testing
@testable import StorefrontKit

/// Where StorefrontKit finds its catalog: the engine's one rule, as the CLI's.
@Suite struct StoreLocationTests {
    @Test func aMacCopysHiddenStoreKitFileBesideTheCatalogIsSkipped() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("kit-location-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let storeKit = """
            { "identifier" : "5A6B7C8D", "nonRenewingSubscriptions" : [],
              "products" : [ { "displayPrice" : "1.99", "familyShareable" : false, "internalID" : "1",
                "localizations" : [ { "description" : "All", "displayName" : "Unlock", "locale" : "en_US" } ],
                "productID" : "com.example.shop.unlock", "referenceName" : "Unlock", "type" : "NonConsumable" } ],
              "settings" : { "_storefront" : "USA", "_locale" : "en_US" }, "subscriptionGroups" : [],
              "version" : { "major" : 3, "minor" : 0 } }
            """
        try Data(storeKit.utf8).write(to: URL(fileURLWithPath: folder + "/Shop.storekit"))
        // AppleDouble metadata, as a copy from a Mac leaves it: not JSON, not a catalog.
        try Data([0x00, 0x05, 0x16, 0x07, 0x00, 0x02, 0x00, 0x00]).write(to: URL(fileURLWithPath: folder + "/._Shop.storekit"))
        let context = try StorefrontKit.open(catalog: nil, store: folder + "/store.sqlite", account: nil, folder: folder)
        #expect(context.store.catalog.products.map(\.id) == ["com.example.shop.unlock"])
    }

    /// An app configured with only a store gets the catalog the store last ran with (the paywall's,
    /// the CLI's), as the CLI's second terminal does.
    @Test func aStoreAloneOpensWithTheCatalogItLastRanWith() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("kit-last-catalog-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder + "/elsewhere", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = folder + "/store.sqlite"
        _ = try StorefrontKit.open(catalog: catalogURL.path, store: store, account: nil)
        let context = try StorefrontKit.open(catalog: nil, store: store, account: nil, folder: folder + "/elsewhere")
        let products = try await StoreContext.$current.withValue(context) { try await Product.products(for: [ID.goPro]) }
        #expect(products.map(\.id) == [ID.goPro])
    }
}
