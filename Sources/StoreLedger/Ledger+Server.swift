import CSQLite
import Foundation
import StoreCatalog
import StoreSigning

/// What the App Store Server API and Server Notifications read and write: the customer's
/// history page by page, refunds, notifications with their delivery attempts, API keys.
extension Ledger {
    // MARK: - History

    /// The account that made transaction `id` (or whose subscription has it as original id).
    package func account(owning id: Int64) throws(DatabaseError) -> String? {
        try db.rows("SELECT account FROM transactions WHERE id = ? OR original_id = ? LIMIT 1", id, id) { $0.text(.account) }.first
    }

    /// One page of an account's completed transactions in the order of their last change
    /// (``historyRevisionTables``; `ascending` or not), after the revision `after` (exclusive),
    /// filtered as the history query asks. Fetches one more than `limit`, so the caller knows
    /// whether there is more.
    package func historyPage(account: String, query: HistoryQuery, after: Int64?, limit: Int) throws(DatabaseError) -> [Transaction] {
        var terms = ["account = ?", "status = 'purchased'", "jws IS NOT NULL"]
        var parameters: [any SQLBindable] = [account]
        if let after {
            terms.append(query.ascending ? "revisions.revision > ?" : "revisions.revision < ?")
            parameters.append(after)
        }
        if let start = query.startDate {
            terms.append("purchase_date >= ?")
            parameters.append(start.milliseconds)
        }
        if let end = query.endDate {
            terms.append("purchase_date < ?")
            parameters.append(end.milliseconds)
        }
        // Placeholders only: the values are bound, never spliced into the SQL.
        func oneOf(_ column: String, _ values: [String]) {
            guard !values.isEmpty else { return }
            terms.append("\(column) IN (\(Array(repeating: "?", count: values.count).joined(separator: ", ")))")
            parameters.append(contentsOf: values as [any SQLBindable])
        }
        oneOf("product_id", query.productIDs)
        oneOf("product_type", query.productTypes.map(\.rawValue))
        oneOf("subscription_group_id", query.subscriptionGroupIDs)
        if let ownership = query.ownershipType {
            terms.append("ownership_type = ?")
            parameters.append(ownership.rawValue)
        }
        if query.excludesFinishedConsumables {
            terms.append("NOT (product_type = 'consumable' AND finished = 1 AND revocation_date IS NULL)")
        }
        if let revoked = query.revoked {
            terms.append(revoked ? "revocation_date IS NOT NULL" : "revocation_date IS NULL")
        }
        parameters.append(limit + 1)
        return try verifiedTransactions("""
            SELECT \(Self.verifiedColumns) FROM transactions
            JOIN history_revisions AS revisions ON revisions.transaction_id = transactions.id
            WHERE \(terms.joined(separator: " AND "))
            ORDER BY revisions.revision \(query.ascending ? "ASC" : "DESC") LIMIT ?
            """, parameters, reusable: true)
    }

    // MARK: - Notifications

    static let notificationColumns = "id, uuid, account, type, subtype, transaction_id, original_id, signed_date, signed_payload, test_token"

    package func notification(_ row: Row) -> ServerNotification {
        ServerNotification(
            id: row.int64(.id), uuid: row.text(.uuid), account: row.text(.account), type: row.text(.type), subtype: row.optionalText(.subtype),
            transactionID: row.optionalInt64(.transaction_id), originalTransactionID: row.optionalInt64(.original_id),
            signedDate: Date(milliseconds: row.int64(.signed_date)), signedPayload: row.text(.signed_payload), testNotificationToken: row.optionalText(.test_token))
    }

    /// Records a notification: called inside the write that makes its event.
    package func insertNotification(_ notification: ServerNotification) throws(DatabaseError) -> Int64 {
        try db.scalar("""
            INSERT INTO notifications (uuid, account, type, subtype, transaction_id, original_id, signed_date, signed_payload, test_token)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id
            """, notification.uuid, notification.account, notification.type, notification.subtype, notification.transactionID,
            notification.originalTransactionID, notification.signedDate.milliseconds, notification.signedPayload,
            notification.testNotificationToken) ?? 0
    }

