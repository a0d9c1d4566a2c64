import Foundation

extension TestSessionFace {
    /// Xcode's `requestPriceIncreaseConsentForTransaction`: a pending increase needing consent for the
    /// transaction's subscription, due at its next renewal, and the consent message.
    public func requestPriceIncreaseConsent(transactionID: Int64) async throws {
        try await store.requestPriceIncreaseConsent(transactionID: transactionID)
    }
}
