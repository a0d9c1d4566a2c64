import Foundation

extension AppStoreFace {
    /// Changes a subscription's price in the current storefront, as App Store Connect does (see `price-increase`).
    public func changePrice(_ productID: String, to price: Decimal, requireConsent: Bool = false) async throws -> PriceChange {
        try await store.changePrice(productID, to: price, requireConsent: requireConsent)
    }

    /// The price changes made, and the increases this account's subscriptions wait for.
    public func priceIncreases() async throws -> (changes: [PriceChange], waiting: [PriceIncrease]) {
        try await store.priceIncreases()
    }

    /// The customer agrees to the price increase of their subscription of `productID` (the consent sheet's Agree).
    @discardableResult
    public func consentToPriceIncrease(_ productID: String) async throws -> PriceIncrease {
        try await store.consentToPriceIncrease(productID)
    }

    /// The customer declines it: as Xcode, auto-renew goes off and the subscription ends at the period's end.
    public func declinePriceIncrease(_ productID: String) async throws { try await store.declinePriceIncrease(productID) }
}
