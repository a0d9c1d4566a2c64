import Foundation

extension TestSessionFace {
    /// The simulated conditions a purchase meets now, read from the settings alone: no App Store call,
    /// so it answers while `offline` or `loadProductsError` make loading the products fail.
    public func purchaseConditions() async throws -> PurchaseConditions { try await store.readPurchaseConditions() }
}

extension Store {
    /// ``purchaseConditions()`` in a read of its own.
    func readPurchaseConditions() throws -> PurchaseConditions {
        try ledger.read { try purchaseConditions() }
    }
}
