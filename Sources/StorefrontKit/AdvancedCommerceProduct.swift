import Foundation
import StoreEngine

/// A product configured as a generic SKU for the Advanced Commerce API (StoreKit's
/// `AdvancedCommerceProduct`, iOS 18.4): here a one-time product of the catalog, bought with a
/// request the app's server signed, checked as the App Store checks it (docs/swift.md).
public struct AdvancedCommerceProduct: Sendable, Identifiable, Hashable, CustomDebugStringConvertible {
    /// The generic product ID.
    public typealias ID = String
    /// The kind of product, as a `Product`'s.
    public typealias ProductType = Product.ProductType
    /// What a purchase came to, as a `Product`'s.
    public typealias PurchaseResult = Product.PurchaseResult

    /// The generic product ID.
    public let id: ID
    /// The type of the product.
    public let type: ProductType
    /// The catalog's product the purchase buys.
    let product: Product

    /// Loads the generic product (StoreKit's `init(id:)`). Throws `StoreKitError.unsupported` for an
    /// id the catalog has not, or one that is not a one-time product (the engine buys one-time charges only).
    public init(id: ID) async throws {
        guard let product = try await Product.products(for: [id]).first,
              product.type == .consumable || product.type == .nonConsumable else {
            throw StoreKitError.unsupported
        }
        (self.id, self.type, self.product) = (id, product.type, product)
    }

    /// Processes a purchase for the product (StoreKit's `purchase(compactJWS:options:)`): the signed
    /// request is checked, its nonce used up, then the product is bought with the request's
    /// `appAccountToken`. A request that does not pass throws ``InvalidRequestError``.
    public func purchase(compactJWS: String, options: Set<PurchaseOption> = []) async throws -> PurchaseResult {
        let context = try resolvedContext()
        let request: AdvancedCommerceRequest
        do {
            request = try await context.store.app.checkAdvancedCommerceRequest(compactJWS, productID: id)
        } catch let fault as AdvancedCommerceRequestFault {
            throw InvalidRequestError(fault)
        } catch {
            throw storeKitError(error)
        }
        var purchaseOptions = Set(options.map(\.option))
        if let token = request.appAccountToken { purchaseOptions.insert(.appAccountToken(token)) }
        return try await product.purchase(options: purchaseOptions)
    }

    /// The purchase over a view controller or window (StoreKit's `purchase(compactJWS:confirmIn:options:)`).
    /// Linux has none: `confirmIn` takes any value, or nil; it buys as ``purchase(compactJWS:options:)``.
    public func purchase(compactJWS: String, confirmIn window: (any Sendable)?,
                         options: Set<PurchaseOption> = []) async throws -> PurchaseResult {
        try await purchase(compactJWS: compactJWS, options: options)
    }

    /// The most recent transaction of the generic product, if there is one.
    public var latestTransaction: VerificationResult<Transaction>? {
        get async { await Transaction.latest(for: id) }
    }

    /// Every transaction of the generic product.
    public var allTransactions: Transaction.Transactions {
        let id = id
        return .list { try await $0.store.app.transactions().filter { $0.productID == id } }
    }

    /// The transactions that entitle the customer to what was bought with the generic product.
    public var currentEntitlements: Transaction.Transactions { Transaction.currentEntitlements(for: id) }

    public var debugDescription: String { "AdvancedCommerceProduct(id: \(id), type: \(type))" }

    /// An option of an Advanced Commerce purchase (StoreKit's `AdvancedCommerceProduct.PurchaseOption`).
    public struct PurchaseOption: Sendable, Hashable, CustomDebugStringConvertible {
        let option: Product.PurchaseOption

        /// Whether the purchase goes on when the storefront changed since the product was loaded.
        public static func onStorefrontChange(shouldContinuePurchase: @escaping @Sendable (Storefront) -> Bool) -> PurchaseOption {
            PurchaseOption(option: .onStorefrontChange(shouldContinuePurchase: shouldContinuePurchase))
        }

        public var debugDescription: String { "AdvancedCommerceProduct.PurchaseOption(\(option))" }
    }
}

/// An Advanced Commerce request the App Store refused (StoreKit's `InvalidRequestError`, iOS 18.4):
/// `message` names Apple's Advanced Commerce API error (`InvalidSignatureError: …`).
public struct InvalidRequestError: Error, Sendable, CustomStringConvertible {
    /// Storefront's code for the error (Apple does not publish StoreKit's): see docs/swift.md.
    public let code: Int64
    /// The Advanced Commerce API error's name and what was wrong.
    public let message: String

    init(_ fault: AdvancedCommerceRequestFault) {
        code = Self.codes[fault.error] ?? 4_000_000
        message = fault.description
    }

    public var description: String { "InvalidRequestError(\(code)): \(message)" }

    /// The codes of the errors the engine names: signature 4_000_001, malformed request 4_000_002, an
    /// operation not bought here 4_000_003, a product not a one-time product 4_000_004; any other field 4_000_000.
    static let codes: [String: Int64] = ["InvalidSignatureError": 4_000_001, "MalformedPayloadError": 4_000_002,
                                         "InvalidOperationError": 4_000_003, "InvalidProductError": 4_000_004]
}
