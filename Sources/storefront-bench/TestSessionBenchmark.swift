import Foundation
// Not StoreEngine: its Product and Transaction would hide StoreKit's.
import StorefrontKit
import StorefrontKitTest

/// Goal 13: an app's StoreKit test as Swift Testing runs it — a session made from the
/// products.json file, `Product.products(for:)`, `purchase()`, `finish()`, the session ended —
/// beside the engine alone doing the same on a fresh store file (``EngineBenchmarks/freshPurchase``);
/// once, and 200 at once in a task group, as a parallel test run does.
enum TestSessionBenchmark {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// One test: the session lives from its creation to the end of this call (its file removed).
    static func oneTest(catalog: URL, productID: String) async throws {
        let session = try SKTestSession(contentsOf: catalog)
        try await session.run {
            guard let product = try await Product.products(for: [productID]).first else {
                throw Failure(description: "no product \(productID) in the session")
            }
            guard case .success(.verified(let transaction)) = try await product.purchase() else {
                throw Failure(description: "the session's purchase of \(productID) did not succeed")
            }
            await transaction.finish()
        }
    }

    /// `count` tests one after another (the first not counted: it warms the code and the catalog file).
    static func serial(catalog: URL, productID: String, count: Int) async throws -> [Duration] {
        try await oneTest(catalog: catalog, productID: productID)
        var times: [Duration] = []
        for _ in 0..<count {
            let start = ContinuousClock.now
            try await oneTest(catalog: catalog, productID: productID)
            times.append(ContinuousClock.now - start)
        }
        return times
    }

    /// `count` tests at once, each a child task of one group: the group's whole time.
    static func parallel(catalog: URL, productID: String, count: Int) async throws -> Duration {
        let start = ContinuousClock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<count {
                group.addTask { try await oneTest(catalog: catalog, productID: productID) }
            }
            try await group.waitForAll()
        }
        return ContinuousClock.now - start
    }
}

extension TestSessionBenchmark {
    /// Figures 13 and 13a on the repository's products.json (in the current folder), buying its first
    /// non-consumable; the engine's baseline on the same file, in the same temporary folder as the sessions'.
    static func figures(progress: (String) -> Void) async throws -> [Figure] {
        let catalogPath = FileManager.default.currentDirectoryPath + "/products.json"
        guard let productID = EngineBenchmarks.firstNonConsumable(catalogPath: catalogPath) else {
            throw Failure(description: "no products.json with a non-consumable in \(FileManager.default.currentDirectoryPath)")
        }
        let url = URL(fileURLWithPath: catalogPath), folder = FileManager.default.temporaryDirectory.path
        progress("13. SKTestSession tests (session, products, purchase, finish) beside the engine alone: 50 one by one, 200 at once, 3 rounds")
        var sessions: [Duration] = [], engines: [Duration] = [], sessionGroups: [Duration] = [], engineGroups: [Duration] = []
        for _ in 0..<3 {
            sessions += try await serial(catalog: url, productID: productID, count: 50)
            engines += try await EngineBenchmarks.freshPurchases(catalogPath: catalogPath, productID: productID, folder: folder,
                                                                 count: 50, parallel: false)
            sessionGroups.append(try await parallel(catalog: url, productID: productID, count: 200))
            engineGroups += try await EngineBenchmarks.freshPurchases(catalogPath: catalogPath, productID: productID, folder: folder,
                                                                      count: 200, parallel: true)
        }
        let one = median(sessions), engine = median(engines), group = median(sessionGroups), engineGroup = median(engineGroups)
        return [
            Figure(number: "13", measure: "An SKTestSession test (session, products, purchase, finish, end), median",
                   value: milliseconds(one), baseline: "limit 10 ms; engine alone " + milliseconds(engine),
                   ratio: one.milliseconds / 10, goal: "≤ 1.00", met: one.milliseconds <= 10),
            Figure(number: "13a", measure: "200 such tests at once (one task group)",
                   value: String(format: "%.2f s", group.seconds),
                   baseline: String(format: "limit 3 s; engine alone %.2f s", engineGroup.seconds),
                   ratio: group.seconds / 3, goal: "≤ 1.00", met: group.seconds <= 3),
        ]
    }
}
