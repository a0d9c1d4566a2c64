import Foundation

/// The kinds of in-app purchase, with StoreKit 2's `Product.ProductType` names.
public enum ProductType: String, Sendable, CaseIterable, Codable {
    case consumable
    case nonConsumable
    case nonRenewable
    case autoRenewable

    /// Whether restore (`sync`) brings it back and it counts as owned.
    public var isRestorable: Bool { self != .consumable }
}

/// A product's text in one locale.
public struct Localization: Sendable, Hashable {
    public var displayName: String
    public var description: String
    public init(displayName: String, description: String) {
        self.displayName = displayName
        self.description = description
    }
}

/// How an introductory offer is paid, as StoreKit's `Product.SubscriptionOffer.PaymentMode`.
public enum PaymentMode: String, Sendable, CaseIterable {
    case freeTrial
    case payAsYouGo
    case payUpFront
}

/// An introductory offer of an auto-renewable subscription.
public struct IntroductoryOffer: Sendable, Hashable {
    public var paymentMode: PaymentMode
    /// The length of one offer period.
    public var period: ISODuration
    /// How many periods the offer lasts (pay as you go), 1 otherwise.
    public var periodCount: Int
    /// The offer price per period; zero for a free trial.
    public var price: Decimal
}

/// A subscription offer other than the introductory one, as StoreKit's
/// `Product.SubscriptionOffer`: promotional offers (Xcode's `adHocOffers`), offer
/// codes (`codeOffers`) and win-back offers (`winbackOffers`). Every field but the
/// kind is optional, as Xcode's files have grown these offers over the years.
public struct SubscriptionOffer: Sendable, Hashable {
    /// StoreKit's `Product.SubscriptionOffer.OfferType` names.
    public enum Kind: String, Sendable, CaseIterable {
        case promotional
        case code
        case winBack
    }

    public var kind: Kind
    /// The offer identifier (`offerID`) the app passes when it redeems the offer.
    public var id: String?
    /// The name people gave it in Xcode (`referenceName`).
    public var referenceName: String?
    public var paymentMode: PaymentMode?
    public var period: ISODuration?
    /// How many periods the offer lasts.
    public var periodCount: Int
    public var price: Decimal?
    /// An offer code's codes and rules; nil: its id and reference name are its custom codes.
    public var codes: OfferCodes?
    /// A win-back offer's eligibility rules (App Store Connect's `customerEligibility…`);
    /// nil: any lapsed subscriber of the product, at any time.
    public var winBack: WinBackRules?

    public init(kind: Kind, id: String? = nil, referenceName: String? = nil, paymentMode: PaymentMode? = nil,
                period: ISODuration? = nil, periodCount: Int = 1, price: Decimal? = nil, codes: OfferCodes? = nil,
                winBack: WinBackRules? = nil) {
        (self.kind, self.id, self.referenceName, self.paymentMode) = (kind, id, referenceName, paymentMode)
        (self.period, self.periodCount, self.price, self.codes, self.winBack) = (period, periodCount, price, codes, winBack)
    }
}

/// An offer code offer's codes, as App Store Connect sets them up: one-time codes (each
/// redeemed once, by one customer) and custom codes (one word many customers redeem, up to
/// a limit), who may redeem (new, existing or expired subscribers of the group), how
/// often one customer may, and until when.
public struct OfferCodes: Sendable, Hashable {
    /// Who may redeem an offer code, by the customer's relation to the subscription group.
    public enum Eligibility: String, Sendable, Hashable, CaseIterable {
        /// Never subscribed in the group.
        case new
        /// Subscribed now.
        case existing
        /// Subscribed before, not now.
        case expired
    }

    public var oneTimeCodes: [String] = []
    public var customCodes: [String] = []
    /// How many redemptions the custom codes allow in all; nil: no limit.
    public var redemptionLimit: Int?
    /// How many times one account may redeem this offer (Apple: once).
    public var perCustomerLimit = 1
    public var eligibility: Set<Eligibility> = Set(Eligibility.allCases)
    /// The codes stop working at this instant; nil: never.
    public var expires: Date?

    public init() {}
}

/// What makes a catalog product an auto-renewable subscription.
public struct SubscriptionTerms: Sendable, Hashable {
    public var groupID: String
    public var period: ISODuration
    /// The level in its group: 1 is the highest tier.
    public var level: Int
    public var introductoryOffer: IntroductoryOffer?
    /// Promotional, offer-code and win-back offers, in file order.
    public var offers: [SubscriptionOffer] = []
    /// Billing plans beside paying up front: a one-year subscription's monthly plan (`BillingPlan`).
    public var billingPlans: [BillingPlan] = []
    /// Whether it is sold billed up front: false when the catalog turns that plan off
    /// (`"BILLED_UPFRONT"` with `"isEnabled": false`), so only its monthly plan sells.
    public var isBilledUpfrontOnSale = true
}

