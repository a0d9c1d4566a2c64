import Foundation
import StoreEngine

/// Measurements of the engine in this process: catalog load, restore and entitlements.
enum EngineBenchmarks {
    /// `Catalog.load` (read, parse, validate) of the file at `path`, once per run.
    static func catalogLoad(_ path: String, runs: Int) throws -> [Duration] {
        _ = try Catalog.load(contentsOf: path)  // warm the file cache and the code
        return try (0..<runs).map { _ in
            let start = ContinuousClock.now
            _ = try Catalog.load(contentsOf: path)
            return ContinuousClock.now - start
        }
    }

    /// Restore (`sync()`) followed by `currentEntitlements()`, each run on a newly
    /// opened store, as a new process would (no signature checked before).
    static func restore(_ catalog: Catalog, storePath: String, runs: Int) async throws -> (times: [Duration], entitlements: Int) {
        var times: [Duration] = []
        var entitlements = 0
        for _ in 0..<runs {
            let store = try Store(catalog: catalog, path: storePath)
            let start = ContinuousClock.now
            _ = try await store.app.sync()
            entitlements = try await store.app.currentEntitlements().count
            times.append(ContinuousClock.now - start)
        }
        return (times, entitlements)
    }
}

extension EngineBenchmarks {
    /// The id of the first non-consumable of the catalog file at `catalogPath`; nil when there is none or it does not load.
    static func firstNonConsumable(catalogPath: String) -> String? {
        (try? Catalog.load(contentsOf: catalogPath))?.products.first { $0.type == .nonConsumable }?.id
    }

    /// The baseline of goal 13: what a test session asks of the engine, without StorefrontKit — the
    /// catalog file loaded, a store file made in a new folder, the products read, one purchase
    /// (durable) and its finish, the folder removed.
    static func freshPurchase(catalogPath: String, productID: String, folder: String) async throws {
        let catalog = try Catalog.load(contentsOf: catalogPath)
        let directory = folder + "/engine-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try Store(catalog: catalog, path: directory + "/store.sqlite")
        _ = try await store.app.products()
        guard case .purchased(let transaction, _) = try await store.app.purchase(productID) else {
            throw PseudoTerminal.Failure(description: "the engine's purchase of \(productID) did not succeed")
        }
        try await store.app.finish(transaction)
    }

    /// `count` runs of `body` one after another, each timed (the first, which warms the code and the
    /// files, not counted); or with `parallel`, all at once as child tasks of one group, timed as a whole.
    static func timed(_ count: Int, parallel: Bool, _ body: @escaping @Sendable () async throws -> Void) async throws -> [Duration] {
        if parallel {
            let start = ContinuousClock.now
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<count { group.addTask { try await body() } }
                try await group.waitForAll()
            }
            return [ContinuousClock.now - start]
        }
        try await body()
        var times: [Duration] = []
        for _ in 0..<count {
            let start = ContinuousClock.now
            try await body()
            times.append(ContinuousClock.now - start)
        }
        return times
    }
}