    /// Notifications in id order, with their attempts; filtered by what the history request names.
    package func notifications(_ filter: NotificationFilter, after: Int64?, limit: Int) throws(DatabaseError) -> [ServerNotification] {
        var terms = ["TRUE"]
        var parameters: [any SQLBindable] = []
        if let after { terms.append("id > ?"); parameters.append(after) }
        if let start = filter.startDate { terms.append("signed_date >= ?"); parameters.append(start.milliseconds) }
        if let end = filter.endDate { terms.append("signed_date < ?"); parameters.append(end.milliseconds) }
        if let type = filter.type { terms.append("type = ?"); parameters.append(type) }
        if let subtype = filter.subtype { terms.append("subtype IS NOT DISTINCT FROM ?"); parameters.append(subtype) }
        if let account = filter.account { terms.append("account = ?"); parameters.append(account) }
        if let transaction = filter.originalTransactionID { terms.append("original_id = ?"); parameters.append(transaction) }
        if let transaction = filter.transactionID {
            terms.append("(transaction_id = ? OR original_id = ?)")
            parameters.append(transaction)
            parameters.append(transaction)
        }
        if filter.onlyFailures {
            terms.append("""
                EXISTS (SELECT 1 FROM notification_attempts WHERE notification_id = notifications.id AND result != 'SUCCESS')
                """)
        }
        parameters.append(limit)
        var found: [ServerNotification] = []
        try db.query("""
            SELECT \(Self.notificationColumns) FROM notifications WHERE \(terms.joined(separator: " AND ")) ORDER BY id LIMIT ?
            """, parameters) { row in found.append(notification(row)) }
        for index in found.indices { found[index].attempts = try attempts(of: found[index].id) }
        return found
    }

    package func notification(testToken: String) throws(DatabaseError) -> ServerNotification? {
        guard var found = try db.rows("SELECT \(Self.notificationColumns) FROM notifications WHERE test_token = ?", testToken,
                                      as: notification).first else { return nil }
        found.attempts = try attempts(of: found.id)
        return found
    }

    package func attempts(of id: Int64) throws(DatabaseError) -> [NotificationAttempt] {
        try db.rows("SELECT url, date, result FROM notification_attempts WHERE notification_id = ? ORDER BY rowid", id) { row in
            NotificationAttempt(url: row.text(.url), date: Date(milliseconds: row.int64(.date)),
                                result: SendAttemptResult(rawValue: row.text(.result)) ?? .other)
        }
    }

    /// The oldest notification `url` has not had yet: no successful attempt, and fewer than
    /// `maxAttempts`. With its attempts to that URL so far.
    /// Only notifications after the id `after` (a receiver kept in the store gets those recorded after it was added).
    package func nextUndelivered(to url: String, after: Int64 = 0, maxAttempts: Int) throws(DatabaseError) -> ServerNotification? {
        guard var found = try db.rows("""
            SELECT \(Self.notificationColumns) FROM notifications n
            WHERE n.id > ? AND NOT EXISTS (SELECT 1 FROM notification_attempts a WHERE a.notification_id = n.id AND a.url = ? AND a.result = 'SUCCESS')
              AND (SELECT count(*) FROM notification_attempts a WHERE a.notification_id = n.id AND a.url = ?) < ?
            ORDER BY n.id LIMIT 1
            """, after, url, url, maxAttempts, as: notification).first else { return nil }
        found.attempts = try attempts(of: found.id).filter { $0.url == url }
        return found
    }

    package func recordAttempt(notificationID: Int64, _ attempt: NotificationAttempt) throws(DatabaseError) {
        try db.run("INSERT INTO notification_attempts (notification_id, url, date, result) VALUES (?, ?, ?, ?)",
                   notificationID, attempt.url, attempt.date.milliseconds, attempt.result.rawValue)
    }

    /// The newest notification's id (0 when none): a cheap look for the sender between its rounds.
    package func newestNotificationID() throws(DatabaseError) -> Int64 {
        try db.scalar("SELECT coalesce(max(id), 0) FROM notifications") ?? 0
    }

    // MARK: - Receivers kept in the store

    package func receivers() throws(DatabaseError) -> [NotificationReceiver] {
        try db.rows("SELECT url, added, after_id FROM notification_receivers ORDER BY added, url") { row in
            NotificationReceiver(url: row.text(.url), added: Date(milliseconds: row.int64(.added)), afterNotificationID: row.int64(.after_id))
        }
    }

    /// Adds a receiver that gets the notifications recorded from now on (false when it was there already).
    package func addReceiver(_ url: String, at date: Date) throws(DatabaseError) -> Bool {
        try db.run("""
            INSERT INTO notification_receivers (url, added, after_id)
            VALUES (?, ?, (SELECT coalesce(max(id), 0) FROM notifications))
            ON CONFLICT DO NOTHING
            """, url, date.milliseconds)
        return db.changes > 0
    }

    package func removeReceiver(_ url: String) throws(DatabaseError) -> Bool {
        try db.run("DELETE FROM notification_receivers WHERE url = ?", url)
        return db.changes > 0
    }

    // MARK: - Mass extensions

