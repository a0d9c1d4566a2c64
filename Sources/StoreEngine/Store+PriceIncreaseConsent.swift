import Foundation

/// The subscriber's side of a price increase: consent, refusal, and Xcode's request for consent.
extension Store {
    /// The customer agrees to a price increase of a subscription of theirs (the consent sheet's
    /// Agree): `priceIncreaseStatus` 1, PRICE_INCREASE ACCEPTED, and it renews at the new price.
    func consentToPriceIncrease(_ productID: String) throws -> PriceIncrease {
        try processRenewals(onlyAccount: account)
        let date = try currentTime()
        return try ledger.write {
            let (record, increase) = try waitingIncrease(productID)
            guard increase.requiresConsent, increase.status == .pending else { return try withEffectiveDate(increase) }
            var agreed = try withEffectiveDate(increase)
            agreed.status = .agreed
            try ledger.savePriceIncrease(agreed)
            try ledger.settleMessages(account: account, reason: .priceIncreaseConsent, productID: increase.productID)
            if let latest = try ledger.latestTransaction(originalID: record.originalID) {
                try notify(.priceIncrease, .accepted, transaction: latest, record: record, account: account, at: date)
            }
            return agreed
        }
    }

    /// The customer declines: as Xcode's `declinePriceIncreaseForTransaction`, they cancel the
    /// subscription (auto-renew off, DID_CHANGE_RENEWAL_STATUS AUTO_RENEW_DISABLED); the increase
    /// no longer waits, and it expires at the period's end.
    func declinePriceIncrease(_ productID: String) throws {
        try processRenewals(onlyAccount: account)
        let date = try currentTime()
        try ledger.write {
            let (found, increase) = try waitingIncrease(productID)
            var record = found
            try ledger.deletePriceIncrease(account: account, groupID: record.groupID)
            try ledger.settleMessages(account: account, reason: .priceIncreaseConsent, productID: increase.productID)
            guard record.willAutoRenew else { return }
            record.willAutoRenew = false
            try ledger.saveSubscription(record, account: account)
            if let latest = try ledger.latestTransaction(originalID: record.originalID) {
                try notify(.didChangeRenewalStatus, .autoRenewDisabled, transaction: latest, record: record, account: account, at: date)
            }
        }
    }

    /// The account's subscription of `productID`'s group and the increase it waits for; throws `noPriceIncrease`.
    private func waitingIncrease(_ productID: String) throws -> (SubscriptionRecord, PriceIncrease) {
        let record = try subscriptionRecord(productID)
        guard let increase = try pendingIncrease(record, account: account), record.expirationReason == nil else {
            throw StoreError.noPriceIncrease(productID: productID)
        }
        return (record, increase)
    }

    /// Xcode's `requestPriceIncreaseConsentForTransaction`: the subscription of a transaction gets a
    /// pending increase that needs consent (the price may stay as it is), due at its next renewal,
    /// and the consent message is sent (again, when one waits already).
    func requestPriceIncreaseConsent(transactionID: Int64) throws {
        try processRenewals(onlyAccount: account)
        let date = try currentTime()
        try ledger.write {
            let transaction = try self.transaction(id: transactionID)
            guard let record = try ledger.subscriptionStates(account: account).first(where: { $0.originalID == transaction.originalID }),
                  record.expirationReason == nil, let latest = try ledger.latestTransaction(originalID: record.originalID),
                  let item = catalog.product(id: record.autoRenewProductID) else {
                throw StoreError.invalidTransactionState(id: transactionID, action: "request price increase consent for",
                                                         state: "not an active auto-renewable subscription")
            }
            if try pendingIncrease(record, account: account)?.status != .pending {
                let storefront = try storefront()
                let price = try renewalBasePrice(item, groupID: record.groupID, account: account,
                                                 at: latest.expirationDate ?? date, in: storefront)
                try ledger.savePriceIncrease(PriceIncrease(
                    account: account, groupID: record.groupID, originalTransactionID: record.originalID, changeID: 0,
                    productID: item.id, storefront: storefront.countryCode, oldPrice: price, newPrice: price,
                    requiresConsent: true, notified: date, noticeEnds: date, status: .pending))
                try notify(.priceIncrease, .pending, transaction: latest, record: record, account: account, at: date)
            }
            try ledger.queueMessage(account: account, reason: .priceIncreaseConsent, productID: item.id, at: date)
        }
    }
}
