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
    /// When the newest period ends (Apple's `renewalDate`): the next renewal while subscribed,
    /// and still that date once expired, in billing retry or revoked.
    public var renewalDate: Date?
    public var recentSubscriptionStartDate: Date
    public var environment: Transaction.AppStoreEnvironment
    public var currency: String
    /// What the next renewal charges: the offer's price while an offer runs or waits for it.
    public var renewalPrice: Decimal
    /// The offer the next renewal takes (`offerType`), if any: a pay-as-you-go offer
    /// still running, or a promotional offer bought during the subscription.
    public var offerType: Transaction.OfferType? = nil
    /// That offer's id (`offerIdentifier`), for a promotional offer.
    public var offerID: String? = nil
    /// How that offer is paid (`offerDiscountType`).
    public var offerPaymentMode: PaymentMode? = nil
    /// That offer's whole length (`offerPeriod`).
    public var offerPeriod: ISODuration? = nil
    /// Why it expired, once it has, or ``ExpirationReason/billingError`` while a renewal that
    /// failed to bill is retried (grace period included), as Apple's `expirationIntent`.
    public var expirationReason: ExpirationReason? = nil
    /// Whether the App Store is retrying a failed renewal.
    public var isInBillingRetry = false
    /// The end of the billing grace period, while in it.
    public var gracePeriodExpirationDate: Date? = nil
    /// The token the app set on the purchase (`appAccountToken`), if any.
    public var appAccountToken: UUID? = nil
    /// The account's `appTransactionId` (see ``AppTransactionID``).
    public var appTransactionID: String? = nil
    /// Whether a price increase waits for the subscription (`priceIncreaseStatus`: 0 pending, 1 agreed).
    public var priceIncreaseStatus = PriceIncreaseStatus.noIncreasePending
    /// The win-back offers the customer may redeem, best first (`eligibleWinBackOfferIds`), once it lapsed.
    public var eligibleWinBackOfferIDs: [String] = []
    /// How the next renewal is billed (`renewalBillingPlanType`); set for a subscription that has a monthly plan.
    public var renewalBillingPlanType: BillingPlanType? = nil
    /// The commitment's renewal (`commitmentInfo`), while a monthly plan's commitment runs.
    public var commitmentInfo: RenewalCommitmentInfo? = nil
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
            // Apple's boolean: false once the retry is over (an involuntary expiry), not left out.
            "isInBillingRetryPeriod": .bool(isInBillingRetry),
            "gracePeriodExpiresDate": gracePeriodExpirationDate.map { .integer($0.milliseconds) },
            "appAccountToken": appAccountToken.map { .string($0.uuidString.lowercased()) },
            "appTransactionId": appTransactionID.map { .string($0) },
            "offerType": offerType.map { .integer($0.appStoreCode) },
            "offerIdentifier": offerID.map { .string($0) },
            "offerDiscountType": offerPaymentMode.map { .string($0.offerDiscountType) },
            "offerPeriod": offerPeriod.map { .string($0.description) },
            "priceIncreaseStatus": priceIncreaseStatus.appStoreCode.map { .integer($0) },
            "eligibleWinBackOfferIds": eligibleWinBackOfferIDs.isEmpty ? nil : .array(eligibleWinBackOfferIDs.map(JSON.string)),
            "renewalBillingPlanType": renewalBillingPlanType.map { .string($0.rawValue) },
            "commitmentInfo": commitmentInfo?.payload,
        ])
    }
}
