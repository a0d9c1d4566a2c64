import Foundation
import StoreEngine

/// A product of the catalog as the current storefront sells it (StoreKit's `Product`).
public struct Product: Sendable, Identifiable, Hashable {
    let engine: StoreEngine.Product
    let context: StoreContext
    /// Read outside a test session's scope: buys in the store chosen when it buys (`StoreContext+Choice.swift`).
    var follows = false

    /// The product identifier from the catalog.
    public var id: String { engine.id }
    /// Consumable, non-consumable, non-renewing or auto-renewable.
    public var type: ProductType { ProductType(engine.type) }
    /// The localized name.
    public var displayName: String { engine.displayName }
    /// The localized description.
    public var description: String { engine.description }
    /// The price in the storefront's currency.
    public var price: Decimal { engine.price }
    /// The price formatted for the storefront's locale (`$0.99`, `0,99 €`).
    public var displayPrice: String { engine.displayPrice }
    /// Whether Family Sharing applies.
    public var isFamilyShareable: Bool { engine.isFamilyShareable }
    /// The subscription details of an auto-renewable subscription; nil for anything else.
    public var subscription: SubscriptionInfo? {
        engine.subscription.map { SubscriptionInfo($0, context: context, follows: follows) }
    }

    /// The products with these identifiers, in catalog order; unknown identifiers are left out.
    /// Throws as the store's conditions say (`offline`, `loadProductsError`).
    public static func products<Identifiers: Collection>(for identifiers: Identifiers) async throws -> [Product]
    where Identifiers.Element == String {
        let context = try resolvedContext()
        let wanted = Set(identifiers)
        let all = try await storeKitCall { try await context.store.app.products() }
        let follows = !StoreContext.isScoped
        return all.filter { wanted.contains($0.id) }.map { Product(engine: $0, context: context, follows: follows) }
    }

    /// Buys the product (StoreKit's `Product.purchase(options:)`). A successful transaction
    /// comes back unfinished: deliver the content, then call ``Transaction/finish()``.
    public func purchase(options: Set<PurchaseOption> = []) async throws -> PurchaseResult {
        var quantity = 1
        var token: UUID?
        var offerID: String?
        var signature: PromotionalOfferSignature?
        var winBackOfferID: String?
        for option in options {
            switch option.kind {
            case .quantity(let value): quantity = value
            case .appAccountToken(let value): token = value
            case .promotionalOffer(let id, let signed): (offerID, signature) = (id, signed)
            case .winBackOffer(let id): winBackOfferID = id
            }
        }
        let context = context.storeNow(follows: follows)
        return try await context.purchasing {
            let outcome = try await storeKitCall {
                try await context.store.app.purchase(id, quantity: quantity, appAccountToken: token, offerID: offerID,
                                                     offerSignature: signature, winBackOfferID: winBackOfferID)
            }
            context.changed()
            switch outcome.result {
            case .success(let transaction):
                context.handOut(transaction.id)
                return .success(Transaction.verification(of: transaction, context: context))
            case .pending: return .pending
            case .userCancelled: return .userCancelled
            }
        }
    }

    public static func == (a: Product, b: Product) -> Bool { a.engine == b.engine && a.context === b.context }
    public func hash(into hasher: inout Hasher) { hasher.combine(engine) }
}

extension Product {
    /// The kind of product, as StoreKit's `Product.ProductType`.
    public struct ProductType: RawRepresentable, Hashable, Sendable {
        /// StoreKit's name: `Consumable`, `Non-Consumable`, `Non-Renewable`, `Auto-Renewable`.
        public let rawValue: String
        /// Creates the type with this raw value.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// Used up, and bought again.
        public static let consumable = ProductType(rawValue: "Consumable")
        /// Bought once, owned for good.
        public static let nonConsumable = ProductType(rawValue: "Non-Consumable")
        /// A subscription for a fixed time that does not renew.
        public static let nonRenewable = ProductType(rawValue: "Non-Renewable")
        /// A subscription that renews until cancelled.
        public static let autoRenewable = ProductType(rawValue: "Auto-Renewable")

        init(_ type: StoreEngine.ProductType) {
            self = switch type {
            case .consumable: .consumable
            case .nonConsumable: .nonConsumable
            case .nonRenewable: .nonRenewable
            case .autoRenewable: .autoRenewable
            }
        }
    }

    /// An option of a purchase, as StoreKit's `Product.PurchaseOption`.
    public struct PurchaseOption: Hashable, Sendable {
        enum Kind: Hashable, Sendable {
            case quantity(Int)
            case appAccountToken(UUID)
            case promotionalOffer(String, PromotionalOfferSignature)
            case winBackOffer(String)
        }
        let kind: Kind

        /// Buys `quantity` of a consumable (1 to 10).
        public static func quantity(_ quantity: Int) -> PurchaseOption { PurchaseOption(kind: .quantity(quantity)) }
        /// Ties the transaction to an account of the app's own (`appAccountToken`).
        public static func appAccountToken(_ token: UUID) -> PurchaseOption { PurchaseOption(kind: .appAccountToken(token)) }
        /// Redeems a promotional offer with its legacy signature, made by the app's server with a key
        /// registered in the store (`offer-keys`; `storefront offer sign --legacy` makes one): the
        /// signature's DER bytes (base64-decoded), the key id, nonce and timestamp (ms) it signed.
        public static func promotionalOffer(offerID: String, keyID: String, nonce: UUID,
                                            signature: Data, timestamp: Int) -> PurchaseOption {
            PurchaseOption(kind: .promotionalOffer(offerID, .legacy(keyID: keyID, nonce: nonce, timestamp: Int64(timestamp),
                                                                    signature: signature.base64EncodedString())))
        }

        /// Redeems a win-back offer (one of `SubscriptionInfo.winBackOffers`): for a customer whose
        /// subscription lapsed, as its rules allow (`RenewalInfo.eligibleWinBackOfferIDs`); otherwise
        /// the purchase fails with `Product.PurchaseError.ineligibleForOffer`.
        public static func winBackOffer(_ offer: SubscriptionOffer) -> PurchaseOption {
            PurchaseOption(kind: .winBackOffer(offer.id ?? ""))
        }

        /// Redeems a promotional offer with the newer compact JWS signature (`storefront offer sign`).
        public static func promotionalOffer(_ offerID: String, compactJWS: String) -> [PurchaseOption] {
            [PurchaseOption(kind: .promotionalOffer(offerID, .compactJWS(compactJWS)))]
        }
    }

    /// What a purchase came to, as StoreKit's `Product.PurchaseResult`.
    public enum PurchaseResult: Sendable {
        /// Bought (or, for what the account owns already, handed back): deliver and finish it.
        case success(VerificationResult<Transaction>)
        /// The user cancelled on the App Store sheet.
        case userCancelled
        /// Waiting for Ask to Buy or for the user: the transaction arrives on `Transaction.updates`.
        case pending
    }
}
