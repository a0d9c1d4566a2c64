import Foundation

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
        let outcome = try refundRequestOutcome(chosen)
        let date = try currentTime()
        return try ledger.write {
            let transaction = try requestableTransaction(id)
            let request = RefundRequest(transactionID: id, account: account, reason: reason, requestDate: date, status: .pending)
            try ledger.saveRefundRequest(request)
            try disableAutoRenew(refunding: transaction, at: date)
            if [.consumable, .autoRenewable].contains(transaction.productType) {
                try notify(.consumptionRequest, transaction: transaction, record: try record(of: transaction), account: account,
                           at: date, extra: [JSON.Member("consumptionRequestReason", .string(reason.appStoreName))])
            }
            switch outcome {
            case .wait: return request
            case .approve: return try decide(request, approve: true, reason: nil, at: date)
            case .decline: return try decide(request, approve: false, reason: nil, at: date)
            }
        }
    }

    /// What Submit on the Request a Refund sheet would do, by ``beginRefundRequest(transactionID:reason:outcome:)``'s
    /// own checks in one read, writing nothing: the request made and how the App Store decides it, or why it fails.
    func refundRequestPreview(transactionID id: Int64) throws -> RefundRequestPreview {
        do {
            let outcome = try refundRequestOutcome(nil)
            return try ledger.read {
                _ = try requestableTransaction(id)
                return .requested(transactionID: id, status: outcome.status)
            }
        } catch let error as RefundRequestError {
            return .refused(error)
        } catch let error as StoreError {
            return .failed(error)
        }
    }

    /// How the App Store decides a request now (`chosen`, else the `refundRequestOutcome` setting);
    /// throws `networkError` when `offline`, before the App Store hears of it.
    private func refundRequestOutcome(_ chosen: RefundRequestOutcome?) throws -> RefundRequestOutcome {
        if try value(.offline) { throw StoreError.simulated(.networkError, cause: "offline is true") }
        return try chosen ?? value(.refundRequestOutcome)
    }

    /// The transaction a refund request is about, inside a read or a write; throws ``RefundRequestError``
    /// for one the account cannot ask about (not its own, not purchased, asked before, refunded, shared by family).
    private func requestableTransaction(_ id: Int64) throws -> Transaction {
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
        return transaction
    }

    /// A refund request for a subscription turns its auto-renew off at once: Apple's DID_CHANGE_RENEWAL_STATUS
    /// AUTO_RENEW_DISABLED is sent when "the App Store disabled subscription auto-renewal after the customer
    /// requested a refund", whatever the App Store decides later. In billing retry, the retry stops too.
    private func disableAutoRenew(refunding transaction: Transaction, at date: Date) throws {
        guard transaction.productType == .autoRenewable, var record = try record(of: transaction),
              record.originalID == transaction.originalID, record.willAutoRenew, record.expirationReason == nil,
              let latest = try ledger.latestTransaction(originalID: record.originalID), latest.revocationDate == nil else { return }
        record.willAutoRenew = false
        try ledger.saveSubscription(record, account: account)
        try notify(.didChangeRenewalStatus, .autoRenewDisabled, transaction: latest, record: record, account: account, at: date)
        if record.billingRetrySince != nil { try endBillingRetry(&record, latest: latest, at: date) }
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
        return try ledger.write {
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
            try notify(.refundDeclined, transaction: transaction, record: try record(of: transaction),
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
