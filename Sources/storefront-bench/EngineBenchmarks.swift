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
