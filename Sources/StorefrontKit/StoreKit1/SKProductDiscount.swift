import Foundation
import StoreEngine

/// An introductory or promotional offer of an auto-renewable subscription, as Apple's `SKProductDiscount`.
/// Open with a public `init()`, as Apple's: a mock subclass overrides the getters.
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

    private let storedPrice: NSDecimalNumber
    private let storedPriceLocale: Locale
    private let storedIdentifier: String?
    private let storedSubscriptionPeriod: SKProductSubscriptionPeriod
    private let storedNumberOfPeriods: Int
    private let storedPaymentMode: PaymentMode
    private let storedType: `Type`

    /// The discount price, per period for pay as you go, in the storefront's currency.
    open var price: NSDecimalNumber { storedPrice }
    /// The locale and currency the price is written in.
    open var priceLocale: Locale { storedPriceLocale }
    /// The offer's identifier; nil for the introductory offer.
    open var identifier: String? { storedIdentifier }
    /// One period of the discount.
    open var subscriptionPeriod: SKProductSubscriptionPeriod { storedSubscriptionPeriod }
    /// How many periods the discount lasts.
    open var numberOfPeriods: Int { storedNumberOfPeriods }
    /// How the discount is charged.
    open var paymentMode: PaymentMode { storedPaymentMode }
    /// Introductory or promotional.
    open var type: `Type` { storedType }

    /// An empty discount, as Apple's `SKProductDiscount()`: price 0, no identifier, an empty period,
    /// pay as you go, introductory. What a mock subclass starts from.
    public override init() {
        storedPrice = NSDecimalNumber(value: 0)
        storedPriceLocale = Locale.current
        storedIdentifier = nil
        storedSubscriptionPeriod = SKProductSubscriptionPeriod()
        storedNumberOfPeriods = 0
        storedPaymentMode = .payAsYouGo
        storedType = .introductory
        super.init()
    }

    /// The engine's offer, priced in the product's storefront.
    init(_ offer: StoreEngine.Product.Offer, type: `Type`, priceLocale: Locale) {
        storedPrice = NSDecimalNumber(decimal: offer.price)
        storedPriceLocale = priceLocale
        storedIdentifier = type == .introductory ? nil : offer.id
        storedSubscriptionPeriod = SKProductSubscriptionPeriod(offer.period)
        storedNumberOfPeriods = offer.periodCount
        storedPaymentMode = switch offer.paymentMode {
        case .payAsYouGo: .payAsYouGo
        case .payUpFront: .payUpFront
        case .freeTrial: .freeTrial
        }
        storedType = type
        super.init()
    }
}
