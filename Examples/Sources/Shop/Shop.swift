#if canImport(StoreKit)
import StoreKit
#else
import StorefrontKit
#endif
import Foundation

/// A small shop on the seed's `Store` pattern: products, purchase, an updates listener,
/// `checkVerified`, restore — in Swift 6, as an actor.
public actor Shop {
    /// A transaction that did not verify: its content is not delivered.
    public enum ShopError: Error, Equatable {
        case failedVerification
    }

    /// What a Buy tap came to.
    public enum PurchaseState: Equatable, Sendable {
        case purchased(productID: String)
        case pending
        case cancelled
    }

    private let productIDs: [String]
    public private(set) var products: [Product] = []
    /// What the account owns, as delivered to this app.
    public private(set) var purchasedIdentifiers: Set<String> = []
    /// Every transaction that arrived on `Transaction.updates`, oldest first.
    public private(set) var updates: [Transaction] = []
    private var listener: Task<Void, Never>?

    /// A shop selling `productIDs`; call ``start()`` as early as possible.
    public init(productIDs: [String]) {
        self.productIDs = productIDs
    }

    deinit { listener?.cancel() }

    /// Starts listening for transactions made outside the app (approvals, refunds, renewals).
    /// `Transaction.updates` is read here, before the task: a test session bound to this
    /// task stays bound, even for a detached listener.
    public func start() {
        let updates = Transaction.updates
        listener = Task { [weak self] in
            for await result in updates {
                await self?.handle(result)
            }
        }
    }

    private func handle(_ result: VerificationResult<Transaction>) async {
        guard let transaction = try? checkVerified(result) else { return }
        updates.append(transaction)
        deliver(transaction)
        await transaction.finish()
    }

    /// Loads the products, cheapest first.
    public func requestProducts() async throws {
        products = try await Product.products(for: productIDs).sorted { $0.price < $1.price }
    }

    /// Buys a product: delivers and finishes it when it went through.
    public func purchase(_ productID: String) async throws -> PurchaseState {
        guard let product = products.first(where: { $0.id == productID }) else { throw Product.PurchaseError.productUnavailable }
        switch try await product.purchase() {
        case .success(let verification):
            let transaction = try checkVerified(verification)
            deliver(transaction)
            await transaction.finish()
            return .purchased(productID: transaction.productID)
        case .pending: return .pending
        case .userCancelled: return .cancelled
        @unknown default: return .cancelled
        }
    }

    /// Whether the newest transaction of a product still counts.
    public func isPurchased(_ productID: String) async throws -> Bool {
        guard let result = await Transaction.latest(for: productID) else { return false }
        let transaction = try checkVerified(result)
        return transaction.revocationDate == nil && !transaction.isUpgraded
    }

    /// Restore Purchases: syncs with the App Store, then rebuilds what is owned from the entitlements.
    public func restorePurchases() async throws {
        try await AppStore.sync()
        var owned = Set<String>()
        for await result in Transaction.currentEntitlements {
            if let transaction = try? checkVerified(result) { owned.insert(transaction.productID) }
        }
        purchasedIdentifiers = owned
    }

    /// The payload of a verified result; throws for an unverified one.
    public nonisolated func checkVerified<T>(_ result: VerificationResult<T>) throws -> T {
        switch result {
        case .unverified: throw ShopError.failedVerification
        case .verified(let safe): return safe
        }
    }

    private func deliver(_ transaction: Transaction) {
        if transaction.revocationDate == nil {
            purchasedIdentifiers.insert(transaction.productID)
        } else {
            purchasedIdentifiers.remove(transaction.productID)
        }
    }
}
