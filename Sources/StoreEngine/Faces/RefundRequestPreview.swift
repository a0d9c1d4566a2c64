import Foundation

/// What Submit on the Request a Refund sheet would do, decided by the request's own checks
/// without writing (``AppFace/refundRequestPreview(transactionID:)``), in the words the request
/// then reports (``ActionOutcome/refundRequested(_:product:)``).
public enum RefundRequestPreview: Sendable, Hashable {
    /// The request is made; the App Store waits (`pending`) or decides at once (`refundRequestOutcome`).
    case requested(transactionID: Int64, status: RefundRequest.Status)
    /// The request is refused: StoreKit's `Transaction.RefundRequestError`.
    case refused(RefundRequestError)
    /// It fails before the App Store hears of it (`offline`: `networkError`).
    case failed(StoreError)

    /// "Submit: the App Store decides (refund-request approve 7, or decline 7).", or the error Submit meets.
    public var sentence: String {
        switch self {
        case .requested(let id, let status): "Submit: " + ActionOutcome.decision(status, transactionID: id)
        case .refused(let error): "Submit fails: \(error.description)"
        case .failed(let error): "Submit fails: \(error.description)"
        }
    }

    /// Whether Submit ends in an error.
    public var fails: Bool {
        if case .requested = self { false } else { true }
    }
}

extension RefundRequestOutcome {
    /// Where a request made now stands when the request returns.
    var status: RefundRequest.Status {
        switch self {
        case .wait: .pending
        case .approve: .approved
        case .decline: .declined
        }
    }
}

extension AppFace {
    /// What ``beginRefundRequest(transactionID:reason:outcome:)`` would do now, by its own checks in
    /// one read, writing nothing: the Request a Refund sheet says it before Submit.
    public func refundRequestPreview(transactionID: Int64) async throws -> RefundRequestPreview {
        try await store.refundRequestPreview(transactionID: transactionID)
    }
}
