import Foundation

extension AppFace {
    /// The customer asks for a refund of one of the account's transactions (`Transaction.beginRefundRequest`).
    /// Throws ``RefundRequestError``: `duplicateRequest` for a second request, `failed` for a
    /// transaction the account cannot ask about. `outcome` overrides the `refundRequestOutcome` setting.
    @discardableResult
    public func beginRefundRequest(transactionID: Int64, reason: RefundRequestReason = .other,
                                   outcome: RefundRequestOutcome? = nil) async throws -> RefundRequest {
        try await store.beginRefundRequest(transactionID: transactionID, reason: reason, outcome: outcome)
    }
}
