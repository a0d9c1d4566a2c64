extension AppFace {
    /// Checks a signed Advanced Commerce API in-app request for a purchase of `productID` as the App
    /// Store does, and uses its nonce up (StoreKit's `AdvancedCommerceProduct.purchase(compactJWS:…)`).
    /// Throws ``AdvancedCommerceRequestFault`` naming Apple's error.
    public func checkAdvancedCommerceRequest(_ compactJWS: String, productID: String) async throws -> AdvancedCommerceRequest {
        try await store.checkAdvancedCommerceRequest(compactJWS, productID: productID)
    }
}
