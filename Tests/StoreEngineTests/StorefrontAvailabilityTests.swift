import Foundation
import Testing
@testable import StoreEngine

// Products offered in some storefronts only, in the engine.

/// The fixture catalog with `faces` offered in `availability` only.
private func catalogWithAvailability(_ availability: String) -> String {
    fixtureCatalogText.replacingOccurrences(
        of: #"{ "id": "faces", "type": "nonConsumable", "displayName": "Faces", "price": "1.99" }"#,
        with: #"{ "id": "faces", "type": "nonConsumable", "displayName": "Faces", "price": "1.99", "prices": { "GBR": "1.49" }, "availability": "#
            + availability + " }")
}

@Suite("Store: storefront availability")
struct StorefrontAvailabilityTests {
    @Test("a product offered in USA and GBR: listed and sold there, not listed and notAvailableInStorefront elsewhere")
    func availability() async throws {
        try await withTemporaryFolder { folder in
            let text = catalogWithAvailability(#"["USA", "GBR"]"#)
            #expect(text != fixtureCatalogText)
            let catalog = try Catalog.parse(Array(text.utf8), file: "x.json")
            #expect(catalog.product(id: "faces")?.availableStorefronts == ["USA", "GBR"])
            #expect(catalog.product(id: "pro")?.availableStorefronts == nil)
            let clock = TestClock(fixtureStart)
            let store = try Store(catalog: catalog, path: folder + "/store.sqlite", now: clock.closure)

            #expect(try await store.products().contains { $0.id == "faces" })
            try await store.setSetting("storefront", to: "deu")
            let german = try await store.products().map(\.id)
            #expect(!german.contains("faces"))
            #expect(german.contains("pro"))
            #expect(german.count == 5)
            let unavailable = StoreError.notAvailableInStorefront(productID: "faces", storefront: "DEU")
            await #expect(throws: unavailable) { try await store.purchase("faces") }
            await #expect(throws: unavailable) { try await store.purchase("faces", choice: .succeed) }
            await #expect(throws: unavailable) { try await store.purchaseOutsideApp("faces") }
            #expect(unavailable.domain == "StoreKitError")
            #expect(try await store.transactions().isEmpty)
            #expect(try await store.events().last?.state == .failed)

            try await store.setSetting("storefront", to: "GBR")
            #expect(try await store.products().first { $0.id == "faces" }?.price == decimal("1.49"))
            let bought = try await buy(store, "faces")
            #expect(bought.currency == "GBP")
            #expect(bought.price == decimal("1.49"))
        }
    }

    @Test("availability survives conversion to products.json")
    func written() throws {
        let catalog = try Catalog.parse(Array(catalogWithAvailability(#"["GBR"]"#).utf8), file: "x.json")
        let document = catalog.productsJSON().document.serialized()
        let reread = try Catalog.parse(Array(document.utf8), file: "y.json")
        #expect(reread.product(id: "faces")?.availableStorefronts == ["GBR"])
        #expect(reread.product(id: "pro")?.availableStorefronts == nil)
    }

    @Test("an empty list, an unknown storefront or a non-string is a catalog error at its JSON path", arguments: [
        (#"[]"#, "products[1].availability", "empty"),
        (#"["USA", "FRA"]"#, "products[1].availability[1]", "FRA"),
        (#"["usa"]"#, "products[1].availability[0]", "usa"),
        (#"[1]"#, "products[1].availability[0]", "string"),
        (#""USA""#, "products[1].availability", "array"),
    ])
    func invalid(availability: String, path: String, word: String) throws {
        do {
            _ = try Catalog.parse(Array(catalogWithAvailability(availability).utf8), file: "x.json")
            Issue.record("the catalog loaded")
        } catch {
            #expect(error.kind == .invalid(path: path), "\(error)")
            #expect(error.reason.contains(word), "\(error)")
        }
    }
}
