import Foundation

/// What the App Store does outside the app: Ask to Buy answers, interrupted purchases resolved, refunds, deletions.
extension Store {
    // MARK: - Pending purchases and the Transaction Manager

    /// The account's purchases waiting for a parent or an action, oldest first.
    func pendingTransactions() throws -> [Transaction] {
        try ledger.pendingTransactions(account: account)
    }

    /// A parent approves an Ask to Buy request: the purchase completes now and
    /// reaches the app as an update (unfinished until the app delivers it).
    /// Returns what the purchase came to: purchased, or a change of plan scheduled for the renewal.
    @discardableResult
    func approveRequest(_ id: Int64) throws -> PurchaseOutcome {
        try complete(id, waitingFor: .askToBuy, action: "approve", detail: "approved by a parent (Ask to Buy)")
    }

    /// Completes an interrupted purchase, as when the user has accepted the terms.
    @discardableResult
    func resolveRequest(_ id: Int64) throws -> PurchaseOutcome {
        try complete(id, waitingFor: .interrupted, action: "resolve", detail: "interrupted purchase resolved")
    }

    /// ``approveRequest(_:)``'s transaction: the one added, or for a scheduled change the subscription kept.
    @discardableResult
    func approve(_ id: Int64) throws -> Transaction { try approveRequest(id).transaction! }

    /// ``resolveRequest(_:)``'s transaction.
    @discardableResult
    func resolve(_ id: Int64) throws -> Transaction { try resolveRequest(id).transaction! }

    /// A parent declines an Ask to Buy request: nothing is charged, nothing arrives.
    @discardableResult
    func decline(_ id: Int64) throws -> Transaction {
        let date = try currentTime()
        return try ledger.write {
            var transaction = try pending(id, waitingFor: .askToBuy, action: "decline")
            transaction.status = .declined
            let stored = try ledger.update(transaction)
            try ledger.log(.failed, account: account, productID: transaction.productID, transactionID: id,
                           detail: "declined by a parent (Ask to Buy)", at: date)
            return stored
        }
    }

    func complete(_ id: Int64, waitingFor reason: Transaction.PendingReason, action: String,
                  detail: String) throws -> PurchaseOutcome {
        // Renewals due by now come first: the approval may change a plan that has renewed meanwhile.
        try processRenewals()
        let date = try currentTime()
        return try ledger.write {
            let waiting = try pending(id, waitingFor: reason, action: action)
            guard let item = catalog.product(id: waiting.productID) else {
                throw StoreError.productUnavailable(productID: waiting.productID)
            }
            // Charged and dated now, as the App Store completes it now.
            let completion = try complete(item, quantity: waiting.purchasedQuantity, appAccountToken: waiting.appAccountToken,
                                          offerID: waiting.offerID, replacing: waiting, at: date)
            let outcome: PurchaseOutcome, change: SubscriptionChange?
            switch completion {
            case .added(let transaction, let immediate): (outcome, change) = (.purchased(transaction, change: immediate), immediate)
            case .scheduled(let scheduled): (outcome, change) = (.changeScheduled(scheduled), scheduled)
            }
            try ledger.log(.purchased, account: account, productID: item.id, transactionID: outcome.transaction!.id,
                           detail: [detail, change?.summary].compactMap { $0 }.joined(separator: "; "), at: date)
            return outcome
        }
    }

    func pending(_ id: Int64, waitingFor reason: Transaction.PendingReason, action: String) throws -> Transaction {
        let transaction = try transaction(id: id)
        guard transaction.status == .pending, transaction.pendingReason == reason else {
            let state = transaction.status == .pending ? "pending (\(transaction.pendingReason?.rawValue ?? "unknown"))"
                : transaction.status.rawValue
            throw StoreError.invalidTransactionState(id: id, action: action, state: state)
        }
        return transaction
    }

    /// Refunds a purchase, as the App Store does after a refund request: `revocationDate`
    /// and `revocationReason` are set, the entitlement goes, and a refunded
    /// consumable is taken from the app's balance (never below zero). The revoked
    /// transaction reaches the app as an update (``deliverUnfinished()``), as `Transaction.updates` does.
    /// A family-shareable purchase's shares are revoked with it (REVOKE for each member).
    /// `share` is how much is given back (``RefundShare``; the whole unless chosen).
    @discardableResult
    func refund(_ id: Int64, reason: Transaction.RevocationReason = .other, share: RefundShare = .full) throws -> Transaction {
        try refundRevokingShares(id, reason: reason, share: share).transaction
    }

