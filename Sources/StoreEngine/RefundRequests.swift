import Foundation

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

extension Store {
    // MARK: - Refund requests

    /// The customer asks for a refund from the app, as `Transaction.beginRefundRequest`: the request
    /// is recorded, the server hears CONSUMPTION_REQUEST for a consumable or an auto-renewable
    /// subscription (Apple asks the developer for consumption data then), and the App Store decides
    /// as `outcome` (else the `refundRequestOutcome` setting) says: now, or later with
    /// ``decideRefundRequest(_:approve:reason:)``. Latency and `offline` apply, as to any App Store call.
    func beginRefundRequest(transactionID id: Int64, reason: RefundRequestReason = .other,
                            outcome chosen: RefundRequestOutcome? = nil) async throws -> RefundRequest {
        try await simulateLatency()
        if try value(.offline) { throw StoreError.simulated(.networkError, cause: "offline is true") }
        let date = try currentTime()
        let outcome = try chosen ?? value(.refundRequestOutcome)
        return try ledger.db.transaction {
            guard let transaction = try ledger.transaction(id: id), transaction.account == account else {
                throw RefundRequestError.failed(transactionID: id, reason: "no transaction \(id) in \(account)'s history")
            }
            guard transaction.status == .purchased else {
                throw RefundRequestError.failed(transactionID: id, reason: "it is \(transaction.status.rawValue), not purchased")
            }
            if try ledger.refundRequest(transactionID: id) != nil { throw RefundRequestError.duplicateRequest(transactionID: id) }
            guard transaction.revocationDate == nil else {
                throw RefundRequestError.failed(transactionID: id, reason: "it is refunded already")
            }
            guard transaction.ownershipType == .purchased else {
                throw RefundRequestError.failed(transactionID: id, reason: "it is shared by family: only the purchaser can ask for a refund")
            }
            let request = RefundRequest(transactionID: id, account: account, reason: reason, requestDate: date, status: .pending)
            try ledger.saveRefundRequest(request)
            if [.consumable, .autoRenewable].contains(transaction.productType) {
                try notify("CONSUMPTION_REQUEST", transaction: transaction, record: try record(of: transaction), account: account,
                           at: date, extra: [JSON.Member("consumptionRequestReason", .string(reason.appStoreName))])
            }
            switch outcome {
            case .wait: return request
            case .approve: return try decide(request, approve: true, reason: nil, at: date)
            case .decline: return try decide(request, approve: false, reason: nil, at: date)
            }
        }
    }

    /// Every refund request in the store file (of any account), oldest first; those of `status` only when given.
    func refundRequests(status: RefundRequest.Status? = nil) throws -> [RefundRequest] {
        try ledger.refundRequests(status: status)
    }

    /// The App Store decides a pending refund request (of any account): approved, the transaction is
    /// refunded (`reason`, else the one the request's reason suggests) and REFUND recorded; declined,
    /// nothing changes for the app and REFUND_DECLINED is recorded.
    func decideRefundRequest(_ id: Int64, approve: Bool, reason: Transaction.RevocationReason? = nil) throws -> RefundRequest {
        let date = try currentTime()
        return try ledger.db.transaction {
            guard let request = try ledger.refundRequest(transactionID: id) else {
                throw StoreError.invalidTransactionState(id: id, action: approve ? "approve a refund of" : "decline a refund of",
                                                         state: "without a refund request (storefront refund-request lists them)")
            }
            guard request.status == .pending else {
                throw StoreError.invalidTransactionState(id: id, action: approve ? "approve a refund of" : "decline a refund of",
                                                         state: "\(request.status.rawValue) already")
            }
            return try decide(request, approve: approve, reason: reason, at: date)
        }
    }

    private func decide(_ pending: RefundRequest, approve: Bool, reason: Transaction.RevocationReason?,
                        at date: Date) throws -> RefundRequest {
        var request = pending
        (request.status, request.decisionDate) = (approve ? .approved : .declined, date)
        try ledger.saveRefundRequest(request)
        guard let transaction = try ledger.transaction(id: request.transactionID) else { return request }
        if approve {
            _ = try refund(transaction, reason: reason ?? request.reason.revocationReason, at: date)
        } else {
            try notify("REFUND_DECLINED", transaction: transaction, record: try record(of: transaction),
                       account: transaction.account, at: date)
        }
        return request
    }

    /// Marks a pending refund request approved when the transaction is refunded another way (`refund`).
    func settleRefundRequest(of id: Int64, at date: Date) throws {
        guard var request = try ledger.refundRequest(transactionID: id), request.status == .pending else { return }
        (request.status, request.decisionDate) = (.approved, date)
        try ledger.saveRefundRequest(request)
    }

    /// The subscription record of a transaction's group for its account, if it is a subscription's.
    private func record(of transaction: Transaction) throws -> SubscriptionRecord? {
        guard let group = transaction.subscriptionGroupID else { return nil }
        return try ledger.subscriptionStates(account: transaction.account).first { $0.groupID == group }
    }
}

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
