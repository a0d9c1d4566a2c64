import Foundation
import StoreCatalog
import StoreSigning

/// Whether a subscription is subject to a price increase, as StoreKit's
/// `Product.SubscriptionInfo.RenewalInfo.PriceIncreaseStatus`.
public enum PriceIncreaseStatus: String, Sendable, Hashable, CaseIterable {
    /// No price increase waits for the subscription (the renewal info carries no `priceIncreaseStatus`).
    case noIncreasePending
    /// An increase that needs the customer's consent, not given yet (`priceIncreaseStatus` 0).
    case pending
    /// The customer agreed, or was told of an increase that needs no consent (`priceIncreaseStatus` 1).
    case agreed

    /// The `priceIncreaseStatus` number of Apple's renewal payloads; nil when none is pending.
    package var appStoreCode: Int? {
        switch self {
        case .noIncreasePending: nil
        case .pending: 0
        case .agreed: 1
        }
    }
}

/// A change of a subscription's price in one storefront, as a developer makes it in App Store Connect.
public struct PriceChange: Sendable, Hashable, Identifiable {
    public var id: Int64
    public var productID: String
    /// The storefront (alpha-3) whose price changed.
    public var storefront: String
    public var oldPrice: Decimal
    public var newPrice: Decimal
    /// Whether subscribers must agree before they pay it (Apple's thresholds, the yearly limit, or the developer's choice).
    public var requiresConsent: Bool
    public var date: Date
    /// `command` (`price-increase`) or `catalog` (its price changed between runs).
    public var source: String
    /// The subscribers an increase reached, as they were told.
    public var subscribers: [PriceIncrease] = []

    public var isIncrease: Bool { newPrice > oldPrice }

    /// Memberwise, for the targets above this one.
    package init(id: Int64, productID: String, storefront: String, oldPrice: Decimal, newPrice: Decimal, requiresConsent: Bool, date: Date, source: String, subscribers: [PriceIncrease] = []) {
        self.id = id
        self.productID = productID
        self.storefront = storefront
        self.oldPrice = oldPrice
        self.newPrice = newPrice
        self.requiresConsent = requiresConsent
        self.date = date
        self.source = source
        self.subscribers = subscribers
    }
}

/// One subscriber's price increase: told when, from which renewal on, and whether they agreed.
public struct PriceIncrease: Sendable, Hashable {
    public var account: String
    public var groupID: String
    public var originalTransactionID: Int64
    public var changeID: Int64
    public var productID: String
    public var storefront: String
    /// What the renewals charge until the notice ends.
    public var oldPrice: Decimal
    public var newPrice: Decimal
    public var requiresConsent: Bool
    /// When the App Store told the subscriber (store time).
    public var notified: Date
    /// The first renewal on or after this takes the new price: Apple's minimum notice after `notified`.
    public var noticeEnds: Date
    /// `pending` (consent awaited) or `agreed`.
    public var status: PriceIncreaseStatus
    /// The renewal that takes the new price, as the subscription's schedule stands now.
    public var effectiveDate: Date? = nil

    /// Memberwise, for the targets above this one.
    package init(account: String, groupID: String, originalTransactionID: Int64, changeID: Int64, productID: String, storefront: String, oldPrice: Decimal, newPrice: Decimal, requiresConsent: Bool, notified: Date, noticeEnds: Date, status: PriceIncreaseStatus, effectiveDate: Date? = nil) {
        self.account = account
        self.groupID = groupID
        self.originalTransactionID = originalTransactionID
        self.changeID = changeID
        self.productID = productID
        self.storefront = storefront
        self.oldPrice = oldPrice
        self.newPrice = newPrice
        self.requiresConsent = requiresConsent
        self.notified = notified
        self.noticeEnds = noticeEnds
        self.status = status
        self.effectiveDate = effectiveDate
    }
}
