import CSQLite
import Dispatch
import Foundation
import StoreCatalog
import StoreSigning

/// The store file's schema: tables, indexes, and the migrations from each older version.
extension Ledger {
    /// Partial indexes of the few rows restore, entitlements, the unfinished check, a
    /// subscription purchase (its group's history) and Family Sharing (a member's shared
    /// transactions, read by every status and grace check) read, and one by subscription (renewals
    /// walk a subscription's transactions by `original_id`), so they never walk the whole history (a row with its JWS is about
    /// 3.5 kilobytes: 1,000,000 of them are 3.5 GB). `Transaction.all` walks `transactions_app_all`
    /// newest first (with consumables, the table itself: nearly every row is one). Each index's WHERE repeats its query's
    /// terms exactly, as SQLite requires to use it. Added to older files when opened:
    /// an index changes nothing an older build reads, so the schema version stays. (`transactions_app_history`,
    /// before a refunded consumable was listed, is dropped: its terms are no query's now.)
    static let indexes = """
        CREATE INDEX IF NOT EXISTS transactions_restorable ON transactions (account, product_id)
            WHERE status = 'purchased' AND product_type != 'consumable' AND revocation_date IS NULL AND is_upgraded = 0;
        CREATE INDEX IF NOT EXISTS transactions_unfinished ON transactions (account)
            WHERE status = 'purchased' AND finished = 0;
        CREATE INDEX IF NOT EXISTS transactions_by_group ON transactions (account, subscription_group_id)
            WHERE subscription_group_id IS NOT NULL;
        CREATE INDEX IF NOT EXISTS transactions_by_original ON transactions (original_id, id);
        DROP INDEX IF EXISTS transactions_app_history;
        CREATE INDEX IF NOT EXISTS transactions_app_all ON transactions (account)
            WHERE status = 'purchased' AND (product_type != 'consumable' OR finished = 0 OR revocation_date IS NOT NULL);
        CREATE INDEX IF NOT EXISTS transactions_pending ON transactions (account) WHERE status = 'pending';
        CREATE INDEX IF NOT EXISTS transactions_family_shared ON transactions (account, original_id)
            WHERE ownership_type = 'familyShared';
        """

    func createSchema() throws(DatabaseError) {
        try Self.createSchema(in: db)
    }

    static func createSchema(in db: any LedgerConnection) throws(DatabaseError) {
        try db.execute("""
            PRAGMA application_id = \(Self.applicationID);
            PRAGMA user_version = \(Self.schemaVersion);
            \(Self.storeTables)
            """)
        try db.run("INSERT INTO sqlite_sequence (name, seq) VALUES ('transactions', ?)", Self.firstTransactionID)
    }

