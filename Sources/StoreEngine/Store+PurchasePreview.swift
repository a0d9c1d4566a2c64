import Foundation

extension Store {
    /// The purchase conditions as the settings are now (inside a read).
    func purchaseConditions() throws -> PurchaseConditions {
        var conditions = PurchaseConditions()
        conditions.canMakePayments = try value(.canMakePayments)
        conditions.offline = try value(.offline)
        conditions.purchaseError = try value(.purchaseError)
        conditions.purchaseErrorOnce = try ledger.setting("purchaseError" + Self.onceSuffix, account: "") == "true"
        conditions.askToBuy = try value(.askToBuy)
        conditions.interruptedPurchases = try value(.interruptedPurchases)
        conditions.finishTransactions = try value(.finishTransactions)
        conditions.verificationError = try value(.verificationError)
        conditions.verificationErrorOnce = try ledger.setting("verificationError" + Self.onceSuffix, account: "") == "true"
        let latency = try value(.latency).components
        conditions.latencyMilliseconds = Int(latency.seconds) * 1000 + Int(latency.attoseconds / 1_000_000_000_000_000)
        return conditions
    }

    /// For each product of a group the account is subscribed to (or in its grace period), other
    /// than its current plan: the change buying it would make.
    func plannedChanges(_ statuses: [SubscriptionStatus]) -> [String: PlannedChange] {
        var changes: [String: PlannedChange] = [:]
        // A subscription the family shares is not the account's plan: buying in its group starts one of its own.
        for status in statuses where (status.state == .subscribed || status.state == .inGracePeriod)
            && status.transaction.ownershipType == .purchased {
            guard status.transaction.revocationDate == nil,
                  let current = catalog.product(id: status.transaction.productID)?.subscription else { continue }
            // The group's own plans, not every product of the catalog for every subscription.
            let plans = catalog.subscriptionGroups.first { $0.id == status.groupID }?.subscriptionIDs ?? []
            for id in plans where id != status.transaction.productID {
                guard let item = catalog.product(id: id), let terms = item.subscription, terms.groupID == status.groupID
                else { continue }
                let (kind, immediate) = SubscriptionChange.Kind.between(current, terms)
                changes[item.id] = PlannedChange(kind: kind, fromProductID: status.transaction.productID, isScheduled: !immediate,
                                                 effectiveDate: immediate ? nil : status.transaction.expirationDate)
            }
        }
        return changes
    }
}