/// The kind of file a catalog was read from.
public enum CatalogFormat: Sendable, Hashable {
    /// Storefront's own products.json.
    case productsJSON
    /// An Xcode StoreKit configuration file (`.storekit`) of this `version`.
    case storeKit(major: Int, minor: Int)
}

/// One product as the catalog file declares it, before a storefront is chosen.
public struct CatalogProduct: Sendable, Hashable {
    public var id: String
    public var type: ProductType
    public var displayName: String
    public var description: String
    /// The base price, used by every storefront without an override.
    public var price: Decimal
    /// Per-storefront prices, by country code.
    public var prices: [String: Decimal]
    /// Text per locale identifier (`de_DE`) or language (`de`).
    public var localizations: [String: Localization]
    /// How long a non-renewing subscription lasts.
    @OutOfLine public var duration: ISODuration? = nil
    @OutOfLine public var subscription: SubscriptionTerms? = nil
    public var familyShareable: Bool
    /// The storefronts (country codes) that offer the product; nil means every storefront.
    public var availableStorefronts: [String]? = nil
    /// A consumable's, non-consumable's or non-renewing subscription's offer codes (Apple's offer
    /// codes for In-App Purchases): kind `.code`, a price and no period, signed `ONE_TIME`. A
    /// subscription's offer codes are among its ``SubscriptionTerms/offers``.
    public var offerCodes: [SubscriptionOffer] = []

    /// The offer code offers of the product, whatever its type.
    public var codeOffers: [SubscriptionOffer] {
        (subscription?.offers ?? offerCodes).filter { $0.kind == .code }
    }

    /// Whether the product is on offer in the storefront with this country code.
    public func isAvailable(in countryCode: String) -> Bool {
        availableStorefronts?.contains(countryCode) ?? true
    }

    /// The text for `locale`: the exact locale, then its language, then another region
    /// of that language (the alphabetically first, so every run picks the same), then the base text.
    public func localization(for locale: String) -> Localization {
        // Most products have no localizations: nothing to look up (and no locale to normalize).
        guard !localizations.isEmpty else { return Localization(displayName: displayName, description: description) }
        let normalized = locale.replacingOccurrences(of: "-", with: "_")
        let language = String(normalized.prefix { $0 != "_" })
        return localizations[normalized] ?? localizations[language]
            ?? localizations.filter { $0.key.hasPrefix(language + "_") }.min { $0.key < $1.key }.map(\.value)
            ?? Localization(displayName: displayName, description: description)
    }
}

/// A subscription group: subscriptions of which an account has at most one active.
public struct SubscriptionGroup: Sendable, Hashable {
    public var id: String
    public var displayName: String
    /// The group's subscriptions by level, highest tier (level 1) first.
    public var subscriptionIDs: [String]
}

/// The paywall's marketing copy.
public struct Paywall: Sendable, Hashable {
    public var title: String
    public var subtitle: String
    public var features: [String]
    public init(title: String = "Storefront", subtitle: String = "", features: [String] = []) {
        (self.title, self.subtitle, self.features) = (title, subtitle, features)
    }
}

/// A product catalog: products, subscription groups, storefronts and paywall copy.
/// Two catalogs are equal when they hold the same content, whatever file
/// format they came from and whatever notes loading made.
public struct Catalog: Sendable, Equatable {
    /// The bundle id used when a catalog names none.
    public static let defaultBundleID = "com.example.storefront"

    /// The app's bundle id, as signed transactions name it (`bundleId`).
    public var bundleID = Catalog.defaultBundleID
    public var paywall: Paywall
    /// The storefront a new store file starts in.
    public var defaultStorefront: String
    /// The storefronts by country code, in file order.
    public var storefronts: [Storefront]
    /// Every product, subscriptions included, in display order: subscription
    /// groups by level, then non-consumables, consumables and non-renewing subscriptions.
    public private(set) var products: [CatalogProduct]
    public var subscriptionGroups: [SubscriptionGroup]
    /// Conditions a store file starts in, by name: a `.storekit` file's `settings`
    /// (`_askToBuyEnabled` → `askToBuyEnabled`, `_timeRate` → `timeRate`, …) or
    /// products.json's `startingSettings`. Values are text (`"true"`, `"0"`; a list
    /// such as `storeKitErrors` as compact JSON). What they map to is in `settingDefaults`.
    public var startingSettings: [String: String] = [:] {
        didSet { settingDefaults = StoreKitConfiguration.settingDefaults(from: startingSettings).defaults }
    }
    /// The store settings' defaults the starting settings give, by setting name
    /// (`askToBuy`, `timeRate`, `purchaseError`, …): values a store uses until one is set.
    public private(set) var settingDefaults: [String: String] = [:]
    /// The key the catalog signs promotional offers with (`subscriptionOffersKeyPair`), if any.
    public var offerKey: CatalogOfferKey?
    /// Where the catalog was read from.
    public var format: CatalogFormat = .productsJSON
    /// What loading noticed and worked around without refusing the file (an unknown
    /// storefront, a newer `.storekit` version): for people, not part of the content.
    public var notes: [String] = []
    private var index: [String: Int]

