import Foundation

/// A subscription's renewal information, as StoreKit 2's
/// `Product.SubscriptionInfo.RenewalInfo`, signed like a transaction.
public struct RenewalInfo: Sendable, Hashable {
    public var originalTransactionID: Int64
    /// The subscription active now.
    public var currentProductID: String
    /// The subscription that renews at the next period end.
    public var autoRenewPreference: String
    public var willAutoRenew: Bool
    /// When the next renewal is due: the current period's end.
    public var renewalDate: Date?
    public var recentSubscriptionStartDate: Date
    public var environment: Transaction.AppStoreEnvironment
    public var currency: String
    public var renewalPrice: Decimal
    /// Why it expired, once it has (`expirationReason`).
    public var expirationReason: ExpirationReason? = nil
    /// Whether the App Store is retrying a failed renewal.
    public var isInBillingRetry = false
    /// The end of the billing grace period, while in it.
    public var gracePeriodExpirationDate: Date? = nil
    /// The token the app set on the purchase (`appAccountToken`), if any.
    public var appAccountToken: UUID? = nil
    /// The account's `appTransactionId` (see ``AppTransactionID``).
    public var appTransactionID: String? = nil
    public var jwsRepresentation: String?

    /// The JWS payload, with the names of Apple's `JWSRenewalInfoDecodedPayload`.
    public func signedPayload(signedDate: Date) -> JSON {
        .object([
            "originalTransactionId": .string(String(originalTransactionID)),
            "productId": .string(currentProductID),
            "autoRenewProductId": .string(autoRenewPreference),
            "autoRenewStatus": .integer(willAutoRenew ? 1 : 0),
            "renewalDate": renewalDate.map { .integer($0.milliseconds) },
            "recentSubscriptionStartDate": .integer(recentSubscriptionStartDate.milliseconds),
            "signedDate": .integer(signedDate.milliseconds),
            "environment": .string(environment.appStoreName),
            "currency": .string(currency),
            "renewalPrice": .integer(NSDecimalNumber(decimal: renewalPrice * 1000).int64Value),
            "expirationIntent": expirationReason.map { .integer($0.appStoreCode) },
            "isInBillingRetryPeriod": isInBillingRetry ? .bool(true) : nil,
            "gracePeriodExpiresDate": gracePeriodExpirationDate.map { .integer($0.milliseconds) },
            "appAccountToken": appAccountToken.map { .string($0.uuidString.lowercased()) },
            "appTransactionId": appTransactionID.map { .string($0) },
        ])
    }
}
