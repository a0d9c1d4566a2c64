import Foundation

extension AppStoreFace {
    /// Redeems an offer code for this account, as the App Store's redeem sheet does: the
    /// transaction reaches the app as an update.
    public func redeemOfferCode(_ code: String) async throws -> PurchaseOutcome { try await store.redeemOfferCode(code) }
}
