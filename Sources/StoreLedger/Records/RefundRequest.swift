import Foundation
import StoreCatalog
import StoreSigning

/// Why the customer asks for a refund: the reasons of the App Store's refund sheet, which a
/// CONSUMPTION_REQUEST notification carries as `consumptionRequestReason`.
public enum RefundRequestReason: String, Sendable, Hashable, CaseIterable {
    case unintendedPurchase
    case fulfillmentIssue
    case unsatisfiedWithPurchase
    case legal
    case other

    /// Apple's spelling in `consumptionRequestReason`: `UNINTENDED_PURCHASE`, …
    public var appStoreName: String {
        switch self {
        case .unintendedPurchase: "UNINTENDED_PURCHASE"
        case .fulfillmentIssue: "FULFILLMENT_ISSUE"
        case .unsatisfiedWithPurchase: "UNSATISFIED_WITH_PURCHASE"
        case .legal: "LEGAL"
        case .other: "OTHER"
        }
    }

    /// The reason named as Apple spells it, or as its case (`unintendedPurchase`).
    public init?(appStoreName name: String) {
        guard let match = Self.allCases.first(where: { $0.appStoreName == name.uppercased() || $0.rawValue == name })
        else { return nil }
        self = match
    }

    /// The `revocationReason` a granted refund gets unless the App Store says otherwise: an issue
    /// within the app (`developerIssue`, 1) for a fulfillment issue, else `other` (0).
    public var revocationReason: Transaction.RevocationReason { self == .fulfillmentIssue ? .developerIssue : .other }
}

/// What the App Store decides when the app asks for a refund (the `refundRequestOutcome` setting).
public enum RefundRequestOutcome: String, Sendable, Hashable, CaseIterable {
    /// The request waits for `refund-request approve|decline` (Apple takes up to 48 hours).
    case wait
    /// Refunded at once: the transaction is revoked and reaches the app as an update.
    case approve
    /// Declined at once: nothing changes for the app; REFUND_DECLINED for the server.
    case decline
}

/// A refund request made from the app (`Transaction.beginRefundRequest`) and what became of it.
public struct RefundRequest: Sendable, Hashable {
    /// Where the request stands.
    public enum Status: String, Sendable, Hashable, CaseIterable {
        case pending
        case approved
        case declined
    }

    public var transactionID: Int64
    public var account: String
    public var reason: RefundRequestReason
    /// When the customer asked, store time.
    public var requestDate: Date
    public var status: Status
    /// When the App Store decided, store time.
    public var decisionDate: Date?

    public init(transactionID: Int64, account: String, reason: RefundRequestReason, requestDate: Date, status: Status,
                decisionDate: Date? = nil) {
        (self.transactionID, self.account, self.reason, self.requestDate) = (transactionID, account, reason, requestDate)
        (self.status, self.decisionDate) = (status, decisionDate)
    }
}
