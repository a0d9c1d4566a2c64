import Foundation
import StoreEngine

extension Product.SubscriptionInfo {
    /// How a subscription is billed (StoreKit's `Product.SubscriptionInfo.BillingPlanType`):
    /// up front, or monthly with a 12-month commitment.
    public struct BillingPlanType: RawRepresentable, Hashable, Sendable {
        /// The App Store's name: `BILLED_UPFRONT`, `MONTHLY`.
        public let rawValue: String
        /// Creates the plan type with this raw value.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The whole period paid at once: every subscription can be bought so.
        public static let upFront = BillingPlanType(rawValue: StoreEngine.BillingPlanType.billedUpfront.rawValue)
        /// Paid every month over a 12-month commitment (a one-year subscription's monthly plan).
        public static let monthly = BillingPlanType(rawValue: StoreEngine.BillingPlanType.monthly.rawValue)

        init(_ type: StoreEngine.BillingPlanType) { self.init(rawValue: type.rawValue) }
        var engine: StoreEngine.BillingPlanType? { StoreEngine.BillingPlanType(rawValue: rawValue) }
    }

    /// A commitment's whole length and price (StoreKit's `Product.SubscriptionInfo.CommitmentInfo`).
    public struct CommitmentInfo: Hashable, Sendable {
        /// The total of the commitment's billing periods.
        public let price: Decimal
        /// That total as the storefront writes it.
        public let displayPrice: String
        /// The commitment's length: a year.
        public let period: Product.SubscriptionPeriod
    }

    /// One way to pay for the subscription (StoreKit's `Product.SubscriptionInfo.PricingTerms`).
    public struct PricingTerms: Hashable, Sendable {
        /// Up front, or monthly.
        public let billingPlanType: BillingPlanType
        /// What each billing period costs.
        public let billingPrice: Decimal
        /// That price as the storefront writes it: "$9.99".
        public let billingDisplayPrice: String
        /// How often it is billed: the subscription's period, or a month.
        public let billingPeriod: Product.SubscriptionPeriod
        /// The commitment of the monthly plan; nil when billed up front.
        public let commitmentInfo: CommitmentInfo?

        init(_ terms: StoreEngine.Product.PricingTerms) {
            billingPlanType = BillingPlanType(terms.billingPlanType)
            billingPrice = terms.billingPrice
            billingDisplayPrice = terms.billingDisplayPrice
            billingPeriod = Product.SubscriptionPeriod(terms.billingPeriod)
            commitmentInfo = terms.commitmentInfo.map {
                CommitmentInfo(price: $0.price, displayPrice: $0.displayPrice, period: Product.SubscriptionPeriod($0.period))
            }
        }
    }
}

extension Product.PurchaseOption {
    /// Buys the subscription on this billing plan (StoreKit's `PurchaseOption.billingPlanType(_:)`):
    /// `.monthly` for a one-year subscription's monthly plan with its 12-month commitment
    /// (`Product.PurchaseError.productUnavailable` when the product has none); `.upFront` is the default.
    public static func billingPlanType(_ type: Product.SubscriptionInfo.BillingPlanType) -> Product.PurchaseOption {
        Product.PurchaseOption(kind: .billingPlanType(type.rawValue))
    }
}

extension Transaction {
    /// A monthly plan's billing period within its commitment (StoreKit's `Transaction.CommitmentInfo`).
    public struct CommitmentInfo: Hashable, Sendable {
        /// When the commitment ends.
        public let expirationDate: Date
        /// This period's number, 1 to ``totalBillingPeriods``.
        public let billingPeriodNumber: UInt64
        /// The commitment's billing periods: 12.
        public let totalBillingPeriods: UInt64
        /// The whole commitment's price.
        public let price: Decimal
    }

    /// How this subscription transaction was billed: `.monthly` within a commitment, else `.upFront`; nil for other products.
    public var billingPlanType: Product.SubscriptionInfo.BillingPlanType? {
        guard engine.productType == .autoRenewable else { return nil }
        return engine.commitment.map { .init($0.billingPlanType) } ?? .upFront
    }

    /// Where a monthly plan's transaction stands in its commitment; nil when billed up front.
    public var commitmentInfo: CommitmentInfo? {
        engine.commitment.map {
            CommitmentInfo(expirationDate: $0.commitmentExpiresDate, billingPeriodNumber: UInt64(max($0.billingPeriodNumber, 0)),
                           totalBillingPeriods: UInt64(max($0.totalBillingPeriods, 0)), price: $0.commitmentPrice)
        }
    }
}

extension Product.SubscriptionInfo.RenewalInfo {
    /// What happens when the commitment ends (StoreKit's `RenewalInfo.CommitmentInfo`).
    public struct CommitmentInfo: Hashable, Sendable {
        /// When the commitment renews.
        public let renewalDate: Date
        /// What the renewal after it charges.
        public let renewalPrice: Decimal
        /// Whether the commitment renews when it ends.
        public let willAutoRenew: Bool
        /// The product it renews into.
        public let autoRenewPreference: String
        /// How the renewal after it is billed.
        public let renewalBillingPlanType: Product.SubscriptionInfo.BillingPlanType
    }

    /// How the next renewal is billed, for a subscription with a monthly plan.
    public var renewalBillingPlanType: Product.SubscriptionInfo.BillingPlanType? {
        engine.renewalBillingPlanType.map(Product.SubscriptionInfo.BillingPlanType.init)
    }

    /// The commitment's renewal, while a monthly plan's commitment runs.
    public var commitmentInfo: CommitmentInfo? {
        engine.commitmentInfo.map {
            CommitmentInfo(renewalDate: $0.renewalDate, renewalPrice: $0.renewalPrice, willAutoRenew: $0.willAutoRenew,
                           autoRenewPreference: $0.autoRenewPreference,
                           renewalBillingPlanType: .init($0.renewalBillingPlanType))
        }
    }
}
