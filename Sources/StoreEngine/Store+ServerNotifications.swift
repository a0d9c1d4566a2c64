import Foundation

// MARK: - Recording

extension Store {
    /// A random (version 4, RFC 4122 variant) UUID from one `getrandom` call (`getentropy`): Foundation's `UUID()`
    /// on Linux opens, reads and closes `/dev/urandom` for each, three system calls a purchase.
    static func randomUUID() -> UUID {
        var b = [UInt8](repeating: 0, count: 16)
        guard getentropy(&b, 16) == 0 else { return UUID() }
        b[6] = b[6] & 0x0F | 0x40
        b[8] = b[8] & 0x3F | 0x80
        return UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]))
    }

    /// Records the notification Apple would send for an event, inside the write that makes it.
    /// `record` is the subscription as it stands after the event (for `signedRenewalInfo` and `status`).
    /// `extra`: members of `data` some types carry (CONSUMPTION_REQUEST's `consumptionRequestReason`).
    func notify(_ type: NotificationType, _ subtype: NotificationSubtype? = nil, transaction: Transaction?, record: SubscriptionRecord? = nil,
                account: String, at date: Date, testToken: String? = nil, summary: [JSON.Member]? = nil,
                extra: [JSON.Member] = []) throws {
        var data: [JSON.Member] = try withAppAppleID([
            JSON.Member("bundleId", .string(catalog.bundleID)),
            JSON.Member("bundleVersion", .string("1")),
            JSON.Member("environment", .string(try ledger.environment().appStoreName)),
        ]) + extra
        if let jws = transaction?.jwsRepresentation { data.append(JSON.Member("signedTransactionInfo", .string(jws))) }
        if let record, let latest = try ledger.latestTransaction(originalID: record.originalID) ?? transaction {
            let status = try status(of: record, latest: latest, account: account, at: date)
            if let renewal = status.renewalInfo.jwsRepresentation { data.append(JSON.Member("signedRenewalInfo", .string(renewal))) }
            data.append(JSON.Member("status", .integer(status.state.appStoreStatus)))
        }
        let uuid = Self.randomUUID().uuidString.lowercased()
        let payload = JSON.object([
            "notificationType": .string(type.rawValue),
            "subtype": subtype.map { .string($0.rawValue) },
            "notificationUUID": .string(uuid),
            // A mass extension's RENEWAL_EXTENSION SUMMARY carries `summary` in place of `data`.
            "data": summary == nil ? .object(data) : nil,
            "summary": try summary.map { .object(try withAppAppleID($0)) },
            "version": .string("2.0"),
            "signedDate": .integer(date.milliseconds),
        ])
        let notification = ServerNotification(
            id: 0, uuid: uuid, account: account, type: type.rawValue, subtype: subtype?.rawValue, transactionID: transaction?.id,
            originalTransactionID: record?.originalID ?? transaction?.originalID, signedDate: date,
            signedPayload: try signer.sign(payload), testNotificationToken: testToken)
        _ = try ledger.insertNotification(notification)
        // A family-shared purchase's notification reaches each member too, about the member's own
        // transaction (PURCHASED for the purchaser, FAMILY_SHARED for the members, as Apple sends
        // them); a refund reaches members as REVOKE instead (``revokeShares``).
        if let transaction, transaction.ownershipType == .purchased, !Self.purchaserOnly.contains(type),
           catalog.product(id: transaction.productID)?.familyShareable == true {
            for copy in try ledger.shares(of: transaction.id) where copy.revocationDate == nil {
                let shared = record.map { record -> SubscriptionRecord in
                    var seen = record
                    seen.originalID = copy.originalID
                    return seen
                }
                try notify(type, subtype, transaction: copy, record: shared, account: copy.account, at: date)
            }
        }
    }

    /// Notifications about what only the purchaser does or pays: a refund and its requests (members get REVOKE
    /// instead), a price increase (the purchaser is told and agrees; members renew with the purchaser).
    static let purchaserOnly: Set<NotificationType> = [.refund, .refundDeclined, .refundReversed, .consumptionRequest, .revoke, .priceIncrease]

    /// Whether a notification of `type` about the subscription was recorded at or after `since`.
    func hasNotification(_ type: NotificationType, originalID: Int64, since: Date) throws -> Bool {
        var filter = NotificationFilter(startDate: since, type: type.rawValue)
        filter.originalTransactionID = originalID
        return try !ledger.notifications(filter, after: nil, limit: 1).isEmpty
    }
}

// MARK: - The Server API's reads and writes

extension Store {
    /// The account a transaction (or original transaction) id belongs to.
    func account(owning id: Int64) throws -> String? { try ledger.account(owning: id) }

    /// One page of the history of the customer who made transaction `id`, in the order of each
    /// transaction's last change, after the revision `after`.
    func history(of id: Int64, query: HistoryQuery, after: Int64?, pageSize: Int) throws -> HistoryPage? {
        try processRenewals()
        guard let owner = try customer(of: String(id)) else { return nil }
        // One read: the page and its last revision from the same state of the file.
        return try ledger.read { () throws -> HistoryPage in
            var page = try ledger.historyPage(account: owner, query: query, after: after, limit: pageSize)
            let hasMore = page.count > pageSize
            if hasMore { page.removeLast() }
            let last = try page.last.flatMap { try ledger.revision(of: $0.id) }
            return HistoryPage(transactions: page, hasMore: hasMore, lastID: last ?? after)
        }
    }

