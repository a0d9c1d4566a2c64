#if canImport(StoreKit)
import StoreKit
#else
import StorefrontKit
#endif
import Foundation
import Observation

/// What went wrong when a transaction could not be trusted.
public enum StoreError: Error {
    case failedVerification
}

/// A message the store screen shows the customer.
public struct StoreAlert: Equatable, Sendable {
    public let title: String
    public let message: String
}

/// The app's store: products by type, purchases, entitlements, subscription status and restore,
/// kept current by `Transaction.updates` and `Product.SubscriptionInfo.Status.updates`.
@MainActor @Observable
public final class Store {
    public private(set) var consumables: [Product] = []
    public private(set) var nonConsumables: [Product] = []
    public private(set) var nonRenewables: [Product] = []
    public private(set) var subscriptions: [Product] = []

    public private(set) var purchasedNonConsumables: [Product] = []
    public private(set) var purchasedNonRenewables: [Product] = []
    public private(set) var purchasedSubscriptions: [Product] = []
    /// The state of the customer's Plus subscription, nil when they never subscribed.
    public private(set) var subscriptionGroupStatus: Product.SubscriptionInfo.RenewalState?
    /// Hints bought and not used yet.
    public private(set) var hints = 0
    /// Each subscription status change the App Store reported, newest last.
    public private(set) var statusHistory: [Product.SubscriptionInfo.RenewalState] = []
    /// Transactions that reached the app as updates (approvals, refunds, renewals), newest last.
    public private(set) var updatesReceived: [Transaction] = []
    /// What the store screen shows in an alert, if anything.
    public var alert: StoreAlert?

    private let productIDs: [String]
    @ObservationIgnored private var updateListenerTask: Task<Void, Never>?
    @ObservationIgnored private var statusListenerTask: Task<Void, Never>?

    public init(productIDs: [String]) {
        self.productIDs = productIDs
        updateListenerTask = listenForTransactions()
        statusListenerTask = listenForStatusChanges()
        Task {
            await requestProducts()
            await updateCustomerProductStatus()
        }
    }

    /// Stops listening.
    public func stop() {
        updateListenerTask?.cancel()
        statusListenerTask?.cancel()
    }

    private func listenForTransactions() -> Task<Void, Never> {
        Task.detached { [weak self] in
            for await result in Transaction.updates {
                await self?.handle(update: result)
            }
        }
    }

    private func listenForStatusChanges() -> Task<Void, Never> {
        Task.detached { [weak self] in
            for await status in Product.SubscriptionInfo.Status.updates {
                await self?.record(status)
            }
        }
    }

    private func handle(update result: VerificationResult<Transaction>) async {
        do {
            let transaction = try checkVerified(result)
            updatesReceived.append(transaction)
            deliver(transaction)
            await updateCustomerProductStatus()
            await transaction.finish()
        } catch {
            alert = StoreAlert(title: "Purchase not verified", message: "The App Store could not verify a purchase.")
        }
    }

    private func record(_ status: Product.SubscriptionInfo.Status) async {
        statusHistory.append(status.state)
        await updateCustomerProductStatus()
    }

    /// Loads the products and sorts them by type, cheapest first.
    public func requestProducts() async {
        do {
            let storeProducts = try await Product.products(for: productIDs)
            var consumables: [Product] = []
            var nonConsumables: [Product] = []
            var nonRenewables: [Product] = []
            var subscriptions: [Product] = []
            for product in storeProducts {
                switch product.type {
                case .consumable: consumables.append(product)
                case .nonConsumable: nonConsumables.append(product)
                case .nonRenewable: nonRenewables.append(product)
                case .autoRenewable: subscriptions.append(product)
                default: print("Unknown product type: \(product.id)")
                }
            }
            self.consumables = consumables.sorted { $0.price < $1.price }
            self.nonConsumables = nonConsumables.sorted { $0.price < $1.price }
            self.nonRenewables = nonRenewables.sorted { $0.price < $1.price }
            self.subscriptions = subscriptions.sorted { $0.price < $1.price }
        } catch {
            alert = StoreAlert(title: "Store unavailable", message: error.localizedDescription)
        }
    }

