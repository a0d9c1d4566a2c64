import Foundation
import StoreEngine
import StorefrontKit

extension SKTestSession {
    /// How fast the store's clock runs: Xcode's `SKTestSession.TimeRate` case names (the engine's own type).
    public typealias TimeRate = StoreEngine.TimeRate
}

/// A transaction as the test session lists it (Xcode's `SKTestTransaction`).
public struct SKTestTransaction: Sendable, Hashable {
    /// The transaction's id (the request's id while pending): what the session's controls take.
    public let identifier: Int
    /// The first transaction of the purchase.
    public let originalTransactionIdentifier: Int
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
    /// Whether the subscription renews at the period's end (false for anything but an
    /// auto-renewable subscription's transaction).
    public let autoRenewingEnabled: Bool
    /// Whether the app finished it (not in Xcode).
    public let isFinished: Bool
    /// Where it stands, as StoreKit 1 names it (Xcode's tests compare it, e.g. `== .deferred`):
    /// `deferred` while it waits (Ask to Buy, an interrupted purchase), as Storefront's
    /// `SKPaymentQueue` reports such a purchase; `failed` once declined; else `purchased`.
    public let state: SKPaymentTransactionState

    init(_ transaction: StoreEngine.Transaction, autoRenewing: Bool) {
        identifier = Int(transaction.id)
        originalTransactionIdentifier = Int(transaction.originalID)
        productIdentifier = transaction.productID
        purchaseDate = transaction.purchaseDate
        expirationDate = transaction.expirationDate
        revocationDate = transaction.revocationDate
        pendingAskToBuyConfirmation = transaction.status == .pending && transaction.pendingReason == .askToBuy
        hasPurchaseIssue = transaction.status == .pending && transaction.pendingReason == .interrupted
        autoRenewingEnabled = autoRenewing
        isFinished = transaction.isFinished
        state = switch transaction.status {
        case .pending: .deferred
        case .declined: .failed
        case .purchased: .purchased
        }
    }
}
