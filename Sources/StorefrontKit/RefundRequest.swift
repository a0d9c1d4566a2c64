import Foundation
import StoreEngine
import Synchronization

extension Transaction {
    /// What the refund request sheet came to (StoreKit's `Transaction.RefundRequestStatus`).
    public enum RefundRequestStatus: Sendable, Hashable {
        /// The customer sent the request. The App Store decides later: a granted refund reaches
        /// the app on `Transaction.updates` with its `revocationDate`.
        case success
        /// The customer closed the sheet without asking.
        case userCancelled
    }

    /// Why the refund request could not be made (StoreKit's `Transaction.RefundRequestError`).
    public enum RefundRequestError: Error, LocalizedError, Sendable, Hashable {
        /// The customer asked for a refund of this transaction before.
        case duplicateRequest
        /// The request failed: a transaction the account cannot ask about (another account's,
        /// refunded, not purchased, or shared by family).
        case failed

        /// What went wrong, in a sentence to show the customer.
        public var errorDescription: String? {
            switch self {
            case .duplicateRequest: "You already asked for a refund of this purchase."
            case .failed: "The refund request could not be made."
            }
        }

        /// Why it went wrong.
        public var failureReason: String? {
            switch self {
            case .duplicateRequest: "A refund request for this transaction exists."
            case .failed: "The transaction is not one this account can ask a refund of."
            }
        }
    }

    /// What the customer does on the refund sheet, which StorefrontKit does not draw
    /// (StorefrontKit's own: StoreKit's sheet is the customer's).
    public enum RefundRequestSheetAction: Sendable, Hashable {
        /// Sends the request with the reason picked on the sheet.
        case submit(Reason)
        /// Closes the sheet: ``RefundRequestStatus/userCancelled``.
        case cancel

        /// The refund sheet's reasons, which the server hears as `consumptionRequestReason`.
        public enum Reason: String, Sendable, Hashable, CaseIterable {
            case unintendedPurchase, fulfillmentIssue, unsatisfiedWithPurchase, legal, other
        }

        /// `cancel`, or a reason's name (`unintendedPurchase`): `$STOREFRONT_REFUND_REQUEST`'s values.
        init?(name: String) {
            if name == "cancel" { self = .cancel } else if let reason = Reason(rawValue: name) { self = .submit(reason) } else { return nil }
        }
    }

    /// What the customer does on the next refund sheet; nil: `$STOREFRONT_REFUND_REQUEST`
    /// (`cancel` or a reason's name), else the request is sent with the reason `other`.
    public static var refundRequestSheetAction: RefundRequestSheetAction? {
        get { sheetAction.withLock { $0 } }
        set { sheetAction.withLock { $0 = newValue } }
    }
    private static let sheetAction = Mutex<RefundRequestSheetAction?>(nil)

    /// Asks the App Store for a refund of this transaction, as StoreKit's
    /// `beginRefundRequest(in:)` (the scene is not used: there is no sheet to show in it).
    /// The store records the request; it is decided by `storefront refund-request approve|decline`
    /// or the `refundRequestOutcome` setting.
    public func beginRefundRequest(in scene: (any Sendable)? = nil) async throws -> RefundRequestStatus {
        try await Self.beginRefundRequest(for: id, in: scene)
    }

    /// Asks the App Store for a refund of the transaction `transactionID`, as StoreKit's
    /// `Transaction.beginRefundRequest(for:in:)`.
    public static func beginRefundRequest(for transactionID: UInt64, in scene: (any Sendable)? = nil) async throws
        -> RefundRequestStatus {
        try StoreContext.throwIfSimulated(.refundRequest)
        let environment = ProcessInfo.processInfo.environment["STOREFRONT_REFUND_REQUEST"].flatMap(RefundRequestSheetAction.init(name:))
        guard case .submit(let reason) = refundRequestSheetAction ?? environment ?? .submit(.other) else { return .userCancelled }
        let context = try resolvedContext()
        do {
            _ = try await context.store.app.beginRefundRequest(transactionID: Int64(clamping: transactionID),
                                                               reason: RefundRequestReason(rawValue: reason.rawValue) ?? .other)
        } catch let error as StoreEngine.RefundRequestError {
            switch error {
            case .duplicateRequest: throw RefundRequestError.duplicateRequest
            case .failed: throw RefundRequestError.failed
            }
        } catch {
            throw storeKitError(error)
        }
        context.changed()
        return .success
    }
}