    /// Every table of the newest schema, in SQLite's words (PostgreSQL's are made from them:
    /// ``postgreSQLSchema``).
    static let storeTables = """
            -- What the App Store knows.
            CREATE TABLE accounts (
                name TEXT PRIMARY KEY,
                created INTEGER NOT NULL
            );
            CREATE TABLE transactions (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                original_id INTEGER NOT NULL,
                account TEXT NOT NULL,
                product_id TEXT NOT NULL,
                product_type TEXT NOT NULL,
                purchase_date INTEGER NOT NULL,          -- milliseconds since 1970, as Apple's payloads
                original_purchase_date INTEGER NOT NULL,
                expiration_date INTEGER,
                revocation_date INTEGER,
                revocation_reason TEXT,
                is_upgraded INTEGER NOT NULL DEFAULT 0,
                ownership_type TEXT NOT NULL,
                quantity INTEGER NOT NULL,
                app_account_token TEXT,
                environment TEXT NOT NULL,
                storefront TEXT NOT NULL,
                currency TEXT NOT NULL,
                price TEXT NOT NULL,                     -- decimal text, never a float
                reason TEXT NOT NULL,
                subscription_group_id TEXT,
                offer_type TEXT,
                status TEXT NOT NULL,
                finished INTEGER NOT NULL DEFAULT 0,     -- the App Store's record that the app called finish()
                jws TEXT,                                -- the signed transaction; NULL while pending
                pending_reason TEXT,                     -- askToBuy or interrupted, while status is pending
                offer_id TEXT,                           -- the promotional offer redeemed
                offer_discount_type TEXT,                -- schema 5: the offer's payment mode (freeTrial, …)
                offer_period TEXT,                       -- schema 5: the offer's whole length, ISO-8601
                seal TEXT                                -- schema 6: HMAC of the whole row (LedgerSeals)
            );
            \(Ledger.sealHeadTable)
            CREATE TABLE signing_key (
                id INTEGER PRIMARY KEY CHECK (id = 1),
                private_key TEXT NOT NULL,               -- PKCS#8 PEM of the ES256 key that signs transactions
                leaf_certificate TEXT,                   -- schema 5: PEM certificates of the key's chain
                intermediate_certificate TEXT,
                root_certificate TEXT
            );
            CREATE INDEX transactions_by_account ON transactions (account, product_id);
            \(Ledger.subscriptionsTable)
            CREATE TABLE settings (
                account TEXT NOT NULL,                   -- '' for settings of the whole store
                name TEXT NOT NULL,
                value TEXT NOT NULL,
                PRIMARY KEY (account, name)
            ) WITHOUT ROWID;
            CREATE TABLE events (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                date INTEGER NOT NULL,
                account TEXT NOT NULL,
                state TEXT NOT NULL,
                product_id TEXT NOT NULL,
                transaction_id INTEGER,
                detail TEXT NOT NULL
            );

            -- What the app on the device knows.
            CREATE TABLE app_owned (
                account TEXT NOT NULL,
                product_id TEXT NOT NULL,
                transaction_id INTEGER NOT NULL,
                PRIMARY KEY (account, product_id)
            ) WITHOUT ROWID;
            CREATE TABLE app_balances (
                account TEXT NOT NULL,
                product_id TEXT NOT NULL,
                balance INTEGER NOT NULL,
                seal TEXT,                           -- schema 10: HMAC of the row (LedgerRecordSeals)
                PRIMARY KEY (account, product_id)
            ) WITHOUT ROWID;
            \(Ledger.serverTables)
            \(Ledger.offerTables)
            \(Ledger.familyTables)
            \(Ledger.refundRequestTables)
            \(Ledger.pricingTables)
            \(Ledger.historyRevisionTables)
            \(Ledger.receiptSigningKeyTable)
            """

    /// Schema 2 adds why a pending transaction waits (Ask to Buy, interrupted purchases).
    static func migrate1to2(_ db: any LedgerConnection) throws(DatabaseError) {
        try db.execute("""
            ALTER TABLE transactions ADD COLUMN pending_reason TEXT;
            PRAGMA user_version = 2;
            """)
    }

    /// Schema 3 adds promotional offers and each subscription group's renewal state.
    static func migrate2to3(_ db: any LedgerConnection) throws(DatabaseError) {
        try db.execute("""
            ALTER TABLE transactions ADD COLUMN offer_id TEXT;
            \(subscriptionsTable)
            PRAGMA user_version = 3;
            """)
    }

    /// Schema 6 adds App Store Server Notifications (each recorded in the write that makes
    /// its event), every delivery attempt, and the API keys `storefront serve` accepts.
    /// The signing migration (LedgerSigning) then adds schema 6's seals and sets the version.
    static func migrate5to6(_ db: any LedgerConnection, from current: Int64) throws(DatabaseError) {
        try db.execute(serverTables)
    }

    /// Schema 7 adds the promotional offer keys, the nonces their signatures used, and
    /// the offer codes redeemed. LedgerSigning's `migrate` then sets the version.
    static func migrate6to7(_ db: any LedgerConnection) throws(DatabaseError) {
        try db.execute(offerTables)
    }

    /// Schema 8 adds Family Sharing (families, their members, each member's shared transaction and
    /// the purchase it shares), refund requests made from the app, and pricing (price changes and each
    /// subscriber's price increase, the catalog prices last seen, the App Store's messages to the app).
    /// Tables only, so no row is sealed again; LedgerSigning's `migrate` then sets the version.
    static func migrate7to8(_ db: any LedgerConnection) throws(DatabaseError) {
        try db.execute(familyTables)
        try db.execute(refundRequestTables)
        try db.execute(pricingTables)
    }

