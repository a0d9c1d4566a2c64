import Foundation
// Not StoreEngine: its Product and Transaction would hide StoreKit's.
import StorefrontKit
import StorefrontKitTest

/// Goal 13: an app's StoreKit test as Swift Testing runs it — a session made from the
/// products.json file, `Product.products(for:)`, `purchase()`, `finish()`, the session ended —
/// beside the engine alone doing the same on a fresh store file (``EngineBenchmarks/freshPurchase``);
/// once, and 2,000 at once in a task group, as a parallel test run of an app's suite does.
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
}

extension TestSessionBenchmark {
    /// Figures 13 and 13a on the repository's products.json (in the current folder), buying its first
    /// non-consumable; the engine's baseline on the same file, a durable store in the temporary folder
    /// (the sessions' stores are in memory when the machine has a roomy /dev/shm: `SessionFolder`).
    static func figures(progress: (String) -> Void) async throws -> [Figure] {
        let catalogPath = FileManager.default.currentDirectoryPath + "/products.json"
        guard let productID = EngineBenchmarks.firstNonConsumable(catalogPath: catalogPath) else {
            throw Failure(description: "no products.json with a non-consumable in \(FileManager.default.currentDirectoryPath)")
        }
        let url = URL(fileURLWithPath: catalogPath), folder = FileManager.default.temporaryDirectory.path
        progress("13. SKTestSession tests (session, products, purchase, finish) beside the engine alone: 50 one by one, 2,000 at once (the engine 200), 3 rounds")
        var sessions: [Duration] = [], engines: [Duration] = [], sessionGroups: [Duration] = [], engineGroups: [Duration] = []
        let aTest: @Sendable () async throws -> Void = { try await oneTest(catalog: url, productID: productID) }
        let theEngine: @Sendable () async throws -> Void = {
            try await EngineBenchmarks.freshPurchase(catalogPath: catalogPath, productID: productID, folder: folder)
        }
        for round in 0..<3 {
            sessions += try await EngineBenchmarks.timed(50, parallel: false, aTest)
            engines += try await EngineBenchmarks.timed(50, parallel: false, theEngine)
            sessionGroups += try await EngineBenchmarks.timed(2_000, parallel: true, aTest)
            // The engine's durable files, 200 at once and once: 2,000 would wait minutes for the disk.
            if round == 0 { engineGroups += try await EngineBenchmarks.timed(200, parallel: true, theEngine) }
        }
        let one = median(sessions), engine = median(engines), group = median(sessionGroups), engineGroup = median(engineGroups)
        return [
            Figure(number: "13", measure: "An SKTestSession test (session, products, purchase, finish, end), median",
                   value: milliseconds(one), baseline: "limit 3 ms; engine alone " + milliseconds(engine),
                   ratio: one.milliseconds / 3, goal: "≤ 1.00", met: one.milliseconds <= 3),
            Figure(number: "13a", measure: "2,000 such tests at once (one task group)",
                   value: String(format: "%.2f s", group.seconds),
                   baseline: String(format: "limit 4 s; engine alone, 200 at once, %.2f s", engineGroup.seconds),
                   ratio: group.seconds / 4, goal: "≤ 1.00", met: group.seconds <= 4),
        ]
    }
}