    public init(paywall: Paywall, defaultStorefront: String, storefronts: [Storefront],
                products: consuming [CatalogProduct], subscriptionGroups: [SubscriptionGroup]) {
        self.init(paywall: paywall, defaultStorefront: defaultStorefront, storefronts: storefronts,
                  products: products, subscriptionGroups: subscriptionGroups, fileOrderIndex: nil)
    }

    /// `fileOrderIndex`: each product's offset in `products` by id, when the reader has it (its ids
    /// hashed once already): the index is made from it without hashing every id again.
    package init(paywall: Paywall, defaultStorefront: String, storefronts: [Storefront],
         products: consuming [CatalogProduct], subscriptionGroups: [SubscriptionGroup], fileOrderIndex: [String: Int]?) {
        self.paywall = paywall
        self.defaultStorefront = defaultStorefront
        self.storefronts = storefronts
        self.subscriptionGroups = subscriptionGroups
        let rank: (CatalogProduct) -> Int = { product in
            switch product.type {
            case .autoRenewable: 0
            case .nonConsumable: 1
            case .consumable: 2
            case .nonRenewable: 3
            }
        }
        let groupOrder = Dictionary(uniqueKeysWithValues: subscriptionGroups.enumerated().map { ($1.id, $0) })
        // File order breaks ties, so the order is total and stable inside each kind. Each key is
        // made once and indices are sorted, not products: with 10,000 products the keys' group
        // lookups and the moves of whole products in every comparison were a fifth of a load.
        // By index, not enumerated: that would copy each product (retaining all of its fields).
        let keys = products.indices.map { offset in
            let terms = products[offset].subscription
            return (rank(products[offset]), groupOrder[terms?.groupID ?? ""] ?? 0, terms?.level ?? 0, offset)
        }
        // Swapped into place along the permutation's cycles, not copied: a copy of a product
        // retains each of its strings and tables (the array is the caller's, handed over).
        let order = keys.indices.sorted { keys[$0] < keys[$1] }
        var sorted = consume products
        var placed = [Bool](repeating: false, count: order.count)
        for start in order.indices where !placed[start] {
            var current = start
            placed[current] = true
            while order[current] != start {
                sorted.swapAt(current, order[current])
                current = order[current]
                placed[current] = true
            }
        }
        self.products = sorted
        if let fileOrderIndex {
            var position = [Int](repeating: 0, count: order.count)
            for (new, old) in order.enumerated() { position[old] = new }
            self.index = fileOrderIndex.mapValues { position[$0] }
        } else {
            self.index = Dictionary(self.products.enumerated().map { ($1.id, $0) }, uniquingKeysWith: { first, _ in first })
        }
    }

    /// The product with this id, if the catalog has it.
    public func product(id: String) -> CatalogProduct? {
        index[id].map { products[$0] }
    }

    /// The shortest auto-renewable subscription period (what `oneRenewalEvery…` time rates scale to).
    public var shortestSubscriptionPeriod: ISODuration? {
        let reference = Date(timeIntervalSince1970: 0)
        return products.compactMap(\.subscription?.period).min { $0.after(reference) < $1.after(reference) }
    }

    /// The storefront with this country code, if the catalog has it.
    public func storefront(_ countryCode: String) -> Storefront? {
        storefronts.first { $0.countryCode == countryCode }
    }

    /// The group with this id.
    public func group(id: String) -> SubscriptionGroup? {
        subscriptionGroups.first { $0.id == id }
    }

    public static func == (a: Catalog, b: Catalog) -> Bool {
        a.bundleID == b.bundleID && a.paywall == b.paywall && a.defaultStorefront == b.defaultStorefront
            && a.storefronts == b.storefronts && a.products == b.products
            && a.subscriptionGroups == b.subscriptionGroups && a.startingSettings == b.startingSettings
            && a.offerKey == b.offerKey
    }
}
