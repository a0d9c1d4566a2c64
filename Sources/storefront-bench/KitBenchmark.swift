import Foundation
// Not StoreEngine: its Product and Transaction would hide StoreKit's.
import StorefrontKit

/// Goal 9: what an app's StoreKit code pays at launch, through StorefrontKit — the products
/// it sells (`Product.products(for:)`) and a full `Transaction.currentEntitlements` loop —
/// beside the engine's restore on the same store file.
enum KitBenchmark {
    /// Each run opens the store anew (`StorefrontKit.configure`, not timed), as a launching app would.
    static func launch(catalogPath: String, productIDs: [String], storePath: String, runs: Int) async throws
        -> (times: [Duration], products: Int, entitlements: Int) {
        var times: [Duration] = []
        var (products, entitlements) = (0, 0)
        for _ in 0..<runs {
            try StorefrontKit.configure(catalog: catalogPath, store: storePath)
            let start = ContinuousClock.now
            products = try await Product.products(for: productIDs).count
            entitlements = 0
            for await result in Transaction.currentEntitlements {
                if case .verified = result { entitlements += 1 }
            }
            times.append(ContinuousClock.now - start)
        }
        return (times, products, entitlements)
    }
}
