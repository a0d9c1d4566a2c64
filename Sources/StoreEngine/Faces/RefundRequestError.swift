import Foundation

/// Why a refund request could not be made, as StoreKit's `Transaction.RefundRequestError`.
public enum RefundRequestError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The customer asked for a refund of this transaction before.
    case duplicateRequest(transactionID: Int64)
    /// The request could not be made: the reason says why (not this account's, refunded, shared by family).
    case failed(transactionID: Int64, reason: String)

    /// StoreKit's case name: `duplicateRequest` or `failed`.
    public var name: String {
        switch self {
        case .duplicateRequest: "duplicateRequest"
        case .failed: "failed"
        }
    }

    public var description: String {
        switch self {
        case .duplicateRequest(let id):
            "Transaction.RefundRequestError.duplicateRequest: a refund of transaction \(id) was requested before"
        case .failed(let id, let reason):
            "Transaction.RefundRequestError.failed: no refund request for transaction \(id): \(reason)"
        }
    }
}
