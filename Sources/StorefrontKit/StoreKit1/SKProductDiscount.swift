import Foundation
import StoreEngine

/// An introductory or promotional offer of an auto-renewable subscription, as Apple's `SKProductDiscount`.
open class SKProductDiscount: NSObject, @unchecked Sendable {
    // @unchecked: immutable after init.

    /// How the discount price is charged (Apple's raw values).
    public enum PaymentMode: UInt, Sendable, Hashable {
        /// The discount price each period of the discount.
        case payAsYouGo = 0
        /// The discount price once, for the whole discount.
        case payUpFront = 1
        /// Nothing: the price is 0.
        case freeTrial = 2
    }

    /// Introductory (once per group) or a promotional offer the app signs (Apple's raw values).
    public enum `Type`: UInt, Sendable, Hashable {
        case introductory = 0
        case subscription = 1
    }

    /// The discount price, per period for pay as you go, in the storefront's currency.
    open private(set) var price: NSDecimalNumber
    /// The locale and currency the price is written in.
    open private(set) var priceLocale: Locale
    /// The offer's identifier; nil for the introductory offer.
    open private(set) var identifier: String?
    /// One period of the discount.
    open private(set) var subscriptionPeriod: SKProductSubscriptionPeriod
    /// How many periods the discount lasts.
    open private(set) var numberOfPeriods: Int
    /// How the discount is charged.
    open private(set) var paymentMode: PaymentMode
    /// Introductory or promotional.
    open private(set) var type: `Type`

    /// The engine's offer, priced in the product's storefront.
    package init(_ offer: StoreEngine.Product.Offer, type: `Type`, priceLocale: Locale) {
        price = NSDecimalNumber(decimal: offer.price)
        self.priceLocale = priceLocale
        identifier = type == .introductory ? nil : offer.id
        subscriptionPeriod = SKProductSubscriptionPeriod(offer.period)
        numberOfPeriods = offer.periodCount
        paymentMode = switch offer.paymentMode {
        case .payAsYouGo: .payAsYouGo
        case .payUpFront: .payUpFront
        case .freeTrial: .freeTrial
        }
        self.type = type
        super.init()
    }
}
