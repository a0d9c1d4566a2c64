/// A column of a result row, by the name SQL gives it: every read of a row names the column
/// it wants (``Row``), never its position, so a `SELECT` list in another order,
/// `SELECT *`, or a table whose columns were added in another order reads the same.
///
/// Each case is spelled as the store file spells the column (snake_case, as in the schema), so
/// one grep finds a column in the SQL and in the Swift. An expression in a `SELECT` list is named
/// with `AS` and a case here. The raw value is only where a prepared statement keeps the case's
/// position in its result (``ColumnLayout``): reading a cell costs an array index.
package enum Column: Int, CaseIterable, Sendable {
    // transactions (in ``Ledger/sealedColumns``' order)
    case id, original_id, account, product_id, product_type, purchase_date, original_purchase_date
    case expiration_date, revocation_date, revocation_reason, is_upgraded, ownership_type, quantity
    case app_account_token, environment, storefront, currency, price, reason, subscription_group_id
    case offer_type, status, finished, jws, pending_reason, offer_id, offer_discount_type, offer_period, seal
    // accounts, settings, events, app_owned, app_balances
    case name, created, value, date, state, transaction_id, detail, balance
    // signing_key, seal_head, verified_rows
    case private_key, leaf_certificate, intermediate_certificate, root_certificate, digest, mark
    // subscriptions
    case group_id, will_auto_renew, auto_renew_product_id, expiration_reason, billing_retry_since, grace_until
    // families, family_members, family_shares, refund_requests
    case organizer, family, joined, purchase_id, requested, decided
    // price_changes, price_increases, catalog_prices, messages
    case old_price, new_price, consent_required, source, change_id, notified, notice_ends
    // offer_keys, api_keys
    case key_id, issuer_id, public_key
    // notifications, notification_attempts, notification_receivers, mass_extensions
    case uuid, type, subtype, signed_date, signed_payload, test_token, url, result, added, after_id
    case request_id, extend_by_days, storefronts, complete_date, succeeded, failed
    // PRAGMA integrity_check's one column
    case integrity_check
    // PRAGMA quick_check's
    case quick_check
    // PostgreSQL's store_version and storefront_store (Ledger+PostgreSQL)
    case version, application_id, schema_version
    // Expressions, named with AS
    case renewal_offer, can_sign, term_end, commitment, refund_percentage

    /// The column's name in SQL.
    package var name: String { Self.names[rawValue] }

    /// The case named `name` in SQL, if there is one.
    package init?(name: String) {
        guard let column = Self.byName[name] else { return nil }
        self = column
    }

    private static let names = allCases.map { String(describing: $0) }
    private static let byName = Dictionary(uniqueKeysWithValues: allCases.map { (String(describing: $0), $0) })
}

extension [Column] {
    /// The columns as a `SELECT` list: `a, b, c`.
    package var selectList: String { map(\.name).joined(separator: ", ") }
}
