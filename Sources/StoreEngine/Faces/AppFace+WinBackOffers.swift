import Foundation

extension AppFace {
    /// The win-back offers the account may redeem for a subscription group now, best first (StoreKit's
    /// `RenewalInfo.eligibleWinBackOfferIDs`); empty unless its subscription lapsed.
    public func eligibleWinBackOfferIDs(groupID: String) async throws -> [String] {
        try await store.eligibleWinBackOffers(groupID: groupID)
    }
}
