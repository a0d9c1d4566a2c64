import CSQLite
import Dispatch
import Foundation
import StoreCatalog
import StoreSigning

/// Everything else the store file keeps: accounts, subscription records, the app's side, settings, the event log, resets.
extension Ledger {
    // MARK: - Accounts

    package func ensureAccount(_ name: String, at date: Date) throws(DatabaseError) {
        try db.run("INSERT INTO accounts (name, created) VALUES (?, ?) ON CONFLICT DO NOTHING", name, date.milliseconds)
    }

    /// When the account first used the store; nil when it never has.
    package func accountCreated(_ name: String) throws(DatabaseError) -> Date? {
        try db.rows("SELECT created FROM accounts WHERE name = ?", name) { Date(milliseconds: $0.int64(.created)) }.first
    }

    package func accounts() throws(DatabaseError) -> [String] {
        try db.rows("SELECT name FROM accounts ORDER BY created, name") { $0.text(.name) }
    }

    // MARK: - Subscriptions

    /// Each subscription group's renewal state for an account, with the promotional offer
    /// waiting for its next renewal (kept beside the account's settings, under ``renewalOfferPrefix``).
    package func subscriptionStates(account: String) throws(DatabaseError) -> [SubscriptionRecord] {
        try db.rows("""
            SELECT s.account, s.group_id, s.original_id, s.will_auto_renew, s.auto_renew_product_id, s.expiration_reason,
                   s.billing_retry_since, s.grace_until, s.seal, o.value AS renewal_offer
            FROM subscriptions s LEFT JOIN settings o ON o.account = s.account AND o.name = ? || s.group_id
            WHERE s.account = ? ORDER BY s.group_id
            """, Self.renewalOfferPrefix, account) { row -> SubscriptionRecord? in
            // A row whose seal does not match was edited: read as absent (no grace, no renewal from it).
            guard isSealed(row, in: Self.sealedSubscriptions) else { return nil }
            return SubscriptionRecord(
                groupID: row.text(.group_id), originalID: row.int64(.original_id), willAutoRenew: row.bool(.will_auto_renew),
                autoRenewProductID: row.text(.auto_renew_product_id), expirationReason: row.optionalText(.expiration_reason).map { ExpirationReason(rawValue: $0) ?? .unknown },
                billingRetrySince: row.optionalInt64(.billing_retry_since).map(Date.init(milliseconds:)),
                graceUntil: row.optionalInt64(.grace_until).map(Date.init(milliseconds:)), renewalOfferID: row.optionalText(.renewal_offer))
        }.compactMap { $0 }
    }

    /// Where a subscription's promotional offer for the next renewal is kept: a row of the
    /// account's settings named this and the group id (no schema change; reset with the account).
    static let renewalOfferPrefix = "subscription.renewalOffer."

    /// Every account with a subscription, for renewals made across the store.
    package func subscribedAccounts() throws(DatabaseError) -> [String] {
        try db.rows("SELECT DISTINCT account FROM subscriptions ORDER BY account") { $0.text(.account) }
    }

    package func saveSubscription(_ record: SubscriptionRecord, account: String) throws(DatabaseError) {
        try db.run("""
            INSERT INTO subscriptions (account, group_id, original_id, will_auto_renew, auto_renew_product_id,
                expiration_reason, billing_retry_since, grace_until) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (account, group_id) DO UPDATE SET original_id = excluded.original_id,
                will_auto_renew = excluded.will_auto_renew, auto_renew_product_id = excluded.auto_renew_product_id,
                expiration_reason = excluded.expiration_reason, billing_retry_since = excluded.billing_retry_since,
                grace_until = excluded.grace_until
            """, account, record.groupID, record.originalID, record.willAutoRenew, record.autoRenewProductID,
            record.expirationReason?.rawValue, record.billingRetrySince?.milliseconds, record.graceUntil?.milliseconds)
        try resealRecord(Self.sealedSubscriptions, [account, record.groupID])
        if let offer = record.renewalOfferID {
            try setSetting(Self.renewalOfferPrefix + record.groupID, account: account, value: offer)
        } else {
            try removeSetting(Self.renewalOfferPrefix + record.groupID, account: account)
        }
    }