    /// Families (`accounts family …`), one family per account as on Apple's, and the
    /// link from each family member's `familyShared` transaction to the purchase it shares
    /// (the purchaser's transaction: a refund of it revokes the shares). Idempotent.
    static let familyTables = """
        CREATE TABLE IF NOT EXISTS families (
            name TEXT PRIMARY KEY,
            organizer TEXT NOT NULL,                 -- the account that made it
            created INTEGER NOT NULL                 -- ms, store time
        ) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS family_members (
            account TEXT PRIMARY KEY,                -- an account is in one family at a time
            family TEXT NOT NULL,
            joined INTEGER NOT NULL                  -- ms, store time
        ) WITHOUT ROWID;
        CREATE INDEX IF NOT EXISTS family_members_by_family ON family_members (family, joined);
        CREATE TABLE IF NOT EXISTS family_shares (
            transaction_id INTEGER PRIMARY KEY,      -- the member's familyShared transaction
            purchase_id INTEGER NOT NULL             -- the purchaser's transaction it shares
        );
        CREATE INDEX IF NOT EXISTS family_shares_by_purchase ON family_shares (purchase_id);
        """

    /// Refund requests made from the app (`Transaction.beginRefundRequest`), waiting for
    /// the App Store's decision or decided. Idempotent.
    static let refundRequestTables = """
        CREATE TABLE IF NOT EXISTS refund_requests (
            transaction_id INTEGER PRIMARY KEY,      -- one request per transaction (a second is duplicateRequest)
            account TEXT NOT NULL,
            reason TEXT NOT NULL,                    -- consumptionRequestReason: UNINTENDED_PURCHASE, …
            requested INTEGER NOT NULL,              -- ms, store time
            status TEXT NOT NULL,                    -- pending, approved, declined
            decided INTEGER                          -- ms, store time
        );
        """

    /// Price changes (`price-increase`, or the catalog's price changing between runs), each
    /// subscriber's notice and consent, the catalog prices seen last, and StoreKit's messages
    /// (`Message.messages`), kept here so every process and the paywall see them. Idempotent.
    static let pricingTables = """
        CREATE TABLE IF NOT EXISTS price_changes (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            product_id TEXT NOT NULL,
            storefront TEXT NOT NULL,                -- alpha-3: the storefront whose price changed
            old_price TEXT NOT NULL,                 -- decimal text
            new_price TEXT NOT NULL,
            consent_required INTEGER NOT NULL,       -- an increase the subscriber must agree to
            date INTEGER NOT NULL,                   -- ms, store time
            source TEXT NOT NULL                     -- 'command' (price-increase) or 'catalog'
        );
        CREATE INDEX IF NOT EXISTS price_changes_by_product ON price_changes (storefront, product_id, id);
        CREATE TABLE IF NOT EXISTS price_increases (
            account TEXT NOT NULL,
            group_id TEXT NOT NULL,
            original_id INTEGER NOT NULL,
            change_id INTEGER NOT NULL,              -- price_changes.id
            product_id TEXT NOT NULL,
            storefront TEXT NOT NULL,
            old_price TEXT NOT NULL,                 -- what renewals charge until the notice ends
            new_price TEXT NOT NULL,
            consent_required INTEGER NOT NULL,
            notified INTEGER NOT NULL,               -- ms, store time: the subscriber was told
            notice_ends INTEGER NOT NULL,            -- ms: the first renewal from then on takes the new price
            status TEXT NOT NULL,                    -- pending (consent awaited) or agreed
            PRIMARY KEY (account, group_id)
        ) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS catalog_prices (
            product_id TEXT NOT NULL,
            storefront TEXT NOT NULL,
            price TEXT NOT NULL,                     -- the catalog's price when last seen
            PRIMARY KEY (product_id, storefront)
        ) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS messages (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            account TEXT NOT NULL,
            reason TEXT NOT NULL,                    -- Message.Reason: generic, priceIncreaseConsent, billingIssue, winBackOffer
            product_id TEXT,
            offer_id TEXT,
            key TEXT,                                -- the event it is for, so it is queued once
            created INTEGER NOT NULL,                -- ms, store time
            state TEXT NOT NULL,                     -- pending, deferred, displayed
            UNIQUE (account, key)
        );
        """

    /// Offer keys (`offer-keys add`/`create`), used nonces, redeemed offer codes. Idempotent.
    static let offerTables = """
        CREATE TABLE IF NOT EXISTS offer_keys (
            key_id TEXT PRIMARY KEY,
            issuer_id TEXT,                          -- the compact JWS form's iss, when known
            public_key TEXT NOT NULL,                -- SubjectPublicKeyInfo PEM of the P-256 key
            private_key TEXT,                        -- PKCS#8 PEM, when the store may sign (offer sign)
            created INTEGER NOT NULL
        ) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS offer_nonces (
            nonce TEXT PRIMARY KEY,                  -- lowercased UUID: a signature is good once
            account TEXT NOT NULL,
            used INTEGER NOT NULL                    -- ms, store time
        ) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS offer_code_redemptions (
            code TEXT NOT NULL,                      -- as the catalog spells it
            offer_id TEXT NOT NULL,
            account TEXT NOT NULL,
            transaction_id INTEGER NOT NULL,
            date INTEGER NOT NULL                    -- ms, store time
        );
        CREATE INDEX IF NOT EXISTS offer_code_redemptions_by_code ON offer_code_redemptions (code);
        """

