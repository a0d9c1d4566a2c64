import Foundation
import StoreEngine

/// A product of the catalog as the current storefront sells it (StoreKit's `Product`).
public struct Product: Sendable, Identifiable, Hashable {
    let engine: StoreEngine.Product
    let context: StoreContext
    /// Read outside a test session's scope: buys in the store chosen when it buys (`StoreContext+Choice.swift`).
    var follows = false
    /// The storefront the product was loaded in: its country code and the locale its price is written in.
    let storefrontCode: String
    let locale: String

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
        let storefront = try await storeKitCall { try await context.store.app.storefront() }
        return all.filter { wanted.contains($0.id) }.map {
            Product(engine: $0, context: context, follows: follows, storefrontCode: storefront.countryCode, locale: storefront.locale)
        }
    }

    /// Buys the product (StoreKit's `Product.purchase(options:)`). A successful transaction
    /// comes back unfinished: deliver the content, then call ``Transaction/finish()``.
    public func purchase(options: Set<PurchaseOption> = []) async throws -> PurchaseResult {
        let request = PurchaseRequest(options)
        let context = context.storeNow(follows: follows)
        let allowsIntroductoryOffer = try await request.eligibility.asyncMap {
            try await Self.checkIntroductoryOfferEligibility($0, productID: id, context: self.context)
        }
        if let shouldContinue = request.shouldContinue {
            let now = try await storeKitCall { try await context.store.app.storefront() }
            if now.countryCode != storefrontCode && !shouldContinue(Storefront(countryCode: now.countryCode)) {
                throw PurchaseError.productUnavailable
            }
        }
        return try await context.purchasing {
            let outcome = try await Store.$introductoryOfferEligibility.withValue(allowsIntroductoryOffer) {
                try await storeKitCall {
                    try await context.store.app.purchase(id, quantity: request.quantity, appAccountToken: request.token,
                                                         offerID: request.offerID, offerSignature: request.signature,
                                                         winBackOfferID: request.winBackOfferID,
                                                         billingPlanType: request.billingPlan, choice: request.choice)
                }
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

    /// Buys product `id` in `context`'s store as a purchase made outside the app (`SKTestSession`'s
    /// `buyProduct(identifier:options:)`), with a purchase's options applied and checked as
    /// ``purchase(options:)`` applies them; `onStorefrontChange` has no product loaded earlier to
    /// compare with, and `custom` has no effect. What the account owns already comes back as it is;
    /// a purchase that did not complete (Ask to Buy) throws `StoreKitError.unknown`. The transaction
    /// arrives on `Transaction.updates`, unfinished.
    package static func purchaseOutsideApp(_ id: ID, options: Set<PurchaseOption>,
                                           context: StoreContext) async throws -> StoreEngine.Transaction {
        let request = PurchaseRequest(options)
        let allowsIntroductoryOffer = try await request.eligibility.asyncMap {
            try await checkIntroductoryOfferEligibility($0, productID: id, context: context)
        }
        let outcome = try await Store.$introductoryOfferEligibility.withValue(allowsIntroductoryOffer) {
            try await storeKitCall {
                try await context.store.appStore.purchaseOutsideApp(
                    id, quantity: request.quantity, appAccountToken: request.token, offerID: request.offerID,
                    offerSignature: request.signature, winBackOfferID: request.winBackOfferID,
                    billingPlanType: request.billingPlan, choice: request.choice ?? .succeed)
            }
        }
        context.changed()
        guard let transaction = outcome.transaction else { throw StoreKitError.unknown }
        return transaction
    }

    /// A purchase's options, read once.
    struct PurchaseRequest {
        var quantity = 1
        var token: UUID?
        var offerID: String?
        var signature: PromotionalOfferSignature?
        var winBackOfferID: String?
        var choice: PurchaseChoice?
        var shouldContinue: (@Sendable (Storefront) -> Bool)?
        var eligibility: String?
        var billingPlan: StoreEngine.BillingPlanType?

        init(_ options: Set<PurchaseOption>) {
            for option in options {
                switch option.kind {
                case .quantity(let value): quantity = value
                case .appAccountToken(let value): token = value
                case .promotionalOffer(let id, let signed): (offerID, signature) = (id, signed)
                case .winBackOffer(let id): winBackOfferID = id
                case .simulatesAskToBuy(let on): choice = on ? .askToBuy : nil
                case .onStorefrontChange(let box): shouldContinue = box.decide
                case .introductoryOfferEligibility(let jws): eligibility = jws
                case .billingPlanType(let raw): billingPlan = StoreEngine.BillingPlanType(rawValue: raw)
                case .custom: break  // StoreKit: "This custom purchase option doesn't have any effect."
                }
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
            case simulatesAskToBuy(Bool)
            case onStorefrontChange(StorefrontChangeDecision)
            case introductoryOfferEligibility(String)
            case billingPlanType(String)
            case custom(key: String, value: CustomValue)
        }
        /// A custom option's value, of one of the four types StoreKit takes.
        enum CustomValue: Hashable, Sendable {
            case string(String), number(Double), bool(Bool), data(Data)
        }
        /// The app's answer to a storefront change, compared by identity (a closure has no equality).
        final class StorefrontChangeDecision: Hashable, Sendable {
            let decide: @Sendable (Storefront) -> Bool
            init(_ decide: @escaping @Sendable (Storefront) -> Bool) { self.decide = decide }
            static func == (a: StorefrontChangeDecision, b: StorefrontChangeDecision) -> Bool { a === b }
            func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
        }
        let kind: Kind

        /// Makes the purchase wait for Ask to Buy approval, as a child account's would (StoreKit's
        /// sandbox and Xcode option; here in every environment): `.pending`, then the approved
        /// or declined transaction on `Transaction.updates`. `false` follows the store's settings.
        public static func simulatesAskToBuyInSandbox(_ simulatesAskToBuy: Bool) -> PurchaseOption {
            PurchaseOption(kind: .simulatesAskToBuy(simulatesAskToBuy))
        }

        /// Whether the purchase goes on when the storefront changed since the product was loaded:
        /// `false` stops it with `Product.PurchaseError.productUnavailable` (StoreKit 1's
        /// `storeProductNotAvailable`). Without this option it goes on.
        public static func onStorefrontChange(shouldContinuePurchase: @escaping @Sendable (Storefront) -> Bool) -> PurchaseOption {
            PurchaseOption(kind: .onStorefrontChange(StorefrontChangeDecision(shouldContinuePurchase)))
        }

        /// Redeems a promotional offer with its legacy signature (StoreKit's newer spelling of
        /// ``promotionalOffer(offerID:keyID:nonce:signature:timestamp:)``).
        public static func promotionalOffer(offerID: String, signature: SubscriptionOffer.Signature) -> PurchaseOption {
            promotionalOffer(offerID: offerID, keyID: signature.keyID, nonce: signature.nonce,
                             signature: signature.signature, timestamp: signature.timestamp)
        }

        /// Sets the customer's introductory offer eligibility with a JWS the app's server signed
        /// (`aud` `introductory-offer-eligibility`, `productId`, `allowIntroductoryOffer`), with an
        /// offer key registered in the store (`offer-keys`). One that does not verify, or is for
        /// another product, fails the purchase with `Product.PurchaseError.invalidOfferSignature`.
        public static func introductoryOfferEligibility(compactJWS: String) -> PurchaseOption {
            PurchaseOption(kind: .introductoryOfferEligibility(compactJWS))
        }

        /// A string for a custom key: it has no effect, as in StoreKit.
        public static func custom(key: String, value: String) -> PurchaseOption { PurchaseOption(kind: .custom(key: key, value: .string(value))) }
        /// A number for a custom key: it has no effect, as in StoreKit.
        public static func custom(key: String, value: Double) -> PurchaseOption { PurchaseOption(kind: .custom(key: key, value: .number(value))) }
        /// A Boolean for a custom key: it has no effect, as in StoreKit.
        public static func custom(key: String, value: Bool) -> PurchaseOption { PurchaseOption(kind: .custom(key: key, value: .bool(value))) }
        /// Data for a custom key (StoreKit's Advanced Commerce API requests): it has no effect here.
        public static func custom(key: String, value: Data) -> PurchaseOption { PurchaseOption(kind: .custom(key: key, value: .data(value))) }

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

    /// The newest transaction of the product for the account; nil when it never bought it (StoreKit's `latestTransaction`).
    public var latestTransaction: VerificationResult<Transaction>? {
        get async { await Transaction.latest(for: id) }
    }

    /// The transaction that entitles the account to the product now; nil when none does (StoreKit's `currentEntitlement`).
    public var currentEntitlement: VerificationResult<Transaction>? {
        get async { await Transaction.currentEntitlement(for: id) }
    }

    /// The product as JSON, in the shape of the App Store's product attributes: `offerName` (the
    /// id), `kind`, `name`, `description`, the price in `offers`, and a subscription's period and offers.
    public var jsonRepresentation: Data {
        var offer: [String: Any] = ["price": "\(engine.price)", "priceFormatted": engine.displayPrice,
                                    "currencyCode": engine.currencyCode]
        if let subscription = engine.subscription { offer["recurringSubscriptionPeriod"] = subscription.subscriptionPeriod.description }
        var object: [String: Any] = ["offerName": engine.id, "kind": type.localizedDescription, "name": engine.displayName,
                                     "description": ["standard": engine.description], "isFamilyShareable": engine.isFamilyShareable ? 1 : 0,
                                     "offers": [offer]]
        if let subscription = engine.subscription {
            object["subscriptionFamilyId"] = subscription.subscriptionGroupID
            object["subscriptionFamilyName"] = subscription.groupDisplayName
            object["subscriptionFamilyRank"] = subscription.groupLevel
        }
        return (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
    }

    /// Checks an introductory offer eligibility JWS as the App Store would before the purchase;
    /// returns its `allowIntroductoryOffer`.
    private static func checkIntroductoryOfferEligibility(_ jws: String, productID id: ID,
                                                          context: StoreContext) async throws -> Bool {
        let claims = (try? JSONSerialization.jsonObject(with: jwsPayload(jws))) as? [String: Any]
        guard let claims, claims["aud"] as? String == "introductory-offer-eligibility", claims["productId"] as? String == id,
              let allow = claims["allowIntroductoryOffer"] as? Bool,
              await verifiesWithAnOfferKey(jws, context: context) else {
            throw PurchaseError.invalidOfferSignature
        }
        return allow
    }

    /// Whether the JWS's `kid` names a registered offer key and the JWS verifies with it.
    private static func verifiesWithAnOfferKey(_ jws: String, context: StoreContext) async -> Bool {
        let header = (try? JSONSerialization.jsonObject(with: jwsPart(jws, 0))) as? [String: Any]
        guard let keyID = header?["kid"] as? String,
              let key = (try? await context.store.appStore.offerKeys())?.first(where: { $0.keyID == keyID }),
              let verifier = try? SigningKey(pem: key.publicKeyPEM) else { return false }
        do { _ = try verifier.verify(jws) } catch { return false }
        return true
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

extension Optional {
    /// The wrapped value transformed by an async function; nil stays nil.
    func asyncMap<U>(_ transform: (Wrapped) async throws -> U) async rethrows -> U? {
        guard let value = self else { return nil }
        return try await transform(value)
    }
}