    /// Forgets a subscription group's record (its last transaction was deleted).
    package func deleteSubscription(account: String, groupID: String) throws(DatabaseError) {
        try unsealRecord(Self.sealedSubscriptions, [account, groupID])
        try db.run("DELETE FROM subscriptions WHERE account = ? AND group_id = ?", account, groupID)
        try removeSetting(Self.renewalOfferPrefix + groupID, account: account)
    }

    /// The newest transaction of a subscription (renewals included).
    package func latestTransaction(originalID: Int64) throws(DatabaseError) -> Transaction? {
        try db.rows("SELECT \(Self.verifiedColumns) FROM transactions WHERE original_id = ? AND status = 'purchased' ORDER BY id DESC LIMIT 1",
                    originalID, as: transaction).first
    }

    /// The newest transaction of each subscription, by original id, read and verified in one go
    /// (rows another read verified meanwhile taken as they were, ``ReadCache``): the paywall's
    /// statuses read a hundred subscriptions' rows again, one query each, with their JWS.
    package func latestTransactions(originalIDs: [Int64]) throws(DatabaseError) -> [Int64: Transaction] {
        var latest: [Int64: Transaction] = [:]
        // A few hundred values a statement: well under any build's limit of variables.
        for start in stride(from: 0, to: originalIDs.count, by: 500) {
            let chunk = Array(originalIDs[start..<min(start + 500, originalIDs.count)])
            // Typed: PostgreSQL takes a bare parameter in VALUES as text.
            let values = Array(repeating: "(CAST(? AS BIGINT))", count: chunk.count).joined(separator: ", ")
            let read = try verifiedTransactions("""
                WITH wanted(original_id) AS (VALUES \(values))
                SELECT \(Self.verifiedColumns) FROM transactions
                WHERE id IN (SELECT (SELECT id FROM transactions l WHERE l.original_id = wanted.original_id AND l.status = 'purchased'
                                     ORDER BY l.id DESC LIMIT 1) FROM wanted)
                """, chunk)
            for transaction in read { latest[transaction.originalID] = transaction }
        }
        return latest
    }

    /// The newest transaction of each of the account's subscriptions, its dates only (no signature
    /// checked), by original id: whether a renewal is due, asked at every read, in one query.
    package func latestTerms(account: String) throws(DatabaseError) -> [Int64: (revocationDate: Date?, expirationDate: Date?)] {
        var terms: [Int64: (revocationDate: Date?, expirationDate: Date?)] = [:]
        try db.query("""
            SELECT t.original_id, t.revocation_date, t.expiration_date FROM subscriptions s
            JOIN transactions t ON t.id = (SELECT id FROM transactions l WHERE l.original_id = s.original_id
                                           AND l.status = 'purchased' ORDER BY l.id DESC LIMIT 1)
            WHERE s.account = ?
            """, [account]) { row in
            terms[row.int64(.original_id)] = (row.optionalInt64(.revocation_date).map(Date.init(milliseconds:)), row.optionalInt64(.expiration_date).map(Date.init(milliseconds:)))
        }
        return terms
    }

    /// The newest `limit` periods of a subscription, newest first, without their signatures:
    /// what the day of the month and a running offer are worked out from.
    package func subscriptionLinks(originalID: Int64, limit: Int) throws(DatabaseError) -> [SubscriptionLink] {
        try db.rows("""
            SELECT product_id, reason, offer_type, offer_id, purchase_date, expiration_date FROM transactions
            WHERE original_id = ? AND status = 'purchased' ORDER BY id DESC LIMIT ?
            """, originalID, limit) { row in
            SubscriptionLink(
                productID: row.text(.product_id), isPurchase: row.text(.reason) != Self.renewalReason,
                offerType: row.optionalText(.offer_type).flatMap(Transaction.OfferType.init(rawValue:)), offerID: row.optionalText(.offer_id),
                purchaseDate: Date(milliseconds: row.int64(.purchase_date)), expirationDate: row.optionalInt64(.expiration_date).map(Date.init(milliseconds:)))
        }
    }

