import Foundation
import Testing
@testable import StoreEngine

/// The catalog rule's last step (`Store+CatalogFile.swift`): a store opened with no catalog named
/// and none in the folder opens with the one it last ran with, kept in the store.
@Suite struct StoreLocationLastCatalogTests {
    /// A shop folder with the fixture catalog as products.json, an empty folder and a store path.
    private func layout(_ folder: String) throws -> (shop: String, elsewhere: String, store: String, catalog: String) {
        let shop = folder + "/shop", elsewhere = folder + "/elsewhere"
        for place in [shop, elsewhere] { try FileManager.default.createDirectory(atPath: place, withIntermediateDirectories: true) }
        try fixtureCatalogText.write(toFile: shop + "/products.json", atomically: true, encoding: .utf8)
        return (shop, elsewhere, folder + "/store.sqlite", shop + "/products.json")
    }

    private func open(_ store: String, from folder: String) throws(StoreOpeningError) -> (store: Store, catalog: StoreLocation.CatalogFinding) {
        try StoreLocation.find(store: store, environment: [:], folder: folder).open()
    }

    @Test func anotherFolderWithOnlyTheStoreUsesTheCatalogTheStoreLastRanWith() async throws {
        try await withTemporaryFolder { folder in
            let (shop, elsewhere, store, catalog) = try layout(folder)
            let first = try open(store, from: shop)
            #expect(first.catalog == .file(path: catalog, reason: .productsJSON))
            let second = try open(store, from: elsewhere)
            #expect(second.catalog == .file(path: catalog, reason: .lastRan))
            #expect(second.store.catalog.products.map(\.id) == first.store.catalog.products.map(\.id))
            // Kept in the store, not beside it.
            #expect(try Ledger(path: store).setting(Store.catalogFileSetting, account: "") == catalog)
            #expect(!FileManager.default.fileExists(atPath: store + ".catalog"))
            // A store that never ran with one says so, and is not made for nothing.
            #expect(throws: StoreOpeningError.noCatalog(folder: elsewhere, gone: nil)) { try open(folder + "/other.sqlite", from: elsewhere) }
            #expect(!FileManager.default.fileExists(atPath: folder + "/other.sqlite"))
        }
    }

    @Test func theSameCatalogOpeningTheStoreAgainWritesNothing() async throws {
        try await withTemporaryFolder { folder in
            let (shop, elsewhere, store, _) = try layout(folder)
            let first = try open(store, from: shop)
            let version = try await first.store.testSession.dataVersion()
            _ = try open(store, from: shop)
            _ = try open(store, from: elsewhere)
            #expect(try await first.store.testSession.dataVersion() == version)
        }
    }

    /// `reset all` empties the store but keeps the catalog it runs with: a second terminal in
    /// another folder still opens it (it forgot it, and said there was no catalog).
    @Test func resetAllKeepsTheCatalogTheStoreRunsWith() async throws {
        try await withTemporaryFolder { folder in
            let (shop, elsewhere, store, catalog) = try layout(folder)
            let first = try open(store, from: shop)
            try await first.store.testSession.setSetting("storefront", to: "GBR")
            try await first.store.reset(.all)
            #expect(try Ledger(path: store).setting(Store.catalogFileSetting, account: "") == catalog)
            let second = try open(store, from: elsewhere)
            #expect(second.catalog == .file(path: catalog, reason: .lastRan))
            // Every other setting is gone.
            let storefront = try await second.store.testSession.settings().first { $0.name == "storefront" }
            #expect(storefront?.isDefault == true && storefront?.value != "GBR", "\(String(describing: storefront))")
        }
    }

    @Test func aCatalogNamedIsTheOneRememberedNext() async throws {
        try await withTemporaryFolder { folder in
            let (shop, elsewhere, store, _) = try layout(folder)
            _ = try open(store, from: shop)
            // Named relative to the current folder: kept absolute.
            let other = shop + "/../other.json"
            try fixtureCatalogText.write(toFile: folder + "/other.json", atomically: true, encoding: .utf8)
            _ = try StoreLocation.find(catalog: other, store: store, environment: [:], folder: elsewhere).open()
            #expect(try open(store, from: elsewhere).catalog == .file(path: folder + "/other.json", reason: .lastRan))
        }
    }

    @Test func anOldStoresSideFileIsHonouredRecordedInTheStoreAndLeft() async throws {
        try await withTemporaryFolder { folder in
            let (_, elsewhere, store, catalog) = try layout(folder)
            // An old store: made with the catalog, which it kept beside it, not in it.
            _ = try Store(catalog: try fixtureCatalog(), path: store)
            try (catalog + "\n").write(toFile: store + ".catalog", atomically: true, encoding: .utf8)
            #expect(try open(store, from: elsewhere).catalog == .file(path: catalog, reason: .lastRan))
            #expect(try Ledger(path: store).setting(Store.catalogFileSetting, account: "") == catalog)
            #expect(FileManager.default.fileExists(atPath: store + ".catalog"), "a user's file is never deleted silently")
        }
    }

    @Test func aRememberedCatalogThatIsGoneOrMalformedIsNamed() async throws {
        try await withTemporaryFolder { folder in
            let (shop, elsewhere, store, catalog) = try layout(folder)
            _ = try open(store, from: shop)
            try "{ \"products\": [".write(toFile: catalog, atomically: true, encoding: .utf8)
            do throws(StoreOpeningError) {
                _ = try open(store, from: elsewhere)
                Issue.record("a malformed catalog opened")
            } catch {
                guard case .catalog(let failure) = error, case .malformed = failure.kind else { Issue.record("\(error)"); return }
                #expect(failure.file == catalog)
            }
            try FileManager.default.removeItem(atPath: catalog)
            #expect(throws: StoreOpeningError.noCatalog(folder: elsewhere, gone: catalog)) { try open(store, from: elsewhere) }
        }
    }

    @Test func aStoreInPostgreSQLRemembersNoHostsPath() throws {
        // Not even connected to: a path is one host's, and the store may be shared by several.
        let address = "postgresql://storefront@127.0.0.1:1/none"
        #expect(throws: StoreOpeningError.noCatalog(folder: "/nonexistent", gone: nil)) {
            try StoreLocation.find(store: address, environment: [:], folder: "/nonexistent").open()
        }
    }

    @Test func aCommandThatNeedsNoCatalogOpensWithoutTheRememberedOne() async throws {
        try await withTemporaryFolder { folder in
            let (shop, elsewhere, store, _) = try layout(folder)
            _ = try open(store, from: shop)
            let opened = try StoreLocation.find(store: store, environment: [:], folder: elsewhere).open(needsCatalog: false)
            #expect(opened.store.catalog.isAbsent)
            #expect(opened.catalog == .none(folder: elsewhere))
        }
    }
}
