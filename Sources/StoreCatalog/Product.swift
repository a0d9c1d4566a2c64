import Foundation

/// A product as the app sees it in one storefront: localized text and price,
/// with StoreKit 2's `Product` names.
public struct Product: Sendable, Hashable, Identifiable {
    public var id: String
    public var type: ProductType
    public var displayName: String
    public var description: String
    public var price: Decimal
    /// The price as the storefront writes it: "$0.99", "0,99 €".
    public var displayPrice: String
    public var currencyCode: String
    @OutOfLine public var subscription: SubscriptionInfo? = nil
    /// How long a non-renewing subscription lasts.
    @OutOfLine public var nonRenewingDuration: ISODuration? = nil
    public var isFamilyShareable: Bool

    /// Subscription details, as StoreKit's `Product.SubscriptionInfo`.
    public struct SubscriptionInfo: Sendable, Hashable {
        public var subscriptionGroupID: String
        public var groupDisplayName: String
        public var subscriptionPeriod: ISODuration
        public var groupLevel: Int
        public var introductoryOffer: Offer?
        /// The promotional offers an app may redeem with a signature (StoreKit's `promotionalOffers`).
        public var promotionalOffers: [Offer] = []
        /// The win-back offers, whoever may redeem them (`RenewalInfo.eligibleWinBackOfferIDs` says who may).
        public var winBackOffers: [Offer] = []
        /// Every way to pay for it (StoreKit's `pricingTerms`): up front first, then a monthly plan if any.
        public var pricingTerms: [PricingTerms] = []
    }

    /// A subscription offer with its localized price (StoreKit's `Product.SubscriptionOffer`).
    public struct Offer: Sendable, Hashable {
        public var paymentMode: PaymentMode
        public var period: ISODuration
        public var periodCount: Int
        public var price: Decimal
        public var displayPrice: String
        /// The offer identifier the app redeems it by; nil for an introductory offer.
        public var id: String? = nil
    }

    /// A short label of what kind of product this is: "1 month", "Non-consumable",
    /// "Non-renewing 3 months".
    public var kindLabel: String {
        switch type {
        case .consumable: "Consumable"
        case .nonConsumable: "Non-consumable"
        case .nonRenewable: "Non-renewing " + (nonRenewingDuration?.spelledOut ?? "")
        case .autoRenewable: subscription?.subscriptionPeriod.spelledOut ?? "Subscription"
        }
    }
}

extension CatalogProduct {
    /// What it costs in `storefront`: its price there, else its base price. (Without the
    /// display text, whose currency formatting is the costly part of pricing a product.)
    public func price(in storefront: Storefront) -> Decimal {
        prices[storefront.countryCode] ?? price
    }
}

extension Catalog {
    /// The catalog's products on offer in `storefront`, as seen there, in display order.
    public func products(in storefront: Storefront) -> [Product] {
        // Catalogs reuse a few price tiers: each distinct price is formatted once
        // (currency formatting is the costly part of a large catalog's products).
        var displayPrices: [Decimal: String] = [:]
        let format: (Decimal) -> String = { price in
            if let known = displayPrices[price] { return known }
            let text = storefront.displayPrice(price)
            displayPrices[price] = text
            return text
        }
        // One pass into storage reserved for all of them: a lazy filter-map grew the array
        // as it went (copies and page faults of 10,000 products), and a filtered array
        // would be a copy of every catalog product first.
        var priced: [Product] = []
        priced.reserveCapacity(products.count)
        for item in products where item.isAvailable(in: storefront.countryCode) {
            priced.append(product(from: item, in: storefront, displayPrice: format))
        }
        return priced
    }

    /// One catalog product as seen in `storefront`.
    public func product(from item: CatalogProduct, in storefront: Storefront) -> Product {
        product(from: item, in: storefront, displayPrice: storefront.displayPrice)
    }

    private func product(from item: CatalogProduct, in storefront: Storefront,
                         displayPrice: (Decimal) -> String) -> Product {
        let text = item.localization(for: storefront.locale)
        let price = item.price(in: storefront)
        let subscription = item.subscription.map { terms in
            Product.SubscriptionInfo(
                subscriptionGroupID: terms.groupID,
                groupDisplayName: group(id: terms.groupID)?.displayName ?? terms.groupID,
                subscriptionPeriod: terms.period,
                groupLevel: terms.level,
                introductoryOffer: terms.introductoryOffer.map { offer in
                    Product.Offer(paymentMode: offer.paymentMode, period: offer.period, periodCount: offer.periodCount,
                                  price: offer.price, displayPrice: displayPrice(offer.price))
                },
                promotionalOffers: terms.offers.filter { $0.kind == .promotional }.map { productOffer($0, of: terms, displayPrice) },
                winBackOffers: terms.offers.filter { $0.kind == .winBack }.map { productOffer($0, of: terms, displayPrice) },
                pricingTerms: Product.PricingTerms.all(of: terms, upFront: price, in: storefront, displayPrice: displayPrice))
        }
        return Product(id: item.id, type: item.type, displayName: text.displayName, description: text.description,
                       price: price, displayPrice: displayPrice(price), currencyCode: storefront.currency,
                       subscription: subscription, nonRenewingDuration: item.duration,
                       isFamilyShareable: item.familyShareable)
    }

    /// A catalog offer (promotional, win-back, offer code) as the app sees it in `storefront`.
    public func productOffer(_ offer: SubscriptionOffer, of terms: SubscriptionTerms, in storefront: Storefront) -> Product.Offer {
        productOffer(offer, of: terms, storefront.displayPrice)
    }

    private func productOffer(_ offer: SubscriptionOffer, of terms: SubscriptionTerms,
                              _ displayPrice: (Decimal) -> String) -> Product.Offer {
        let price = offer.price ?? 0
        return Product.Offer(paymentMode: offer.paymentMode ?? .payAsYouGo, period: offer.period ?? terms.period,
                             periodCount: offer.periodCount, price: price, displayPrice: displayPrice(price), id: offer.id)
    }
}