    /// `recentSubscriptionStartDate`: the start of the subscription's newest run of service
    /// with no lapse longer than `gap` (Apple: 60 days; 10 minutes in the sandbox). An upgrade starts within the period it replaces,
    /// so it continues the run; a period ends at its expiry, or at its refund when earlier.
    package func recentSubscriptionStart(originalID: Int64, gap: TimeInterval = 60 * 86_400) throws(DatabaseError) -> Date? {
        try db.rows("""
            SELECT purchase_date FROM (
                SELECT id, purchase_date, max(CASE WHEN revocation_date < expiration_date THEN revocation_date
                                                   ELSE coalesce(expiration_date, purchase_date) END)
                           OVER (ORDER BY id ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS covered_until
                FROM transactions WHERE original_id = ? AND status = 'purchased') AS periods
            WHERE covered_until IS NULL OR purchase_date - covered_until > ?
            ORDER BY id DESC LIMIT 1
            """, originalID, Int64(gap * 1_000)) { Date(milliseconds: $0.int64(.purchase_date)) }.first
    }

    // MARK: - App side

    package func recordOwned(account: String, productID: String, transactionID: Int64) throws(DatabaseError) {
        // Unchanged rows are not written again: a restore of what the app has already writes its log only.
        try db.run("""
            INSERT INTO app_owned (account, product_id, transaction_id) VALUES (?, ?, ?)
            ON CONFLICT (account, product_id) DO UPDATE SET transaction_id = excluded.transaction_id
            WHERE app_owned.transaction_id != excluded.transaction_id
            """, account, productID, transactionID)
    }

    /// The app forgets what a revoked transaction granted (it arrived as an update).
    package func forgetOwned(transactionID: Int64) throws(DatabaseError) {
        try db.run("DELETE FROM app_owned WHERE transaction_id = ?", transactionID)
    }

    /// The app's cache of owned products: product id → the transaction that granted it.
    package func owned(account: String) throws(DatabaseError) -> [String: Int64] {
        var owned: [String: Int64] = [:]
        try db.query("SELECT product_id, transaction_id FROM app_owned WHERE account = ?", [account]) { row in
            owned[row.text(.product_id)] = row.int64(.transaction_id)
        }
        return owned
    }

    /// The app's consumable balances, by product id: a row whose seal does not match (edited) counts as none.
    package func balances(account: String) throws(DatabaseError) -> [String: Int] {
        var balances: [String: Int] = [:]
        try db.query("SELECT \(Self.selectList(Self.sealedBalances)) FROM app_balances WHERE account = ?", [account]) { row in
            if isSealed(row, in: Self.sealedBalances) { balances[row.text(.product_id)] = row.int(.balance) }
        }
        return balances
    }

    /// One consumable's balance: 0 when it has none, or its row's seal does not match (edited).
    package func balance(account: String, productID: String) throws(DatabaseError) -> Int {
        var balance = 0
        try db.query("SELECT \(Self.selectList(Self.sealedBalances)) FROM app_balances WHERE account = ? AND product_id = ?",
                     [account, productID]) { row in
            if isSealed(row, in: Self.sealedBalances) { balance = row.int(.balance) }
        }
        return balance
    }

