import CSQLite
import Foundation
import StoreCatalog
import StoreSigning

/// Schema 8's SQL: price changes, subscribers' price increases, the catalog prices seen last,
/// the App Store's messages, and the reads win-back eligibility needs.
extension Ledger {
    // MARK: - Price changes

    package func insertPriceChange(productID: String, storefront: String, old: Decimal, new: Decimal, consentRequired: Bool,
                           at date: Date, source: String) throws(DatabaseError) -> Int64 {
        try db.scalar("""
            INSERT INTO price_changes (product_id, storefront, old_price, new_price, consent_required, date, source)
            VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id
            """, productID, storefront, DecimalText.format(old), DecimalText.format(new), consentRequired, date.milliseconds, source) ?? 0
    }

    /// Each product's price in a storefront as the newest change set it (the catalog's otherwise).
    package func changedPrices(storefront: String) throws(DatabaseError) -> [String: Decimal] {
        var prices: [String: Decimal] = [:]
        try db.query("""
            SELECT product_id, new_price FROM price_changes WHERE id IN
              (SELECT max(id) FROM price_changes WHERE storefront = ? GROUP BY product_id)
            """, [storefront]) { row in prices[row.text(.product_id)] = DecimalText.parse(row.text(.new_price)) }
        return prices
    }

    /// Every price change, oldest first.
    package func priceChanges() throws(DatabaseError) -> [PriceChange] {
        try db.rows("""
            SELECT id, product_id, storefront, old_price, new_price, consent_required, date, source FROM price_changes ORDER BY id
            """) { row in
            PriceChange(id: row.int64(.id), productID: row.text(.product_id), storefront: row.text(.storefront),
                        oldPrice: DecimalText.parse(row.text(.old_price)) ?? 0, newPrice: DecimalText.parse(row.text(.new_price)) ?? 0,
                        requiresConsent: row.bool(.consent_required), date: Date(milliseconds: row.int64(.date)), source: row.text(.source))
        }
    }

    /// When the product's price last rose in the storefront without asking for consent (Apple allows that once a year).
    package func lastIncreaseWithoutConsent(productID: String, storefront: String) throws(DatabaseError) -> Date? {
        try db.rows("""
            SELECT date FROM price_changes WHERE product_id = ? AND storefront = ? AND consent_required = 0
              AND CAST(new_price AS NUMERIC) > CAST(old_price AS NUMERIC) ORDER BY id DESC LIMIT 1
            """, productID, storefront) { Date(milliseconds: $0.int64(.date)) }.first
    }

    // MARK: - Subscribers' price increases

    private static let increaseColumns = """
        account, group_id, original_id, change_id, product_id, storefront, old_price, new_price, consent_required,
        notified, notice_ends, status
        """

    private func increase(_ row: Row) -> PriceIncrease {
        PriceIncrease(account: row.text(.account), groupID: row.text(.group_id), originalTransactionID: row.int64(.original_id), changeID: row.int64(.change_id),
                      productID: row.text(.product_id), storefront: row.text(.storefront), oldPrice: DecimalText.parse(row.text(.old_price)) ?? 0,
                      newPrice: DecimalText.parse(row.text(.new_price)) ?? 0, requiresConsent: row.bool(.consent_required),
                      notified: Date(milliseconds: row.int64(.notified)), noticeEnds: Date(milliseconds: row.int64(.notice_ends)),
                      status: PriceIncreaseStatus(rawValue: row.text(.status)) ?? .pending)
    }

    /// The price increase a subscription of the account waits for, if any.
    package func priceIncrease(account: String, groupID: String) throws(DatabaseError) -> PriceIncrease? {
        try db.rows("SELECT \(Self.increaseColumns) FROM price_increases WHERE account = ? AND group_id = ?",
                    account, groupID, as: increase).first
    }

    /// The price increases subscribers wait for: of one account, or all.
    package func priceIncreases(account: String? = nil) throws(DatabaseError) -> [PriceIncrease] {
        if let account {
            return try db.rows("SELECT \(Self.increaseColumns) FROM price_increases WHERE account = ? ORDER BY group_id",
                               account, as: increase)
        }
        return try db.rows("SELECT \(Self.increaseColumns) FROM price_increases ORDER BY account, group_id", as: increase)
    }

    package func savePriceIncrease(_ increase: PriceIncrease) throws(DatabaseError) {
        try db.run("""
            INSERT INTO price_increases (\(Self.increaseColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (account, group_id) DO UPDATE SET original_id = excluded.original_id, change_id = excluded.change_id,
                product_id = excluded.product_id, storefront = excluded.storefront, old_price = excluded.old_price,
                new_price = excluded.new_price, consent_required = excluded.consent_required, notified = excluded.notified,
                notice_ends = excluded.notice_ends, status = excluded.status
            """, increase.account, increase.groupID, increase.originalTransactionID, increase.changeID, increase.productID,
            increase.storefront, DecimalText.format(increase.oldPrice), DecimalText.format(increase.newPrice),
            increase.requiresConsent, increase.notified.milliseconds, increase.noticeEnds.milliseconds, increase.status.rawValue)
    }

