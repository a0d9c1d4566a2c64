import Foundation

/// The app delivering and finishing what it was sold.
extension Store {
    /// refunded before the app finished it is finished without granting anything; a
    /// refunded one that reaches the app as an update takes back what it granted.
    func finish(_ transaction: Transaction) throws {
        try ledger.write {
            guard try ledger.markFinished(transaction.id) else { return }
            // The App Store's record decides, not the caller's copy: it may have been refunded since.
            guard (try ledger.transaction(id: transaction.id) ?? transaction).revocationDate == nil else {
                // The app's own cache forgets it (a refunded consumable's balance went down at the refund).
                try ledger.forgetOwned(transactionID: transaction.id)
                return
            }
            try deliver(transaction)
        }
    }

    func deliver(_ transaction: Transaction) throws {
        if transaction.productType == .consumable {
            try ledger.addToBalance(account: transaction.account, productID: transaction.productID,
                                    amount: transaction.purchasedQuantity)
        } else {
            try ledger.recordOwned(account: transaction.account, productID: transaction.productID,
                                   transactionID: transaction.id)
        }
    }

    /// Purchased transactions the app has not finished (`Transaction.unfinished`):
    /// delivered again each time the store opens until the app finishes them.
    func unfinished() throws -> [Transaction] {
        try ledger.unfinishedTransactions(account: account)
    }

    /// What an app does at launch and on `Transaction.updates`: deliver and finish
    /// each unfinished transaction, unless it arrives unverified (a simulated
    /// `verificationError`) or the app "crashes" first (`finishTransactions` false).
    /// A refunded transaction arrives the same way (``Delivery/revoked``): the app finishes
    /// it and drops what it granted from its cache.
    /// - Parameter held: transactions this run of the app was handed already and left
    ///   unfinished: `Transaction.updates` does not emit them again, they wait for the next launch.
    func deliverUnfinished(holding held: Set<Int64> = []) throws -> Delivery {
        try processRenewals(onlyAccount: account)
        var delivery = Delivery()
        let waiting = try unfinished()
        guard !waiting.isEmpty else { return delivery }
        let finishes = try value(.finishTransactions)
        for var transaction in waiting {
            if held.contains(transaction.id) {
                delivery.left.append(transaction)
            } else if let error = try takeSimulatedError(.verificationError) {
                transaction.markUnverified(by: error.error)
                delivery.left.append(transaction)
            } else if !finishes || !transaction.verification.isVerified {
                delivery.left.append(transaction)
            } else if transaction.revocationDate != nil {
                try finish(transaction)
                delivery.revoked.append(transaction)
            } else {
                try finish(transaction)
                delivery.finished.append(transaction)
            }
        }
        return delivery
    }

}
