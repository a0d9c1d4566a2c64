import Foundation

extension AppStoreFace {
    /// A transaction of any account in the store file, verified; nil when there is none of that id.
    public func transaction(anyAccountID id: Int64) async throws -> Transaction? { try await store.anyTransaction(id: id) }
}
