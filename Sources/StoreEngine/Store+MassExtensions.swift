import Foundation

// MARK: - The engine

extension Store {
    /// Extends by `days` the current period of every active subscription whose current product is
    /// `productID` (bought in one of `storefronts`, or any), each with its RENEWAL_EXTENDED (or
    /// RENEWAL_EXTENSION FAILURE when Apple's limits refuse it), then records RENEWAL_EXTENSION
    /// SUMMARY; all in one write. A request identifier already used for
    /// the product returns the first request's result, extending nothing again.
    func massExtend(productID: String, days: Int, requestID: String, storefronts: [String]) throws -> MassExtension {
        guard catalog.products.contains(where: { $0.id == productID && $0.type == .autoRenewable }) else {
            throw MassExtensionError.invalidProductID
        }
        try processRenewals()
        let date = try currentTime()
        return try ledger.write { () throws -> MassExtension in
            if let earlier = try ledger.massExtension(productID: productID, requestID: requestID) { return earlier }
            var (succeeded, failed) = (0, 0)
            for account in try ledger.subscribedAccounts() {
                for record in try ledger.subscriptionStates(account: account) {
                    guard var latest = try ledger.latestTransaction(originalID: record.originalID), latest.productID == productID,
                          storefronts.isEmpty || storefronts.contains(latest.storefront),
                          // Active only: not revoked, not in billing retry, not expired.
                          latest.revocationDate == nil, record.billingRetrySince == nil,
                          let expiration = latest.expirationDate, expiration > date else { continue }
                    // An active subscriber Apple's limits refuse (a free trial, two extensions this year) is
                    // skipped and counted as failed: Apple's text leaves open whether it counts (README).
                    if try extensionRefusal(record, latest: latest, at: date) != nil {
                        failed += 1
                        // Apple's RENEWAL_EXTENSION FAILURE: one for each subscription the request could not extend.
                        try notify(.renewalExtension, .failure, transaction: latest, record: record, account: account, at: date)
                        continue
                    }
                    latest.expirationDate = expiration.addingTimeInterval(TimeInterval(days) * 86_400)
                    latest = try ledger.update(latest)
                    try mirrorToFamily(latest.id)
                    try notify(.renewalExtended, transaction: latest, record: record, account: account, at: date)
                    succeeded += 1
                }
            }
            let request = MassExtension(productID: productID, requestIdentifier: requestID, extendByDays: days,
                                        storefrontCountryCodes: storefronts, completeDate: date, succeededCount: succeeded,
                                        failedCount: failed)
            try ledger.saveMassExtension(request)
            try notify(.renewalExtension, .summary, transaction: nil, account: "", at: date, summary: [
                JSON.Member("requestIdentifier", .string(requestID)),
                JSON.Member("environment", .string(try ledger.environment().appStoreName)),
                JSON.Member("bundleId", .string(catalog.bundleID)),
                JSON.Member("productId", .string(productID)),
                JSON.Member("storefrontCountryCodes", .array(storefronts.map(JSON.string))),
                JSON.Member("failedCount", .integer(failed)),
                JSON.Member("succeededCount", .integer(succeeded)),
            ])
            return request
        }
    }

    func massExtension(productID: String, requestID: String) throws -> MassExtension? {
        try ledger.massExtension(productID: productID, requestID: requestID)
    }

    func receivers() throws -> [NotificationReceiver] { try ledger.receivers() }

    func newestNotificationID() throws -> Int64 { try ledger.newestNotificationID() }

    func addReceiver(_ url: String) throws -> Bool {
        let date = try currentTime()
        return try ledger.write { try ledger.addReceiver(url, at: date) }
    }

    func removeReceiver(_ url: String) throws -> Bool {
        try ledger.write { try ledger.removeReceiver(url) }
    }
}