    /// The notifications the App Store sends a backend, their delivery attempts, and the
    /// Server API's keys (`serve keys add`). Idempotent, so any older file can get them.
    static let serverTables = """
        CREATE TABLE IF NOT EXISTS notifications (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            uuid TEXT NOT NULL UNIQUE,               -- notificationUUID
            account TEXT NOT NULL,                   -- '' for TEST
            type TEXT NOT NULL,                      -- notificationType
            subtype TEXT,
            transaction_id INTEGER,                  -- the transaction it is about
            original_id INTEGER,
            signed_date INTEGER NOT NULL,            -- ms, store time
            signed_payload TEXT NOT NULL,            -- the responseBodyV2's signedPayload
            test_token TEXT                          -- testNotificationToken, for TEST
        );
        CREATE INDEX IF NOT EXISTS notifications_by_test_token ON notifications (test_token) WHERE test_token IS NOT NULL;
        CREATE TABLE IF NOT EXISTS notification_attempts (
            notification_id INTEGER NOT NULL,
            url TEXT NOT NULL,
            date INTEGER NOT NULL,                   -- ms, store time
            result TEXT NOT NULL                     -- sendAttemptResult: SUCCESS, TIMED_OUT, …
        );
        CREATE INDEX IF NOT EXISTS notification_attempts_by_notification ON notification_attempts (notification_id, url);
        CREATE TABLE IF NOT EXISTS api_keys (
            key_id TEXT PRIMARY KEY,
            issuer_id TEXT NOT NULL,
            public_key TEXT NOT NULL,                -- SubjectPublicKeyInfo PEM of the ES256 key
            created INTEGER NOT NULL
        ) WITHOUT ROWID;
        """

    /// Mass renewal-date extensions (`POST /inApps/v1/subscriptions/extend/mass`) and the
    /// receiver URLs kept in the store (`serve urls add`). New tables that no older build
    /// reads, so, like the indexes, they are added to any file when opened and the schema
    /// version stays (6, or 7 with the offer tables): an older build opening the file works as before (it sends to
    /// `--notify` URLs only).
    static let serveTables = """
        CREATE TABLE IF NOT EXISTS mass_extensions (
            product_id TEXT NOT NULL,
            request_id TEXT NOT NULL,                -- requestIdentifier
            extend_by_days INTEGER NOT NULL,
            storefronts TEXT NOT NULL,               -- storefrontCountryCodes, comma-separated; '' for all
            complete_date INTEGER NOT NULL,          -- ms, store time (made in one write: complete at once)
            succeeded INTEGER NOT NULL,
            failed INTEGER NOT NULL,
            PRIMARY KEY (product_id, request_id)
        ) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS notification_receivers (
            url TEXT PRIMARY KEY,
            added INTEGER NOT NULL,                  -- ms, store time
            after_id INTEGER NOT NULL                -- the newest notification when added: it gets only later ones
        ) WITHOUT ROWID;
        """

    /// What the App Store knows of each subscription beyond its transactions.
    static let subscriptionsTable = """
        CREATE TABLE subscriptions (
            account TEXT NOT NULL,
            group_id TEXT NOT NULL,
            original_id INTEGER NOT NULL,            -- the subscription's first transaction: renewals share it
            will_auto_renew INTEGER NOT NULL DEFAULT 1,
            auto_renew_product_id TEXT NOT NULL,     -- what renews next: a downgrade waits here
            expiration_reason TEXT,                  -- autoRenewDisabled, billingError, …
            billing_retry_since INTEGER,             -- ms: the renewal that failed, while retrying
            grace_until INTEGER,                     -- ms: the end of the billing grace period
            seal TEXT,                               -- schema 10: HMAC of the row (LedgerRecordSeals)
            PRIMARY KEY (account, group_id)
        ) WITHOUT ROWID;
        """
}
