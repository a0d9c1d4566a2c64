import Foundation
import StoreCatalog
import StoreSigning

/// A subscription group's state, as StoreKit's `Product.SubscriptionInfo.RenewalState`.
public enum RenewalState: String, Sendable, Hashable, CaseIterable {
    case subscribed
    case expired
    case inBillingRetryPeriod
    case inGracePeriod
    case revoked
}

/// Why a subscription expired, as `Product.SubscriptionInfo.RenewalInfo.ExpirationReason`.
public enum ExpirationReason: String, Sendable, Hashable, CaseIterable {
    case autoRenewDisabled
    case billingError
    case didNotConsentToPriceIncrease
    case productUnavailable
    case unknown

    /// The `expirationIntent` number of Apple's renewal payloads.
    package var appStoreCode: Int {
        switch self {
        case .autoRenewDisabled: 1
        case .billingError: 2
        case .didNotConsentToPriceIncrease: 3
        case .productUnavailable: 4
        case .unknown: 5
        }
    }
}

/// What the App Store keeps of one subscription group for one account, beside the transactions.
package struct SubscriptionRecord: Equatable {
    package var groupID: String
    /// The subscription's first transaction: renewals, upgrades and resubscriptions share it.
    package var originalID: Int64
    package var willAutoRenew: Bool
    /// What renews at the period's end: a downgrade or a crossgrade to another period waits here.
    package var autoRenewProductID: String
    /// Set once the subscription has expired for good (not while retrying billing). Kept as its
    /// raw value; one this build does not know (a newer build's) reads as `unknown`, still expired.
    package var expirationReason: ExpirationReason?
    /// The end of the period whose renewal failed, while the App Store retries billing.
    package var billingRetrySince: Date?
    package var graceUntil: Date?
    /// A promotional offer bought while subscribed to the same product: it applies at the next renewal.
    package var renewalOfferID: String? = nil

    /// Memberwise, for the targets above this one.
    package init(groupID: String, originalID: Int64, willAutoRenew: Bool, autoRenewProductID: String, expirationReason: ExpirationReason? = nil, billingRetrySince: Date? = nil, graceUntil: Date? = nil, renewalOfferID: String? = nil) {
        self.groupID = groupID
        self.originalID = originalID
        self.willAutoRenew = willAutoRenew
        self.autoRenewProductID = autoRenewProductID
        self.expirationReason = expirationReason
        self.billingRetrySince = billingRetrySince
        self.graceUntil = graceUntil
        self.renewalOfferID = renewalOfferID
    }
}
