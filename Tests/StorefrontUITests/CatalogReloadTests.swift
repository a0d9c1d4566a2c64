import Foundation
@testable import StoreEngine
import Testing
@testable import StorefrontUI

/// A folder with a copy of the demo products.json and a store file beside it.
private struct CatalogFolder {
    let folder: URL
    var catalog: String { folder.appendingPathComponent("products.json").path }
    var store: String { folder.appendingPathComponent("store.sqlite").path }

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("catalog-reload-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try restore()
    }

    /// The demo catalog again.
    func restore() throws {
        let demo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("products.json")
        try write(String(decoding: try Data(contentsOf: demo), as: UTF8.self))
    }

    /// The catalog's JSON, changed by `edit`, written as an editor saves: a new file renamed over the old.
    func rewrite(_ edit: (inout [String: Any]) -> Void) throws {
        var json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: catalog))) as! [String: Any]
        edit(&json)
        try write(String(decoding: try JSONSerialization.data(withJSONObject: json, options: [.prettyPrinted]), as: UTF8.self))
    }

    func write(_ text: String) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: catalog), options: .atomic)
    }

    func remove() { try? FileManager.default.removeItem(at: folder) }
}

/// Adds 500 Gems and makes Nightly Rage $1.49.
private func addGemsAndRaise(_ json: inout [String: Any]) {
    var products = json["products"] as! [[String: Any]]
    products.append(["id": "com.example.gems500", "type": "consumable", "displayName": "500 Gems",
                     "description": "A bag of gems", "price": "4.99"])
    let rage = products.firstIndex { $0["id"] as? String == "com.razeware.razefaces.nightlyrage" }!
    products[rage]["price"] = "1.49"
    json["products"] = products
}

@Suite("catalog reload")
struct CatalogReloadTests {
    @Test("a changed catalog is read again once the change has settled: new products and prices, the store reopened on it")
    func reloads() async throws {
        let folder = try CatalogFolder()
        defer { folder.remove() }
        let store = try Store(catalog: try Catalog.load(contentsOf: folder.catalog), path: folder.store)
        let effects = EngineEffects(store: store, latency: .zero, catalogPath: folder.catalog)
        // The check is the catalog file's alone (the store's changes come from its change feed).
        #expect(await effects.perform(.checkForChanges) == nil, "an unchanged catalog is not read again")
        try folder.rewrite(addGemsAndRaise)
        #expect(await effects.perform(.checkForChanges) == nil, "a change is first seen, then acted on when it has settled")
        let reloaded = await effects.perform(.checkForChanges)
        #expect(reloaded == .catalogReloaded(paywall: demoCatalog.paywall, summary: "products.json reloaded: products 1 new, 1 changed"))
        guard case .loaded(let snapshot)? = await effects.perform(.load) else {
            Issue.record("the store loads on the new catalog")
            return
        }
        #expect(snapshot.products.contains { $0.id == "com.example.gems500" && $0.displayPrice == "$4.99" })
        #expect(snapshot.products.first { $0.id == "com.razeware.razefaces.nightlyrage" }?.displayPrice == "$1.49")
        #expect(effects.store.catalog.product(id: "com.example.gems500") != nil, "purchases use it too")
        #expect(effects.store.account == store.account && effects.store.path == store.path)
        #expect(await effects.perform(.checkForChanges) == nil, "read once per change")
    }

    @Test("a bad new catalog is reported once, naming file, place and fault; the catalog in use stays until a good one")
    func badCatalogKeepsTheOld() async throws {
        let folder = try CatalogFolder()
        defer { folder.remove() }
        let store = try Store(catalog: try Catalog.load(contentsOf: folder.catalog), path: folder.store)
        let effects = EngineEffects(store: store, latency: .zero, catalogPath: folder.catalog)
        try folder.write(#"{"products": [ {"id": "x", "type": "consumable" "price": "1"} ]}"#)
        _ = await effects.perform(.checkForChanges)
        guard case .catalogFailed(let message)? = await effects.perform(.checkForChanges) else {
            Issue.record("a malformed catalog is reported")
            return
        }
        #expect(message.hasPrefix("\(folder.catalog):1:"), "\(message)")
        #expect(message.contains("malformed JSON"), "\(message)")
        #expect(await effects.perform(.checkForChanges) == nil, "the same bad file is reported once")
        guard case .loaded(let snapshot)? = await effects.perform(.load) else {
            Issue.record("the store still loads")
            return
        }
        #expect(snapshot.products.map(\.id) == demoCatalog.products(in: demoCatalog.storefront("USA")!).map(\.id), "the old catalog")

        // Valid JSON, a bad value: the JSON path says where.
        try folder.restore()
        try folder.rewrite { json in
            var products = json["products"] as! [[String: Any]]
            products[0]["price"] = "free"
            json["products"] = products
        }
        _ = await effects.perform(.checkForChanges)
        guard case .catalogFailed(let invalid)? = await effects.perform(.checkForChanges) else {
            Issue.record("an invalid price is reported")
            return
        }
        #expect(invalid.contains("products[0].price"), "\(invalid)")
        // Deleted (an editor's save that has not finished): reported, the old one kept; then a good one is read.
        try FileManager.default.removeItem(atPath: folder.catalog)
        _ = await effects.perform(.checkForChanges)
        guard case .catalogFailed(let missing)? = await effects.perform(.checkForChanges) else {
            Issue.record("a deleted catalog is reported")
            return
        }
        #expect(missing.contains("no such file"), "\(missing)")
        try folder.restore()
        try folder.rewrite(addGemsAndRaise)
        _ = await effects.perform(.checkForChanges)
        guard case .catalogReloaded? = await effects.perform(.checkForChanges) else {
            Issue.record("a good catalog is read again")
            return
        }
    }

    @Test("the screen: new paywall texts and a note, then the load; a bad catalog's alert, gone when a good one comes")
    func screen() {
        var state = loadedState()
        var paywall = demoCatalog.paywall
        paywall.title = "Barcode Scanner Pro"
        #expect(update(&state, .catalogFailed("products.json:3:9: malformed JSON: unexpected '\"'")) == [])
        #expect(state.sheet == .alert(title: "Catalog Not Reloaded", message: "products.json:3:9: malformed JSON: unexpected '\"'. "
                                        + "The catalog loaded before stays in use: fix the file and save it again."))
        #expect(render(state, timeZone: utc).lines.contains { $0.contains("products.json:3:9: malformed JSON") })
        #expect(update(&state, .catalogReloaded(paywall: paywall, summary: "products.json reloaded: products 1 new")) == [.load])
        #expect(state.sheet == nil, "the file is good again")
        #expect(state.paywall.title == "Barcode Scanner Pro" && state.flash == "products.json reloaded: products 1 new")
        #expect(render(state, timeZone: utc).lines[1].contains("Barcode Scanner Pro"))
        // Over another sheet the error goes to the status line; in the manager the list is read again too.
        send(&state, .key(.character("?")), expecting: [])
        send(&state, .catalogFailed("products.json: products[0].price: not a price"), expecting: [])
        #expect(state.sheet == .help && state.flash == "Catalog not reloaded: products.json: products[0].price: not a price")
        send(&state, .key(.escape), expecting: [])
        send(&state, .key(.character("t")), expecting: [.loadHistory])
        #expect(update(&state, .catalogReloaded(paywall: paywall, summary: "x")) == [.load, .loadHistory])
    }
}
