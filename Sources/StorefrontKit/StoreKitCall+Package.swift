import Foundation

/// Runs an engine call for StorefrontKitTest, throwing StoreKit's errors instead of the engine's,
/// as StorefrontKit's own calls do.
package func packageStoreKitCall<T>(_ work: () async throws -> T) async throws -> T {
    try await storeKitCall(work)
}
