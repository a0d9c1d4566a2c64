import Foundation
import StoreCatalog
import StoreSigning

// MARK: - Values

/// A request to extend the renewal date of every active subscriber of a product
/// (`MassExtendRenewalDateRequest`), and how it ended (`MassExtendRenewalDateStatusResponse`).
///
/// The store makes the whole extension in one write, so a request is complete as soon as it
/// is accepted (Apple's completes within hours): its status says `complete` at once.
public struct MassExtension: Sendable, Hashable {
    public var productID: String
    public var requestIdentifier: String
    public var extendByDays: Int
    /// Only subscriptions bought in these storefronts; empty for all.
    public var storefrontCountryCodes: [String]
    /// Store time.
    public var completeDate: Date
    public var succeededCount: Int
    public var failedCount: Int

    /// Memberwise, for the targets above this one.
    package init(productID: String, requestIdentifier: String, extendByDays: Int, storefrontCountryCodes: [String], completeDate: Date, succeededCount: Int, failedCount: Int) {
        self.productID = productID
        self.requestIdentifier = requestIdentifier
        self.extendByDays = extendByDays
        self.storefrontCountryCodes = storefrontCountryCodes
        self.completeDate = completeDate
        self.succeededCount = succeededCount
        self.failedCount = failedCount
    }
}

/// A receiver URL kept in the store's settings (`storefront serve urls add`): `serve` sends
/// to it when no `--notify` is given. It gets the notifications recorded after it was added.
public struct NotificationReceiver: Sendable, Hashable {
    public var url: String
    /// Store time.
    public var added: Date
    /// The newest notification's id when it was added: it gets those after.
    public var afterNotificationID: Int64
}