    /// Buys a product; returns the transaction, or nil when cancelled or waiting for approval.
    @discardableResult
    public func purchase(_ product: Product) async throws -> Transaction? {
        let result = try await product.purchase()
        switch result {
        case .success(let verification):
            let transaction = try checkVerified(verification)
            deliver(transaction)
            await updateCustomerProductStatus()
            await transaction.finish()
            return transaction
        case .pending:
            alert = StoreAlert(title: "Waiting for approval", message: "The purchase completes once it is approved.")
            return nil
        case .userCancelled:
            return nil
        }
    }

    /// The Buy button: a purchase whose errors the customer sees.
    public func buy(_ product: Product) async {
        do {
            try await purchase(product)
        } catch StoreError.failedVerification {
            alert = StoreAlert(title: "Purchase not verified", message: "Your purchase could not be verified by the App Store.")
        } catch let error as Product.PurchaseError {
            alert = StoreAlert(title: "Purchase failed", message: message(for: error))
        } catch {
            alert = StoreAlert(title: "Purchase failed", message: error.localizedDescription)
        }
    }

    /// The Restore Purchases button.
    public func restore() async {
        do {
            try await AppStore.sync()
        } catch {
            alert = StoreAlert(title: "Restore failed", message: error.localizedDescription)
        }
        await updateCustomerProductStatus()
    }

    public func isPurchased(_ product: Product) -> Bool {
        switch product.type {
        case .nonConsumable: purchasedNonConsumables.contains(product)
        case .nonRenewable: purchasedNonRenewables.contains(product)
        case .autoRenewable: purchasedSubscriptions.contains(product)
        default: false
        }
    }

    /// Uses one hint.
    public func useHint() {
        if hints > 0 { hints -= 1 }
    }

    private func message(for error: Product.PurchaseError) -> String {
        switch error {
        case .purchaseNotAllowed: "Purchases are not allowed on this device."
        case .productUnavailable: "This item is no longer available."
        default: "The purchase could not be completed."
        }
    }

    private func deliver(_ transaction: Transaction) {
        if transaction.productType == .consumable, transaction.revocationDate == nil {
            hints += 10 * transaction.purchasedQuantity
        }
    }

    private func checkVerified<T>(_ result: VerificationResult<T>) throws -> T {
        switch result {
        case .unverified:
            throw StoreError.failedVerification
        case .verified(let safe):
            return safe
        }
    }

    /// What the customer owns now, from their current entitlements, and their subscription's state.
    public func updateCustomerProductStatus() async {
        var purchasedNonConsumables: [Product] = []
        var purchasedNonRenewables: [Product] = []
        var purchasedSubscriptions: [Product] = []
        for await result in Transaction.currentEntitlements {
            guard let transaction = try? checkVerified(result) else { continue }
            switch transaction.productType {
            case .nonConsumable:
                if let product = nonConsumables.first(where: { $0.id == transaction.productID }) {
                    purchasedNonConsumables.append(product)
                }
            case .nonRenewable:
                if let product = nonRenewables.first(where: { $0.id == transaction.productID }),
                   let expires = Calendar(identifier: .gregorian).date(byAdding: .year, value: 1, to: transaction.purchaseDate),
                   Date() < expires {
                    purchasedNonRenewables.append(product)
                }
            case .autoRenewable:
                if let product = subscriptions.first(where: { $0.id == transaction.productID }) {
                    purchasedSubscriptions.append(product)
                }
            default:
                break
            }
        }
        self.purchasedNonConsumables = purchasedNonConsumables
        self.purchasedNonRenewables = purchasedNonRenewables
        self.purchasedSubscriptions = purchasedSubscriptions
        subscriptionGroupStatus = try? await subscriptions.first?.subscription?.status.first?.state
    }
}
