import Foundation
import StoreEngine

extension Product.SubscriptionInfo {
    /// Where a subscription group stands for the account (StoreKit's `Product.SubscriptionInfo.Status`).
    ///
    /// Two statuses are equal when they say the same of the same store's subscription: the same
    /// state, newest transaction and renewal info; not when only the moment they were signed differs.
    public struct Status: Sendable, Equatable, Hashable {
        /// Subscribed, expired, in billing retry, in grace period or revoked.
        public let state: RenewalState
        /// The subscription's newest transaction.
        public let transaction: VerificationResult<Transaction>
        /// What happens at the next renewal.
        public let renewalInfo: VerificationResult<RenewalInfo>
        /// What the status says, as compared (``SubscriptionStatus/comparable``).
        let facts: SubscriptionStatus
        let context: StoreContext

        init(_ status: SubscriptionStatus, context: StoreContext) {
            state = RenewalState(status.state)
            transaction = Transaction.verification(of: status.transaction, context: context)
            renewalInfo = .verified(RenewalInfo(status.renewalInfo, device: DeviceVerification.id(of: context.store)))
            facts = status.comparable
            self.context = context
        }

        public static func == (a: Status, b: Status) -> Bool { a.facts == b.facts && a.context === b.context }
        public func hash(into hasher: inout Hasher) { hasher.combine(facts) }
    }

    /// A subscription's state, as StoreKit's `Product.SubscriptionInfo.RenewalState`.
    public struct RenewalState: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// StoreKit's raw value.
        public let rawValue: Int
        /// Creates the state with this raw value.
        public init(rawValue: Int) { self.rawValue = rawValue }
        /// Active, and renews as set.
        public static let subscribed = RenewalState(rawValue: 1)
        /// Ended.
        public static let expired = RenewalState(rawValue: 2)
        /// A renewal failed to bill; the App Store keeps trying. No service.
        public static let inBillingRetryPeriod = RenewalState(rawValue: 3)
        /// A renewal failed to bill; service continues until the grace period ends.
        public static let inGracePeriod = RenewalState(rawValue: 4)
        /// Refunded or revoked.
        public static let revoked = RenewalState(rawValue: 5)

        /// The case name.
        public var description: String {
            ["", "subscribed", "expired", "inBillingRetryPeriod", "inGracePeriod", "revoked"][safe: rawValue] ?? "\(rawValue)"
        }

        init(_ state: StoreEngine.RenewalState) {
            self = switch state {
            case .subscribed: .subscribed
            case .expired: .expired
            case .inBillingRetryPeriod: .inBillingRetryPeriod
            case .inGracePeriod: .inGracePeriod
            case .revoked: .revoked
            }
        }
    }

    /// What happens at a subscription's next renewal (StoreKit's `Product.SubscriptionInfo.RenewalInfo`).
    public struct RenewalInfo: Sendable, Hashable, SignedByStore {
        let engine: StoreEngine.RenewalInfo
        /// The device it reached (its `deviceVerification` is for this `deviceVerificationID`).
        let device: UUID?
        init(_ engine: StoreEngine.RenewalInfo, device: UUID? = nil) { (self.engine, self.device) = (engine, device) }

        /// The subscription's first transaction.
        public var originalTransactionID: UInt64 { UInt64(engine.originalTransactionID) }
        /// The product subscribed to now.
        public var currentProductID: String { engine.currentProductID }
        /// The product the next renewal is for (differs after a downgrade).
        public var autoRenewPreference: String? { engine.autoRenewPreference }
        /// Whether it renews at the period's end.
        public var willAutoRenew: Bool { engine.willAutoRenew }
        /// When the next renewal is due.
        public var renewalDate: Date? { engine.renewalDate }
        /// When the current run of unbroken periods began.
        public var recentSubscriptionStartDate: Date { engine.recentSubscriptionStartDate }
        /// Whether the App Store is retrying a failed renewal.
        public var isInBillingRetry: Bool { engine.isInBillingRetry }
        /// When the billing grace period ends, while in it.
        public var gracePeriodExpirationDate: Date? { engine.gracePeriodExpirationDate }
        /// The renewal price, in `currency`.
        public var renewalPrice: Decimal? { engine.renewalPrice }
        /// Whether a price increase waits for the subscription, and whether the customer agreed.
        public var priceIncreaseStatus: PriceIncreaseStatus { PriceIncreaseStatus(engine.priceIncreaseStatus) }
        /// The win-back offers the customer may redeem, best first (empty unless the subscription lapsed).
        public var eligibleWinBackOfferIDs: [String] { engine.eligibleWinBackOfferIDs }

        /// Whether a subscription is subject to a price increase (StoreKit's `RenewalInfo.PriceIncreaseStatus`).
        public enum PriceIncreaseStatus: Sendable, Hashable {
            /// No price increase waits.
            case noIncreasePending
            /// An increase that needs the customer's consent; not given yet (it expires at the renewal without it).
            case pending
            /// The customer agreed, or was told of an increase that needs no consent.
            case agreed

            init(_ status: StoreEngine.PriceIncreaseStatus) {
                self = switch status {
                case .noIncreasePending: .noIncreasePending
                case .pending: .pending
                case .agreed: .agreed
                }
            }
        }
        /// The signed payload as JSON.
        public var jsonRepresentation: Data { jwsPayload(engine.jwsRepresentation) }
        var jws: String { engine.jwsRepresentation ?? "" }
    }
}

extension Array {
    subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}
