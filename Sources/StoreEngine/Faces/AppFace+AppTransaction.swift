import Foundation

extension AppFace {
    /// The account's app transaction (`AppTransaction.shared`): signed with the store's chain.
    public func appTransaction() async throws -> AppTransaction { try await store.appTransaction() }
}
