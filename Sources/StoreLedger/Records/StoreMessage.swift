import Foundation
import StoreCatalog
import StoreSigning

/// Why the App Store sends the app a message, as StoreKit's `Message.Reason`.
public enum MessageReason: String, Sendable, Hashable, CaseIterable {
    /// A message for a generic reason (a tester queues one: `message send generic`).
    case generic
    /// A price increase of a subscription that needs the customer's consent.
    case priceIncreaseConsent
    /// A renewal failed to bill: the subscription is in billing retry.
    case billingIssue
    /// The customer is eligible for a win-back offer.
    case winBackOffer
}

/// A message the App Store queued for the app, as StoreKit's `Message`: kept in the store file,
/// so every process and the paywall see the same queue.
public struct StoreMessage: Sendable, Hashable, Identifiable {
    /// Where the message stands.
    public enum State: String, Sendable, Hashable, CaseIterable {
        /// Queued; StoreKit would show it when the app launches, unless the app takes it from `Message.messages`.
        case pending
        /// The app took it and chose to show it later (it comes again at the next launch).
        case deferred
        /// Shown to the customer: done.
        case displayed
    }

    public var id: Int64
    public var account: String
    public var reason: MessageReason
    /// The subscription it is about (billing, price increase, win-back).
    public var productID: String?
    /// The win-back offer it presents.
    public var offerID: String?
    /// When it was queued (store time).
    public var created: Date
    public var state: State

    /// Memberwise, for the targets above this one.
    package init(id: Int64, account: String, reason: MessageReason, productID: String? = nil, offerID: String? = nil, created: Date, state: State) {
        self.id = id
        self.account = account
        self.reason = reason
        self.productID = productID
        self.offerID = offerID
        self.created = created
        self.state = state
    }
}