    /// ``refund(_:reason:share:)``, with the family members' shares revoked with it (`refund` says how many).
    func refundRevokingShares(_ id: Int64, reason: Transaction.RevocationReason = .other,
                              share: RefundShare = .full) throws -> (transaction: Transaction, revokedShares: [Transaction]) {
        let date = try currentTime()
        return try ledger.write {
            try refund(try transaction(id: id), reason: reason, share: share, at: date)
        }
    }

    /// Refunds `transaction` (of any account: a refund request names its own), inside a write:
    /// the refunded transaction and the shares revoked with it.
    func refund(_ original: Transaction, reason: Transaction.RevocationReason, share: RefundShare = .full,
                at date: Date) throws -> (transaction: Transaction, revokedShares: [Transaction]) {
        var transaction = original
        let (id, account) = (transaction.id, transaction.account)
        guard transaction.status == .purchased, transaction.revocationDate == nil else {
            let state = transaction.revocationDate != nil ? "refunded already" : transaction.status.rawValue
            throw StoreError.invalidTransactionState(id: id, action: "refund", state: state)
        }
        if transaction.ownershipType == .familyShared {
            // The member paid nothing: the purchaser's refund revokes the share.
            let purchase = try ledger.sharedPurchase(of: id).map { " (refund the purchaser's transaction \($0.id))" } ?? ""
            throw StoreError.invalidTransactionState(id: id, action: "refund", state: "shared by family\(purchase)")
        }
        (transaction.revocationDate, transaction.revocationReason) = (date, reason)
        transaction.refundPercentage = try share.milliunits(for: transaction, at: date)
        let stored = try ledger.update(transaction)
        // Waiting for the app again: the next look delivers the revocation.
        if transaction.isFinished { try ledger.markUnfinished(id) }
        if transaction.productType == .consumable, transaction.isFinished {
            let balance = try ledger.balance(account: account, productID: transaction.productID)
            try ledger.addToBalance(account: account, productID: transaction.productID,
                                    amount: -min(balance, transaction.purchasedQuantity))
        }
        try ledger.log(.revoked, account: account, productID: transaction.productID, transactionID: id,
                       detail: "refunded (\(reason.rawValue))", at: date)
        let record = try transaction.subscriptionGroupID.flatMap { group in
            try ledger.subscriptionStates(account: account).first { $0.groupID == group }
        }
        try notify(.refund, transaction: stored, record: record, account: account, at: date)
        try settleRefundRequest(of: id, at: date)
        let revoked = try revokeShares(of: stored, reason: reason, at: date)
        return (try ledger.transaction(id: id) ?? stored, revoked)
    }

    /// Deletes a transaction from the account's history (the Transaction Manager's Delete).
    /// Deleting never charges: when a subscription's newest transaction goes, the one before
    /// it does not renew from its long-past end; the subscription is expired unless that one
    /// still runs, and forgotten when none is left.
    func deleteTransaction(_ id: Int64) throws {
        let date = try currentTime()
        try ledger.write {
            let deleted = try transaction(id: id)
            try ledger.delete(transactionID: id)
            guard deleted.productType == .autoRenewable, let groupID = deleted.subscriptionGroupID,
                  var record = try ledger.subscriptionStates(account: account).first(where: { $0.groupID == groupID }),
                  record.originalID == deleted.originalID else { return }
            guard let latest = try ledger.latestTransaction(originalID: record.originalID) else {
                try ledger.deleteSubscription(account: account, groupID: groupID)
                return
            }
            guard latest.id < deleted.id, record.expirationReason == nil,
                  latest.revocationDate != nil || latest.expirationDate.map({ $0 <= date }) ?? true else { return }
            (record.expirationReason, record.billingRetrySince, record.graceUntil) = (.unknown, nil, nil)
            try ledger.saveSubscription(record, account: account)
            try ledger.log(.expired, account: account, productID: latest.productID, transactionID: latest.id,
                           detail: "expired: its newest transaction \(id) was deleted (nothing renews or is charged)", at: date)
        }
    }

    /// Delivers a purchased transaction's content to the app and finishes it,
    /// atomically: a consumable's quantity is added to its balance, anything
    /// else joins the app's owned products. Finishing twice delivers once. A transaction
}
