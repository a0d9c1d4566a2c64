import Foundation

/// One subscription group's status: `Product.SubscriptionInfo.Status`.
public struct SubscriptionStatus: Sendable, Hashable {
    public var groupID: String
    public var state: RenewalState
    /// The subscription's newest transaction.
    public var transaction: Transaction
    public var renewalInfo: RenewalInfo
}
