import Foundation
import StoreEngine

/// The catalogs and purchase histories the benchmark makes for itself.
/// Deterministic (no randomness), so every run measures the same data.
enum SyntheticData {
    private static let adjectives = ["Gold", "Silver", "Mega", "Tiny", "Epic", "Daily", "Royal", "Swift", "Lucky", "Cosmic"]
    private static let nouns = ["Gem Pack", "Coin Bundle", "Theme", "Sticker Set", "Level Pack", "Avatar",
                                "Soundtrack", "Map Pack", "Booster", "Pass"]
    private static let prices = ["0.99", "1.99", "2.99", "4.99", "9.99", "19.99", "49.99", "99.99"]

    /// Subscriptions per group: each level of a group is one product.
    static let levelsPerGroup = 10

    /// A product's display name: varied lengths, as real catalogs have.
    static func displayName(_ index: Int) -> String {
        "\(adjectives[index % adjectives.count]) \(nouns[(index / adjectives.count) % nouns.count]) \(index + 1)"
    }

    /// A products.json with `count` products: 10% auto-renewable subscriptions
    /// (groups of ten levels), 40% non-consumables, 40% consumables, 10% non-renewing.
    static func catalogJSON(products count: Int) -> String {
        let subscriptions = count / 10
        let nonConsumables = count * 4 / 10
        let consumables = count * 4 / 10
        var products: [String] = []
        var groups: [String] = []
        func product(_ index: Int, _ type: String, extra: String = "") -> String {
            #"{"id":"com.bench.p\#(index)","type":"\#(type)","displayName":"\#(displayName(index))","#
                + #""description":"Synthetic product \#(index + 1)","price":"\#(prices[index % prices.count])"\#(extra)}"#
        }
        var index = 0
        for group in 0..<(subscriptions / levelsPerGroup) {
            var members: [String] = []
            for level in 1...levelsPerGroup {
                members.append(#"{"id":"com.bench.p\#(index)","displayName":"\#(displayName(index))","#
                               + #""price":"\#(prices[index % prices.count])","period":"P1Y","level":\#(level)}"#)
                index += 1
            }
            groups.append(#"{"id":"group\#(group)","displayName":"Plan \#(group + 1)","subscriptions":[\#(members.joined(separator: ","))]}"#)
        }
        for _ in 0..<nonConsumables { products.append(product(index, "nonConsumable")); index += 1 }
        for _ in 0..<consumables { products.append(product(index, "consumable")); index += 1 }
        while index < count { products.append(product(index, "nonRenewable", extra: #","duration":"P1Y""#)); index += 1 }
        return """
            {"paywall":{"title":"Benchmark Store","subtitle":"\(count) synthetic products",\
            "features":["No ads","Cloud sync","Every level"]},
            "products":[\n\(products.joined(separator: ",\n"))],
            "subscriptionGroups":[\n\(groups.joined(separator: ",\n"))]}
            """
    }

    /// Writes the catalog to `path` and returns it as the engine reads it.
    static func writeCatalog(products count: Int, to path: String) throws -> Catalog {
        try catalogJSON(products: count).write(toFile: path, atomically: true, encoding: .utf8)
        return try Catalog.load(contentsOf: path)
    }

    /// Product ids to buy, in order, for a history of `count` transactions: 500
    /// non-consumables once each, ten plan changes in each of the first 100
    /// subscription groups (each upgrade marks the one before), 200 non-renewing
    /// subscriptions, and consumables for the rest, spread over every consumable.
    /// Owned at the end: 500 + 100 + 200 = 800 entitlements, in a history of `count` rows.
    static func history(_ catalog: Catalog, transactions count: Int) -> [String] {
        let byType = Dictionary(grouping: catalog.products, by: \.type).mapValues { $0.map(\.id) }
        let nonConsumables = Array((byType[.nonConsumable] ?? []).prefix(500))
        let subscriptions = Array((byType[.autoRenewable] ?? []).prefix(100 * levelsPerGroup))
        let nonRenewables = Array((byType[.nonRenewable] ?? []).prefix(200))
        let consumables = byType[.consumable] ?? []
        var special = nonConsumables + subscriptions + nonRenewables
        let consumableCount = max(0, count - special.count)
        var ids: [String] = []
        ids.reserveCapacity(count)
        // Spread the non-consumable purchases evenly through the consumable ones.
        let every = max(1, consumableCount / max(1, special.count))
        special.reverse()
        for offset in 0..<consumableCount {
            if offset % every == 0, let next = special.popLast() { ids.append(next) }
            ids.append(consumables[(offset * 7919) % consumables.count])
        }
        ids += special.reversed()
        return Array(ids.prefix(count))
    }

    /// A store file for `catalog` whose default account has a history of `count` transactions,
    /// made in one SQLite transaction by the engine's bulk seeding (consumables written
    /// directly, signed on every core; everything else through the purchase rules).
    static func seedStore(_ catalog: Catalog, transactions count: Int, at path: String) async throws -> Int {
        for suffix in ["", "-wal", "-shm", "-journal"] { unlink(path + suffix) }
        let ids = history(catalog, transactions: count)
        // Oldest first, a minute apart, ending now: the subscriptions (one year) are all active.
        let start = Date().addingTimeInterval(-60 * Double(ids.count))
        let store = try Store(catalog: catalog, path: path)
        return try await store.seedPurchasesForBenchmarks(ids, from: start, interval: 60)
    }
}
