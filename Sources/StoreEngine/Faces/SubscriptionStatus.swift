import Foundation

/// One subscription group's status: `Product.SubscriptionInfo.Status`.
public struct SubscriptionStatus: Sendable, Hashable {
    public var groupID: String
    public var state: RenewalState
    /// The subscription's newest transaction.
    public var transaction: Transaction
    public var renewalInfo: RenewalInfo

    /// The plan a waiting downgrade or crossgrade starts at the next renewal: the renewal info's
    /// `autoRenewPreference` while the subscription is live and renews to another plan; nil when
    /// nothing renews to it (auto-renew off, expired, in billing retry, refunded). The paywall's
    /// row ("Until …, then changes") and `status`'s "next:" both say this.
    public var nextProductID: String? {
        guard state == .subscribed || state == .inGracePeriod, renewalInfo.willAutoRenew,
              renewalInfo.autoRenewPreference != transaction.productID else { return nil }
        return renewalInfo.autoRenewPreference
    }
}