    /// Every subscription status of the customer transaction (or `appTransactionId`) `id` belongs to.
    func statuses(ofCustomerWith id: Int64) throws -> [SubscriptionStatus]? {
        try processRenewals()
        guard let owner = try customer(of: String(id)) else { return nil }
        return try statuses(at: try currentTime(), account: owner)
    }

    /// Lengthens the subscription's current period by `days` (at most 90), as the renewal-date
    /// extension endpoints do, and records RENEWAL_EXTENDED; within Apple's limits (``extensionRefusal(_:latest:at:)``).
    func extendSubscription(originalID: Int64, days: Int) throws -> RenewalExtension? {
        try processRenewals()
        let date = try currentTime()
        return try ledger.write { () throws -> RenewalExtension? in
            if try isFamilyShared(originalID) { throw ExtensionError.familyShared }
            guard let owner = try ledger.account(owning: originalID),
                  let record = try ledger.subscriptionStates(account: owner).first(where: { $0.originalID == originalID }),
                  var latest = try ledger.latestTransaction(originalID: record.originalID) else { return nil }
            if let refusal = try extensionRefusal(record, latest: latest, at: date) { throw refusal }
            guard let expiration = latest.expirationDate else { throw ExtensionError.ineligible }
            latest.expirationDate = expiration.addingTimeInterval(TimeInterval(days) * 86_400)
            latest = try ledger.update(latest)
            try mirrorToFamily(latest.id)
            try notify(.renewalExtended, transaction: latest, record: record, account: owner, at: date)
            return RenewalExtension(originalTransactionID: originalID, webOrderLineItemID: latest.webOrderLineItemID,
                                    effectiveDate: latest.expirationDate!)
        }
    }

    /// Records a TEST notification; returns its token.
    func requestTestNotification() throws -> String {
        let date = try currentTime()
        let token = UUID().uuidString.lowercased() + "_" + String(date.milliseconds)
        try ledger.write { try notify(.test, transaction: nil, account: "", at: date, testToken: token) }
        return token
    }

    func testNotification(token: String) throws -> ServerNotification? { try ledger.notification(testToken: token) }

    func notifications(_ filter: NotificationFilter, after: Int64?, limit: Int) throws -> [ServerNotification] {
        var filter = filter
        if let id = filter.customerTransactionID {
            guard let owner = try ledger.account(owning: id) else { return [] }
            (filter.account, filter.customerTransactionID) = (owner, nil)
        }
        return try ledger.notifications(filter, after: after, limit: limit)
    }

    /// The oldest notification `url` still waits for, whether its next attempt is due at the
    /// store's time now, and that time (the attempt's date): one read of the store.
    func nextNotification(for url: String, kept: Bool = false) throws
        -> (notification: ServerNotification, due: Bool, now: Date)? {
        try ledger.read {
            // A receiver kept in the store gets what was recorded after it was added; a --notify URL all it has not had.
            let receiver = try ledger.receivers().first { $0.url == url }
            // One removed since the sender read the list gets nothing more (not everything from the start).
            if kept, receiver == nil { return nil }
            let after = receiver?.afterNotificationID ?? 0
            let retries = notificationRetryDelays(in: try ledger.environment())  // none but in Production
            guard let next = try ledger.nextUndelivered(to: url, after: after, maxAttempts: retries.count + 1)
            else { return nil }
            let now = try currentTime()
            guard let last = next.attempts.last else { return (next, true, now) }
            let due = last.date.addingTimeInterval(retries[next.attempts.count - 1])
            // An attempt dated after now was made before the clock went back (`reset all`): its
            // retry is due now, not after the whole gap (it would hold up every later one).
            return (next, due <= now || last.date > now, now)
        }
    }

    /// Keeps one delivery attempt, dated by the store's clock (or `date`, when it was made then).
    func recordAttempt(notificationID: Int64, url: String, result: SendAttemptResult, at date: Date? = nil) throws {
        let attempt = NotificationAttempt(url: url, date: try date ?? currentTime(), result: result)
        // Not synced: the next notification is not held up by a disk flush. A record lost to a power
        // cut means that notification is sent again: at least once, as Apple's (notificationUUID tells).
        try ledger.write(durable: false) { try ledger.recordAttempt(notificationID: notificationID, attempt) }
    }

    func apiKeys() throws -> [APIKey] { try ledger.apiKeys() }

    func addAPIKey(keyID: String, issuerID: String, publicKeyPEM: String) throws -> APIKey {
        let key = APIKey(keyID: keyID, issuerID: issuerID, publicKeyPEM: publicKeyPEM, created: now())
        try ledger.write { try ledger.saveAPIKey(key) }
        return key
    }

    func removeAPIKey(_ keyID: String) throws -> Bool {
        try ledger.write { try ledger.removeAPIKey(keyID) }
    }

    /// The store's time now (for the server's checks of its clock).
    func storeTime() throws -> Date { try currentTime() }

    /// The `environment` new transactions and notifications carry.
    func appStoreEnvironment() throws -> String { try ledger.environment().appStoreName }
}

extension Store {
    /// A transaction of any account (the server answers for all of them).
    func anyTransaction(id: Int64) throws -> Transaction? { try ledger.transaction(id: id) }
}
