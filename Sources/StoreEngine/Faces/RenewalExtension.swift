import Foundation

/// What extending a subscription's renewal date did (`ExtendRenewalDateResponse`).
public struct RenewalExtension: Sendable {
    public var originalTransactionID: Int64
    public var webOrderLineItemID: String
    public var effectiveDate: Date
}

/// Why the App Store would not extend a subscription.
public enum ExtensionError: Error, Sendable {
    /// Not active (expired, revoked) or not an auto-renewable subscription.
    case ineligible
    /// More than the yearly maximum of extensions.
    case maximumReached
}
