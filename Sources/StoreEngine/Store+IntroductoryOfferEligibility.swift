extension Store {
    /// The app's server's answer to whether the purchase under way takes the introductory offer
    /// (StoreKit's `PurchaseOption.introductoryOfferEligibility(compactJWS:)`), bound for that
    /// purchase's task; nil: the store's own rule (the account never subscribed in the group).
    @TaskLocal public static var introductoryOfferEligibility: Bool?
}
