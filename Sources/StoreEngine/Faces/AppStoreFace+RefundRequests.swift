import Foundation

extension AppStoreFace {
    /// The refund requests made from the app, oldest first (every account); those of `status` only when given.
    public func refundRequests(status: RefundRequest.Status? = nil) async throws -> [RefundRequest] {
        try await store.refundRequests(status: status)
    }

    /// Grants a pending refund request: the transaction is refunded (`reason`, else as the request suggests).
    @discardableResult
    public func approveRefundRequest(_ transactionID: Int64, reason: Transaction.RevocationReason? = nil) async throws
        -> RefundRequest {
        try await store.decideRefundRequest(transactionID, approve: true, reason: reason)
    }

    /// Declines a pending refund request: REFUND_DECLINED, the transaction unchanged.
    @discardableResult
    public func declineRefundRequest(_ transactionID: Int64) async throws -> RefundRequest {
        try await store.decideRefundRequest(transactionID, approve: false)
    }
}
