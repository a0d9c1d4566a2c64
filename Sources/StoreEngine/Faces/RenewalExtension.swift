import Foundation

/// What extending a subscription's renewal date did (`ExtendRenewalDateResponse`).
public struct RenewalExtension: Sendable {
    public var originalTransactionID: Int64
    public var webOrderLineItemID: String
    public var effectiveDate: Date
}

/// Why the App Store would not extend a subscription.
public enum ExtensionError: Error, Sendable {
    /// Not active (expired, revoked, in billing retry), in a free offer period, or not an
    /// auto-renewable subscription (`SubscriptionExtensionIneligibleError`, 4030004).
    case ineligible
    /// Extended twice within the past 365 days already (`SubscriptionMaxExtensionError`, 4030005).
    case maximumReached
    /// A family member's subscription through Family Sharing: only the purchaser's is extended, and
    /// the members' with it (`FamilySharedSubscriptionExtensionIneligibleError`, 4030007).
    case familyShared
}
