import Foundation
import StoreEngine

extension Product {
    /// What makes a product an auto-renewable subscription (StoreKit's `Product.SubscriptionInfo`).
    public struct SubscriptionInfo: Sendable, Hashable {
        /// The subscription group it belongs to.
        public let subscriptionGroupID: String
        /// The group's display name.
        public let groupDisplayName: String
        /// Its level within the group: 1 is the highest tier.
        public let groupLevel: Int
        /// How long one period lasts.
        public let subscriptionPeriod: SubscriptionPeriod
        /// The introductory offer (a free trial, pay as you go, pay up front), if any.
        public let introductoryOffer: SubscriptionOffer?
        /// The promotional offers an app may redeem with `PurchaseOption.promotionalOffer`.
        public let promotionalOffers: [SubscriptionOffer]
        /// The win-back offers configured for the subscription, whoever may redeem them
        /// (`RenewalInfo.eligibleWinBackOfferIDs` says which the customer may).
        public let winBackOffers: [SubscriptionOffer]
        /// Every way to pay for it (StoreKit's `pricingTerms`): `.upFront` first, then `.monthly` if the subscription has it.
        public let pricingTerms: [PricingTerms]
        let context: StoreContext
        /// Read outside a test session's scope: asks the store chosen when it asks.
        let follows: Bool

        init(_ info: StoreEngine.Product.SubscriptionInfo, context: StoreContext, follows: Bool = false) {
            subscriptionGroupID = info.subscriptionGroupID
            groupDisplayName = info.groupDisplayName
            groupLevel = info.groupLevel
            subscriptionPeriod = SubscriptionPeriod(info.subscriptionPeriod)
            introductoryOffer = info.introductoryOffer.map { SubscriptionOffer($0, type: .introductory) }
            // The engine priced the offers in the product's storefront, as it priced the product.
            promotionalOffers = info.promotionalOffers.map { SubscriptionOffer($0, type: .promotional) }
            winBackOffers = info.winBackOffers.map { SubscriptionOffer($0, type: .winBack) }
            pricingTerms = info.pricingTerms.map(PricingTerms.init)
            self.context = context
            self.follows = follows
        }

        /// Whether the account may still take this group's introductory offer.
        public var isEligibleForIntroOffer: Bool {
            get async {
                let context = context.storeNow(follows: follows)
                return (try? await context.store.app.isEligibleForIntroOffer(groupID: subscriptionGroupID)) ?? false
            }
        }

        /// Whether the account may still take the group's introductory offer.
        public static func isEligibleForIntroOffer(for groupID: String) async -> Bool {
            guard let context = try? StoreContext.resolve() else { return false }
            return (try? await context.store.app.isEligibleForIntroOffer(groupID: groupID)) ?? false
        }

        /// The group's subscription status for this account: empty when it never subscribed.
        public var status: [Status] {
            get async throws { try await Self.status(for: subscriptionGroupID, context: context.storeNow(follows: follows)) }
        }

        /// The subscription status of a group for this account.
        public static func status(for groupID: String) async throws -> [Status] {
            try await status(for: groupID, context: resolvedContext())
        }

        static func status(for groupID: String, context: StoreContext) async throws -> [Status] {
            try context.throwIfSimulated(.subscriptionStatus)
            let all = try await storeKitCall { try await context.store.app.subscriptionStatuses() }
            return all.filter { $0.groupID == groupID }.map { Status($0, context: context) }
        }

        public static func == (a: SubscriptionInfo, b: SubscriptionInfo) -> Bool {
            a.subscriptionGroupID == b.subscriptionGroupID && a.subscriptionPeriod == b.subscriptionPeriod
                && a.introductoryOffer == b.introductoryOffer && a.promotionalOffers == b.promotionalOffers
                && a.winBackOffers == b.winBackOffers
                && a.groupLevel == b.groupLevel
        }
        public func hash(into hasher: inout Hasher) { hasher.combine(subscriptionGroupID) }
    }

