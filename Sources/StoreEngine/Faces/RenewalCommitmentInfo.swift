import Foundation

/// What happens when a monthly plan's 12-month commitment ends, as Apple's
/// `RenewalCommitmentInfo` (StoreKit's `RenewalInfo.CommitmentInfo`): present in the renewal
/// info only while the subscription is in a commitment.
public struct RenewalCommitmentInfo: Sendable, Hashable {
    /// The product the commitment renews into (`commitmentAutoRenewProductId`).
    public var autoRenewPreference: String
    /// Whether the commitment renews when it ends (`commitmentAutoRenewStatus`): turned off, the
    /// monthly payments still run to the commitment's end, and the subscription then expires.
    public var willAutoRenew: Bool
    /// How the renewal after the commitment is billed (`commitmentRenewalBillingPlanType`).
    public var renewalBillingPlanType: BillingPlanType
    /// When the commitment ends and renews (`commitmentRenewalDate`).
    public var renewalDate: Date
    /// What that renewal's first billing period charges (`commitmentRenewalPrice`).
    public var renewalPrice: Decimal

    /// The `commitmentInfo` object of Apple's decoded renewal info payload.
    var payload: JSON {
        .object([
            "commitmentAutoRenewProductId": .string(autoRenewPreference),
            "commitmentAutoRenewStatus": .integer(willAutoRenew ? 1 : 0),
            "commitmentRenewalBillingPlanType": .string(renewalBillingPlanType.rawValue),
            "commitmentRenewalDate": .integer(renewalDate.milliseconds),
            "commitmentRenewalPrice": .integer(NSDecimalNumber(decimal: renewalPrice * 1000).int64Value),
        ])
    }
}