    package func deletePriceIncrease(account: String, groupID: String) throws(DatabaseError) {
        try db.run("DELETE FROM price_increases WHERE account = ? AND group_id = ?", account, groupID)
    }

    /// Forgets every waiting increase of a product in a storefront (its price came down again).
    package func deletePriceIncreases(productID: String, storefront: String) throws(DatabaseError) {
        try db.run("DELETE FROM price_increases WHERE product_id = ? AND storefront = ?", productID, storefront)
    }

    // MARK: - Catalog prices seen

    package func catalogPrices(storefront: String) throws(DatabaseError) -> [String: Decimal] {
        var prices: [String: Decimal] = [:]
        try db.query("SELECT product_id, price FROM catalog_prices WHERE storefront = ?", [storefront]) { row in
            prices[row.text(.product_id)] = DecimalText.parse(row.text(.price))
        }
        return prices
    }

    package func saveCatalogPrice(productID: String, storefront: String, price: Decimal) throws(DatabaseError) {
        try db.run("""
            INSERT INTO catalog_prices (product_id, storefront, price) VALUES (?, ?, ?)
            ON CONFLICT (product_id, storefront) DO UPDATE SET price = excluded.price
            """, productID, storefront, DecimalText.format(price))
    }

    // MARK: - Messages

    private static let messageColumns = "id, account, reason, product_id, offer_id, created, state"

    private func message(_ row: Row) -> StoreMessage {
        StoreMessage(id: row.int64(.id), account: row.text(.account), reason: MessageReason(rawValue: row.text(.reason)) ?? .generic,
                     productID: row.optionalText(.product_id), offerID: row.optionalText(.offer_id), created: Date(milliseconds: row.int64(.created)),
                     state: StoreMessage.State(rawValue: row.text(.state)) ?? .pending)
    }

    /// Queues a message; one with a `key` is queued once (a second one for the same event is ignored).
    @discardableResult
    package func queueMessage(account: String, reason: MessageReason, productID: String? = nil, offerID: String? = nil,
                      key: String? = nil, at date: Date) throws(DatabaseError) -> Int64? {
        try db.scalar("""
            INSERT INTO messages (account, reason, product_id, offer_id, key, created, state) VALUES (?, ?, ?, ?, ?, ?, 'pending')
            ON CONFLICT DO NOTHING RETURNING id
            """, account, reason.rawValue, productID, offerID, key, date.milliseconds)
    }

    /// Whether the account has a message queued for the event `key`.
    package func hasMessage(account: String, key: String) throws(DatabaseError) -> Bool {
        try db.scalar("SELECT count(*) FROM messages WHERE account = ? AND key = ?", account, key) ?? 0 > 0
    }

    /// The account's messages, oldest first.
    package func messages(account: String) throws(DatabaseError) -> [StoreMessage] {
        try db.rows("SELECT \(Self.messageColumns) FROM messages WHERE account = ? ORDER BY id", account, as: message)
    }

    package func message(id: Int64, account: String) throws(DatabaseError) -> StoreMessage? {
        try db.rows("SELECT \(Self.messageColumns) FROM messages WHERE id = ? AND account = ?", id, account, as: message).first
    }

    package func setMessageState(id: Int64, _ state: StoreMessage.State) throws(DatabaseError) {
        try db.run("UPDATE messages SET state = ? WHERE id = ?", state.rawValue, id)
    }

    /// Marks the account's waiting messages of a reason (about a product) as displayed: what they asked was answered.
    package func settleMessages(account: String, reason: MessageReason, productID: String) throws(DatabaseError) {
        try db.run("""
            UPDATE messages SET state = 'displayed' WHERE account = ? AND reason = ? AND product_id = ? AND state != 'displayed'
            """, account, reason.rawValue, productID)
    }

    // MARK: - What win-back eligibility reads

    /// The paid periods of a subscription (not free, not revoked), as start and end.
    package func paidPeriods(originalID: Int64) throws(DatabaseError) -> [(start: Date, end: Date)] {
        try db.rows("""
            SELECT purchase_date, coalesce(CASE WHEN revocation_date < expiration_date THEN revocation_date ELSE expiration_date END, purchase_date) AS term_end, price
            FROM transactions WHERE original_id = ? AND status = 'purchased' ORDER BY id
            """, originalID) { row in
            (DecimalText.parse(row.text(.price)) ?? 0) > 0
                ? (Date(milliseconds: row.int64(.purchase_date)), Date(milliseconds: max(row.int64(.purchase_date), row.int64(.term_end)))) : nil
        }.compactMap { $0 }
    }

    /// When the account last bought a subscription of the group with an offer of this type.
    package func latestOfferPurchase(account: String, groupID: String, offerType: Transaction.OfferType) throws(DatabaseError) -> Date? {
        try db.rows("""
            SELECT purchase_date FROM transactions WHERE account = ? AND subscription_group_id = ? AND offer_type = ?
              AND status = 'purchased' AND reason != ? ORDER BY id DESC LIMIT 1
            """, account, groupID, offerType.rawValue, Self.renewalReason) { Date(milliseconds: $0.int64(.purchase_date)) }.first
    }
}
