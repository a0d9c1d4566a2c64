import Foundation
import StoreEngine

/// A product of the catalog as the storefront sells it, as Apple's `SKProduct`: what
/// `SKProductsResponse.products` holds and `SKPayment(product:)` takes.
open class SKProduct: NSObject, @unchecked Sendable {
    // @unchecked: immutable after init.

    /// The product identifier from the catalog.
    open private(set) var productIdentifier: String
    /// The localized name.
    open private(set) var localizedTitle: String
    /// The localized description.
    open private(set) var localizedDescription: String
    /// The price in the storefront's currency.
    open private(set) var price: NSDecimalNumber
    /// The storefront's locale with its currency (`en_US@currency=USD`): give it to a `NumberFormatter`
    /// with the `.currency` style to write ``price``.
    open private(set) var priceLocale: Locale
    /// Whether Family Sharing applies.
    open private(set) var isFamilyShareable: Bool
    /// The period of an auto-renewable subscription; nil for anything else.
    open private(set) var subscriptionPeriod: SKProductSubscriptionPeriod?
    /// The subscription's introductory offer, if it has one.
    open private(set) var introductoryPrice: SKProductDiscount?
    /// The subscription's promotional offers (redeemed with `SKMutablePayment.paymentDiscount`).
    open private(set) var discounts: [SKProductDiscount]
    /// The subscription group of an auto-renewable subscription.
    open private(set) var subscriptionGroupIdentifier: String?
    /// Whether the App Store hosts content for it: never, here (no downloads).
    open var isDownloadable: Bool { false }
    /// The version of its hosted content: none.
    open var contentVersion: String { "" }
    /// The sizes of its hosted content: none.
    open var downloadContentLengths: [NSNumber] { [] }
    /// The sizes of its hosted content: none (the older spelling).
    open var downloadContentVersion: String { "" }

    /// The kind of product, which StoreKit 1 does not expose (restore and the queue need it).
    package let productType: StoreEngine.ProductType

    /// The engine's product, in `storefront`.
    package init(_ product: StoreEngine.Product, storefront: StoreEngine.Storefront) {
        let locale = Self.priceLocale(storefront)
        productIdentifier = product.id
        localizedTitle = product.displayName
        localizedDescription = product.description
        price = NSDecimalNumber(decimal: product.price)
        priceLocale = locale
        isFamilyShareable = product.isFamilyShareable
        subscriptionPeriod = product.subscription.map { SKProductSubscriptionPeriod($0.subscriptionPeriod) }
        introductoryPrice = product.subscription?.introductoryOffer.map { SKProductDiscount($0, type: .introductory, priceLocale: locale) }
        discounts = product.subscription?.promotionalOffers.map { SKProductDiscount($0, type: .subscription, priceLocale: locale) } ?? []
        subscriptionGroupIdentifier = product.subscription?.subscriptionGroupID
        productType = product.type
        super.init()
    }

    /// The storefront's locale, with its currency named, as StoreKit's `priceLocale` carries it.
    static func priceLocale(_ storefront: StoreEngine.Storefront) -> Locale {
        Locale(identifier: "\(storefront.locale)@currency=\(storefront.currency)")
    }

    open override var description: String { "<SKProduct \(productIdentifier) \(price) \(priceLocale.identifier)>" }
}
