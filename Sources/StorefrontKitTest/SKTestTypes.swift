import Foundation
import StoreEngine

extension SKTestSession {
    /// How fast the store's clock runs: Xcode's `SKTestSession.TimeRate` case names (the engine's own type).
    public typealias TimeRate = StoreEngine.TimeRate
}

/// A StoreKit API a test session can make fail (Xcode's `StoreKitAPI`).
public struct StoreKitAPI: Hashable, Sendable {
    let name: String
    /// `Product.products(for:)`.
    public static let loadProducts = StoreKitAPI(name: "loadProducts")
    /// `Product.purchase(options:)`.
    public static let purchase = StoreKitAPI(name: "purchase")
    /// The verification of transactions reaching the app.
    public static let verification = StoreKitAPI(name: "verification")
    /// `AppStore.sync()`.
    public static let appStoreSync = StoreKitAPI(name: "appStoreSync")

    var settingKey: SettingKey<SimulatedError?>? {
        switch name {
        case "loadProducts": .loadProductsError
        case "purchase": .purchaseError
        case "verification": .verificationError
        case "appStoreSync": .restoreError
        default: nil
        }
    }
}

/// A transaction as the test session lists it (Xcode's `SKTestTransaction`).
public struct SKTestTransaction: Sendable, Hashable {
    /// The transaction's id (the request's id while pending).
    public let identifier: UInt
    /// The first transaction of the purchase.
    public let originalTransactionIdentifier: UInt
    /// The product bought.
    public let productIdentifier: String
    /// When it was bought, by the store's clock.
    public let purchaseDate: Date
    /// When a subscription period ends.
    public let expirationDate: Date?
    /// When it was refunded.
    public let revocationDate: Date?
    /// Waiting for a parent (Ask to Buy).
    public let pendingAskToBuyConfirmation: Bool
    /// Interrupted: waiting for the user.
    public let hasPurchaseIssue: Bool
    /// Whether the app finished it.
    public let isFinished: Bool

    init(_ transaction: StoreEngine.Transaction) {
        identifier = UInt(transaction.id)
        originalTransactionIdentifier = UInt(transaction.originalID)
        productIdentifier = transaction.productID
        purchaseDate = transaction.purchaseDate
        expirationDate = transaction.expirationDate
        revocationDate = transaction.revocationDate
        pendingAskToBuyConfirmation = transaction.status == .pending && transaction.pendingReason == .askToBuy
        hasPurchaseIssue = transaction.status == .pending && transaction.pendingReason == .interrupted
        isFinished = transaction.isFinished
    }
}
