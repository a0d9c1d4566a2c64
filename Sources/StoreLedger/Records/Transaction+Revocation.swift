import Foundation

/// What kind of revocation a revoked transaction carries (`revocationType`, `revocationPercentage`),
/// decided from what the row keeps: who owns it, when it was revoked, its period.
extension Transaction {
    /// Apple's `revocationType`.
    public enum RevocationType: String, Sendable, Hashable, CaseIterable {
        /// The whole purchase was refunded.
        case refundFull = "REFUND_FULL"
        /// Part of it was refunded: ``Transaction/revocationPercentage``.
        case refundProrated = "REFUND_PRORATED"
        /// A family member's access ended (the purchaser's refund, or Family Sharing stopped): nothing refunded.
        case familyRevoke = "FAMILY_REVOKE"
    }

    /// The whole, in Apple's milliunits of a percent (100%).
    public static let fullRevocation = 100_000

    /// `revocationType`; nil unless revoked.
    public var revocationType: RevocationType? {
        guard revocationDate != nil else { return nil }
        if ownershipType == .familyShared { return .familyRevoke }
        return revocationPercentage == Self.fullRevocation ? .refundFull : .refundProrated
    }

    /// `revocationPercentage` in milliunits (40% is 40000), for a refunded purchase; nil otherwise (a
    /// family member's revocation refunds nothing): the share the refund chose (``refundPercentage``).
    /// A refund made before the share was kept has the one it was signed with: an auto-renewable
    /// subscription's share of its period left at the refund, anything else the whole.
    public var revocationPercentage: Int? {
        guard let revoked = revocationDate, ownershipType == .purchased else { return nil }
        if let refundPercentage { return refundPercentage }
        return remainingShare(at: revoked)
    }

    /// An auto-renewable subscription's share of its period left at `revoked`, in milliunits rounded
    /// as Apple rounds (three decimals of a percent), as Apple bases a prorated refund ("based on time
    /// remaining"); anything else, and a period refunded before it began or after it ended, the whole.
    public func remainingShare(at revoked: Date) -> Int {
        guard productType == .autoRenewable, let end = expirationDate, revoked > purchaseDate, revoked < end else {
            return Self.fullRevocation
        }
        let share = end.timeIntervalSince(revoked) / end.timeIntervalSince(purchaseDate)
        return min(Self.fullRevocation, max(0, Int((share * Double(Self.fullRevocation)).rounded())))
    }
}