    /// A length of time in one unit (StoreKit's `Product.SubscriptionPeriod`).
    public struct SubscriptionPeriod: Sendable, Hashable {
        /// The unit of a period.
        public enum Unit: Sendable, Hashable {
            case day, week, month, year
        }
        /// The unit.
        public let unit: Unit
        /// How many units.
        public let value: Int

        init(_ duration: ISODuration) {
            if duration.years > 0 { (unit, value) = (.year, duration.years) }
            else if duration.months > 0 { (unit, value) = (.month, duration.months) }
            else if duration.weeks > 0 { (unit, value) = (.week, duration.weeks) }
            else if duration.days % 7 == 0 && duration.days > 0 { (unit, value) = (.week, duration.days / 7) }
            else { (unit, value) = (.day, max(duration.days, 1)) }
        }
    }

    /// A subscription offer (StoreKit's `Product.SubscriptionOffer`).
    public struct SubscriptionOffer: Sendable, Hashable {
        /// The offer identifier; nil for the introductory offer.
        public let id: String?
        /// Introductory or promotional.
        public let type: OfferType
        /// The price per period; zero for a free trial.
        public let price: Decimal
        /// The price formatted for the storefront.
        public let displayPrice: String
        /// One period of the offer.
        public let period: SubscriptionPeriod
        /// How many periods the offer lasts.
        public let periodCount: Int
        /// How the offer is paid.
        public let paymentMode: PaymentMode

        /// The engine's offer, its price written as the product's storefront writes it.
        init(_ offer: StoreEngine.Product.Offer, type: OfferType) {
            (id, self.type, price, displayPrice) = (type == .introductory ? nil : offer.id, type, offer.price, offer.displayPrice)
            (period, periodCount, paymentMode) = (SubscriptionPeriod(offer.period), offer.periodCount, PaymentMode(offer.paymentMode))
        }

        /// A promotional offer's legacy signature, made by the app's server (StoreKit's `Product.SubscriptionOffer.Signature`).
        public struct Signature: Sendable, Hashable {
            /// The id of the offer key that signed it (`offer-keys`).
            public var keyID: String
            /// The one-time UUID the signature covers.
            public var nonce: UUID
            /// When it was signed, in milliseconds since 1970.
            public var timestamp: Int
            /// The signature's DER bytes (base64-decoded).
            public var signature: Data

            /// A signature of these parts.
            public init(keyID: String, nonce: UUID, timestamp: Int, signature: Data) {
                (self.keyID, self.nonce, self.timestamp, self.signature) = (keyID, nonce, timestamp, signature)
            }
        }

        /// The kind of offer, as StoreKit's `Product.SubscriptionOffer.OfferType`.
        public struct OfferType: RawRepresentable, Hashable, Sendable {
            /// StoreKit's raw value.
            public let rawValue: String
            /// Creates the offer type with this raw value.
            public init(rawValue: String) { self.rawValue = rawValue }
            /// The introductory offer, once per group.
            public static let introductory = OfferType(rawValue: "introductory")
            /// An offer the app signs and redeems.
            public static let promotional = OfferType(rawValue: "promotional")
            /// An offer for customers whose subscription lapsed.
            public static let winBack = OfferType(rawValue: "winBack")
        }

        /// How an offer is paid, as StoreKit's `Product.SubscriptionOffer.PaymentMode`.
        public struct PaymentMode: RawRepresentable, Hashable, Sendable {
            /// StoreKit's raw value.
            public let rawValue: String
            /// Creates the payment mode with this raw value.
            public init(rawValue: String) { self.rawValue = rawValue }
            /// Nothing to pay for the offer's periods.
            public static let freeTrial = PaymentMode(.freeTrial)
            /// The offer price each period.
            public static let payAsYouGo = PaymentMode(.payAsYouGo)
            /// The offer price once, up front.
            public static let payUpFront = PaymentMode(.payUpFront)

            init(_ mode: StoreEngine.PaymentMode) { self.init(rawValue: mode.offerDiscountType) }
        }
    }
}