    /// Adds `amount` (negative to spend) to a sealed balance; an edited one is replaced, from 0.
    package func addToBalance(account: String, productID: String, amount: Int) throws(DatabaseError) {
        let balance = try balance(account: account, productID: productID)
        try db.run("""
            INSERT INTO app_balances (account, product_id, balance) VALUES (?, ?, ?)
            ON CONFLICT (account, product_id) DO UPDATE SET balance = excluded.balance
            """, account, productID, balance + amount)
        try resealRecord(Self.sealedBalances, [account, productID])
    }

    // MARK: - Settings

    package func setting(_ name: String, account: String) throws(DatabaseError) -> String? {
        if settingsMemo == nil, let read = settingsRead, read.holds(name, account: account) { return read.values[account]?[name] }
        guard var memo = settingsMemo else {
            settingQueries += 1
            return try db.rows("SELECT value FROM settings WHERE account = ? AND name = ?", account, name) { $0.text(.value) }.first
        }
        if let settings = memo.accounts[account] { return settings[name] }
        settingQueries += 1
        let settings = Dictionary(try db.rows("SELECT name, value FROM settings WHERE account = ?", account) {
            ($0.text(.name), $0.text(.value))
        }, uniquingKeysWith: { first, _ in first })
        memo.accounts[account] = settings
        settingsMemo = memo
        return settings[name]
    }

    /// Of `keys`, in order of precedence, the first setting set: its position in `keys` and its
    /// value. Outside a write or read all are read in one statement (a setting and its starting
    /// value: one round trip on PostgreSQL, not two); inside one, from what it remembers.
    package func firstSetting(of keys: [(name: String, account: String)]) throws(DatabaseError) -> (index: Int, value: String)? {
        let remembered = settingsMemo != nil || keys.allSatisfy { settingsRead?.holds($0.name, account: $0.account) == true }
        let values = remembered ? nil : try settingRows(names: keys.map { $0.name }, accounts: keys.map { $0.account })
        for (index, key) in keys.enumerated() {
            let value = if let values { values[key.account]?[key.name] } else { try setting(key.name, account: key.account) }
            if let value { return (index, value) }
        }
        return nil
    }

    /// Runs `body` with the settings `names` of each of `accounts` read first, in one statement,
    /// and its reads of them answered by that read: a check that needs a handful (the clock's,
    /// billing's) makes one round trip, not one each, and sees them as of one instant. Only
    /// outside a write or read (which remember settings anyway), and only until a write begins
    /// or a setting changes: nothing is kept across a write, or past `body`.
    package func readingSettings<T>(_ names: [String], of accounts: [String], _ body: () throws -> T) throws -> T {
        guard settingsMemo == nil, settingsRead == nil else { return try body() }
        let values = try settingRows(names: names, accounts: accounts)
        settingsRead = SettingsRead(names: Set(names), accounts: Set(accounts), values: values)
        defer { settingsRead = nil }
        return try body()
    }

    /// The settings among `names` of the accounts among `accounts` that are set, by account then name: one statement.
    private func settingRows(names: [String], accounts: [String]) throws(DatabaseError) -> [String: [String: String]] {
        func unique(_ values: [String]) -> [String] { var seen = Set<String>(); return values.filter { seen.insert($0).inserted } }
        let (names, accounts) = (unique(names), unique(accounts))
        func placeholders(_ count: Int) -> String { Array(repeating: "?", count: count).joined(separator: ", ") }
        settingQueries += 1
        var values: [String: [String: String]] = [:]
        try db.query("""
            SELECT account, name, value FROM settings
            WHERE account IN (\(placeholders(accounts.count))) AND name IN (\(placeholders(names.count)))
            """, accounts + names) { row in
            values[row.text(.account), default: [:]][row.text(.name)] = row.text(.value)
        }
        return values
    }

    package func setSetting(_ name: String, account: String, value: String) throws(DatabaseError) {
        try db.run("""
            INSERT INTO settings (account, name, value) VALUES (?, ?, ?)
            ON CONFLICT (account, name) DO UPDATE SET value = excluded.value
            """, account, name, value)
        settingsMemo?.accounts[account]?[name] = value
        settingsRead = nil
    }

