import Foundation
import StoreEngine

/// A product of the catalog as the storefront sells it, as Apple's `SKProduct`: what
/// `SKProductsResponse.products` holds and `SKPayment(product:)` takes.
///
/// Open with a public `init()`, as Apple's `NSObject` subclass: a library's mock subclass overrides
/// the getters (`override var price: NSDecimalNumber { 0.99 }`). The store's products keep their
/// values in internal stored properties the getters return.
open class SKProduct: NSObject, @unchecked Sendable {
    // @unchecked: immutable after init.

    private let storedProductIdentifier: String
    private let storedLocalizedTitle: String
    private let storedLocalizedDescription: String
    private let storedPrice: NSDecimalNumber
    private let storedPriceLocale: Locale
    private let storedIsFamilyShareable: Bool
    private let storedSubscriptionPeriod: SKProductSubscriptionPeriod?
    private let storedIntroductoryPrice: SKProductDiscount?
    private let storedDiscounts: [SKProductDiscount]
    private let storedSubscriptionGroupIdentifier: String?

    /// The product identifier from the catalog.
    open var productIdentifier: String { storedProductIdentifier }
    /// The localized name.
    open var localizedTitle: String { storedLocalizedTitle }
    /// The localized description.
    open var localizedDescription: String { storedLocalizedDescription }
    /// The price in the storefront's currency.
    open var price: NSDecimalNumber { storedPrice }
    /// The storefront's locale with its currency (`en_US@currency=USD`): give it to a `NumberFormatter`
    /// with the `.currency` style to write ``price``.
    open var priceLocale: Locale { storedPriceLocale }
    /// Whether Family Sharing applies.
    open var isFamilyShareable: Bool { storedIsFamilyShareable }
    /// The period of an auto-renewable subscription; nil for anything else.
    open var subscriptionPeriod: SKProductSubscriptionPeriod? { storedSubscriptionPeriod }
    /// The subscription's introductory offer, if it has one.
    open var introductoryPrice: SKProductDiscount? { storedIntroductoryPrice }
    /// The subscription's promotional offers (redeemed with `SKMutablePayment.paymentDiscount`).
    open var discounts: [SKProductDiscount] { storedDiscounts }
    /// The subscription group of an auto-renewable subscription.
    open var subscriptionGroupIdentifier: String? { storedSubscriptionGroupIdentifier }
    /// Whether the App Store hosts content for it: never, here (no downloads).
    open var isDownloadable: Bool { false }
    /// The version of its hosted content: none.
    open var contentVersion: String { "" }
    /// The sizes of its hosted content: none.
    open var downloadContentLengths: [NSNumber] { [] }
    /// The sizes of its hosted content: none (the older spelling).
    open var downloadContentVersion: String { "" }

    /// The kind of product, which StoreKit 1 does not expose; nil for one made with `init()`.
    package let productType: StoreEngine.ProductType?

    /// An empty product, as Apple's `SKProduct()`: no identifier, price 0 in the current locale.
    /// What a mock subclass starts from; the store never hands one out.
    public override init() {
        storedProductIdentifier = ""
        storedLocalizedTitle = ""
        storedLocalizedDescription = ""
        storedPrice = NSDecimalNumber(value: 0)
        storedPriceLocale = Locale.current
        storedIsFamilyShareable = false
        storedSubscriptionPeriod = nil
        storedIntroductoryPrice = nil
        storedDiscounts = []
        storedSubscriptionGroupIdentifier = nil
        productType = nil
        super.init()
    }

    /// The engine's product, in `storefront`.
    init(_ product: StoreEngine.Product, storefront: StoreEngine.Storefront) {
        let locale = Self.priceLocale(storefront)
        storedProductIdentifier = product.id
        storedLocalizedTitle = product.displayName
        storedLocalizedDescription = product.description
        storedPrice = NSDecimalNumber(decimal: product.price)
        storedPriceLocale = locale
        storedIsFamilyShareable = product.isFamilyShareable
        storedSubscriptionPeriod = product.subscription.map { SKProductSubscriptionPeriod($0.subscriptionPeriod) }
        storedIntroductoryPrice = product.subscription?.introductoryOffer.map { SKProductDiscount($0, type: .introductory, priceLocale: locale) }
        storedDiscounts = product.subscription?.promotionalOffers.map { SKProductDiscount($0, type: .subscription, priceLocale: locale) } ?? []
        storedSubscriptionGroupIdentifier = product.subscription?.subscriptionGroupID
        productType = product.type
        super.init()
    }

    /// The storefront's locale, with its currency named, as StoreKit's `priceLocale` carries it.
    static func priceLocale(_ storefront: StoreEngine.Storefront) -> Locale {
        Locale(identifier: "\(storefront.locale)@currency=\(storefront.currency)")
    }

    open override var description: String { "<SKProduct \(productIdentifier) \(price) \(priceLocale.identifier)>" }
}