    package func massExtension(productID: String, requestID: String) throws(DatabaseError) -> MassExtension? {
        try db.rows("""
            SELECT product_id, request_id, extend_by_days, storefronts, complete_date, succeeded, failed
            FROM mass_extensions WHERE product_id = ? AND request_id = ?
            """, productID, requestID) { row in
            MassExtension(productID: row.text(.product_id), requestIdentifier: row.text(.request_id), extendByDays: Int(row.int64(.extend_by_days)),
                          storefrontCountryCodes: row.text(.storefronts).split(separator: ",").map(String.init),
                          completeDate: Date(milliseconds: row.int64(.complete_date)), succeededCount: Int(row.int64(.succeeded)),
                          failedCount: Int(row.int64(.failed)))
        }.first
    }

    package func saveMassExtension(_ request: MassExtension) throws(DatabaseError) {
        try db.run("""
            INSERT INTO mass_extensions (product_id, request_id, extend_by_days, storefronts, complete_date, succeeded, failed)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            """, request.productID, request.requestIdentifier, request.extendByDays,
            request.storefrontCountryCodes.joined(separator: ","), request.completeDate.milliseconds,
            request.succeededCount, request.failedCount)
    }

    // MARK: - API keys

    package func apiKeys() throws(DatabaseError) -> [APIKey] {
        try db.rows("SELECT key_id, issuer_id, public_key, created FROM api_keys ORDER BY created, key_id") { row in
            APIKey(keyID: row.text(.key_id), issuerID: row.text(.issuer_id), publicKeyPEM: row.text(.public_key), created: Date(milliseconds: row.int64(.created)))
        }
    }

    package func saveAPIKey(_ key: APIKey) throws(DatabaseError) {
        try db.run("""
            INSERT INTO api_keys (key_id, issuer_id, public_key, created) VALUES (?, ?, ?, ?)
            ON CONFLICT (key_id) DO UPDATE SET issuer_id = excluded.issuer_id, public_key = excluded.public_key, created = excluded.created
            """, key.keyID, key.issuerID, key.publicKeyPEM, key.created.milliseconds)
    }

    package func removeAPIKey(_ keyID: String) throws(DatabaseError) -> Bool {
        try db.run("DELETE FROM api_keys WHERE key_id = ?", keyID)
        return db.changes > 0
    }
}

// MARK: - Promotional offer keys and nonces (schema 7)

extension Ledger {
    package func offerKeys() throws(DatabaseError) -> [OfferKey] {
        try db.rows("""
            SELECT key_id, issuer_id, public_key, private_key IS NOT NULL AS can_sign, created FROM offer_keys ORDER BY created, key_id
            """) { row in
            OfferKey(keyID: row.text(.key_id), issuerID: row.optionalText(.issuer_id), publicKeyPEM: row.text(.public_key), canSign: row.bool(.can_sign),
                     created: Date(milliseconds: row.int64(.created)))
        }
    }

    package func offerPrivateKey(_ keyID: String) throws(DatabaseError) -> String? {
        try db.rows("SELECT private_key FROM offer_keys WHERE key_id = ?", keyID) { $0.optionalText(.private_key) }.first ?? nil
    }

    package func saveOfferKey(_ key: OfferKey, privateKeyPEM: String?) throws(DatabaseError) {
        try db.run("""
            INSERT INTO offer_keys (key_id, issuer_id, public_key, private_key, created) VALUES (?, ?, ?, ?, ?)
            ON CONFLICT (key_id) DO UPDATE SET issuer_id = excluded.issuer_id, public_key = excluded.public_key,
                private_key = excluded.private_key, created = excluded.created
            """, key.keyID, key.issuerID, key.publicKeyPEM, privateKeyPEM, key.created.milliseconds)
    }

    /// Forgets an offer key; false when there was none of that id.
    package func removeOfferKey(_ keyID: String) throws(DatabaseError) -> Bool {
        try db.run("DELETE FROM offer_keys WHERE key_id = ?", keyID)
        return db.changes > 0
    }

    /// Records a signature's nonce; false when it was used before.
    /// Whether a promotional offer's nonce was used by a purchase already.
    package func isOfferNonceUsed(_ nonce: String) throws(DatabaseError) -> Bool {
        try db.scalar("SELECT count(*) FROM offer_nonces WHERE nonce = ?", nonce) ?? 0 > 0
    }

    package func useOfferNonce(_ nonce: String, account: String, at date: Date) throws(DatabaseError) -> Bool {
        try db.run("INSERT INTO offer_nonces (nonce, account, used) VALUES (?, ?, ?) ON CONFLICT DO NOTHING", nonce, account, date.milliseconds)
        return db.changes > 0
    }
}