    package func removeSetting(_ name: String, account: String) throws(DatabaseError) {
        try db.run("DELETE FROM settings WHERE account = ? AND name = ?", account, name)
        settingsMemo?.accounts[account]?[name] = nil
        settingsRead = nil
    }

    // MARK: - Events

    package func log(_ state: TransactionEvent.State, account: String, productID: String, transactionID: Int64? = nil,
             detail: String = "", at date: Date) throws(DatabaseError) {
        try db.run("INSERT INTO events (date, account, state, product_id, transaction_id, detail) VALUES (?, ?, ?, ?, ?, ?)",
                   date.milliseconds, account, state.rawValue, productID, transactionID, detail)
    }

    /// The account's newest events, oldest first.
    package func events(account: String, limit: Int) throws(DatabaseError) -> [TransactionEvent] {
        try db.rows("""
            SELECT id, date, account, state, product_id, transaction_id, detail FROM
              (SELECT * FROM events WHERE account = ? ORDER BY id DESC LIMIT ?) AS newest ORDER BY id
            """, account, limit) { row in
            TransactionEvent(id: row.int64(.id), date: Date(milliseconds: row.int64(.date)), account: row.text(.account),
                             state: TransactionEvent.State(rawValue: row.text(.state)) ?? .failed,
                             productID: row.text(.product_id), transactionID: row.optionalInt64(.transaction_id), detail: row.text(.detail))
        }
    }

    // MARK: - Resets

    package func reset(_ scope: ResetScope, account: String) throws(DatabaseError) {
        if settingsMemo != nil { settingsMemo = SettingsMemo() }
        switch scope {
        case .app:
            // Deleting the app wipes what the device knows, for every account signed in on it.
            try db.execute("DELETE FROM app_owned; DELETE FROM app_balances;")
        case .account:
            for table in ["transactions", "settings", "events", "app_owned", "app_balances", "subscriptions",
                          "price_increases", "messages"] {
                try db.run("DELETE FROM \(table) WHERE account = ?", account)
            }
            try db.run("DELETE FROM accounts WHERE name = ?", account)
            // A new tester: out of its family (its members keep what it shared; a refund can no longer reach them).
            try db.run("DELETE FROM family_members WHERE account = ?", account)
            try db.run("DELETE FROM refund_requests WHERE account = ?", account)
            try db.execute("""
                DELETE FROM families WHERE name NOT IN (SELECT family FROM family_members);
                DELETE FROM family_shares WHERE transaction_id NOT IN (SELECT id FROM transactions);
                """)
        case .all:
            // The id sequence is kept, so no transaction id is ever handed out twice.
            try db.execute("""
                DELETE FROM transactions; DELETE FROM settings; DELETE FROM events; DELETE FROM subscriptions;
                DELETE FROM app_owned; DELETE FROM app_balances; DELETE FROM accounts;
                DELETE FROM families; DELETE FROM family_members; DELETE FROM family_shares; DELETE FROM refund_requests;
                DELETE FROM price_changes; DELETE FROM price_increases; DELETE FROM catalog_prices; DELETE FROM messages;
                """)
        }
        // The sealed head is folded again from the rows that are left (balances and subscriptions too).
        try refoldHead()
        if scope != .app { try forgetStaleMarks() }
    }
}

/// The settings a write or read has read, by account and name: every setting of an account,
/// read in one statement the first time one of them is asked for.
struct SettingsMemo {
    var accounts: [String: [String: String]] = [:]
}

/// Settings read together ahead of the reads they answer (``Ledger/readingSettings(_:of:_:)``).
struct SettingsRead {
    let names: Set<String>
    let accounts: Set<String>
    /// Those set, by account then name.
    let values: [String: [String: String]]

    func holds(_ name: String, account: String) -> Bool { names.contains(name) && accounts.contains(account) }
}
