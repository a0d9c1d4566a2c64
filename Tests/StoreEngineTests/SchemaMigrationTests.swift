import Foundation
import Testing
@testable import StoreEngine

// The store file's schema 1 → 2 migration, through the engine.

/// Schema 1's DDL, as commit 9d5ade5 created it (no `pending_reason`).
private let schema1 = """
    PRAGMA application_id = \(Ledger.applicationID);
    PRAGMA user_version = 1;
    CREATE TABLE accounts (name TEXT PRIMARY KEY, created INTEGER NOT NULL);
    CREATE TABLE transactions (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        original_id INTEGER NOT NULL,
        account TEXT NOT NULL,
        product_id TEXT NOT NULL,
        product_type TEXT NOT NULL,
        purchase_date INTEGER NOT NULL,
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
        price TEXT NOT NULL,
        reason TEXT NOT NULL,
        subscription_group_id TEXT,
        offer_type TEXT,
        status TEXT NOT NULL,
        finished INTEGER NOT NULL DEFAULT 0,
        jws TEXT
    );
    CREATE TABLE signing_key (id INTEGER PRIMARY KEY CHECK (id = 1), private_key TEXT NOT NULL);
    CREATE INDEX transactions_by_account ON transactions (account, product_id);
    CREATE TABLE settings (
        account TEXT NOT NULL, name TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY (account, name)
    ) WITHOUT ROWID;
    CREATE TABLE events (
        id INTEGER PRIMARY KEY AUTOINCREMENT, date INTEGER NOT NULL, account TEXT NOT NULL, state TEXT NOT NULL,
        product_id TEXT NOT NULL, transaction_id INTEGER, detail TEXT NOT NULL
    );
    CREATE TABLE app_owned (
        account TEXT NOT NULL, product_id TEXT NOT NULL, transaction_id INTEGER NOT NULL,
        PRIMARY KEY (account, product_id)
    ) WITHOUT ROWID;
    CREATE TABLE app_balances (
        account TEXT NOT NULL, product_id TEXT NOT NULL, balance INTEGER NOT NULL, PRIMARY KEY (account, product_id)
    ) WITHOUT ROWID;
    INSERT INTO sqlite_sequence (name, seq) VALUES ('transactions', \(Ledger.firstTransactionID));
    """

@Suite("Store file: schema 1 → 2")
struct SchemaMigrationTests {
    /// A schema 1 store file at `path`, holding the purchases (signed by its own key) that
    /// a store made in `donor`: a subscription, a finished non-consumable, finished coins.
    func makeSchema1File(_ path: String, donor: StoreFixture) async throws -> [Transaction] {
        let store = try donor.open()
        let subscription = try await buy(store, "sub.yearly")
        let pro = try await buy(store, "pro")
        try await store.finish(pro)
        let coins = try await buy(store, "coins", quantity: 4)
        try await store.finish(coins)
        try await store.setSetting("storefront", to: "GBR")

        let db = try SQLiteDatabase(path: path, create: true)
        try db.execute(schema1)
        try db.execute("ATTACH DATABASE '\(donor.path)' AS donor")
        let columns = """
            id, original_id, account, product_id, product_type, purchase_date, original_purchase_date,
            expiration_date, revocation_date, revocation_reason, is_upgraded, ownership_type, quantity,
            app_account_token, environment, storefront, currency, price, reason, subscription_group_id,
            offer_type, status, finished, jws
            """
        try db.execute("""
            INSERT INTO main.signing_key SELECT id, private_key FROM donor.signing_key;
            INSERT INTO main.accounts SELECT * FROM donor.accounts;
            INSERT INTO main.transactions (\(columns)) SELECT \(columns) FROM donor.transactions;
            INSERT INTO main.settings SELECT * FROM donor.settings;
            INSERT INTO main.events SELECT * FROM donor.events;
            INSERT INTO main.app_owned SELECT * FROM donor.app_owned;
            INSERT INTO main.app_balances SELECT account, product_id, balance FROM donor.app_balances;
            UPDATE main.sqlite_sequence SET seq = (SELECT max(id) FROM main.transactions) WHERE name = 'transactions';
            DETACH DATABASE donor;
            """)
        // Signed as schema 1 signed: the bare key's header (kid), no account, none of schema 5's fields.
        let key = try SigningKey(pem: try #require(try db.rows("SELECT private_key FROM signing_key", as: { $0.text(.private_key) }).first))
        for transaction in [subscription, pro, coins] {
            let stored = try await store.transaction(id: transaction.id)
            let jws = try key.sign(stored.signedPayload(bundleID: donor.catalog.bundleID, signedDate: fixtureStart,
                                                        rule: .withoutAccount))
            try db.run("UPDATE transactions SET jws = ? WHERE id = ?", jws, transaction.id)
        }
        #expect(try db.scalar("PRAGMA user_version") == 1)
        return [subscription, pro, coins].map { transaction in
            var old = transaction
            old.jwsRepresentation = try? db.rows("SELECT jws FROM transactions WHERE id = ?", transaction.id) { $0.text(.jws) }.first
            return old
        }
    }

    @Test("a schema 1 file is migrated on open: its rows still verify, and the new controls work on it", .fileStoreOnly)
    func migrate() async throws {
        try await withStoreFixture { donor in
            try await withTemporaryFolder { folder in
                let path = folder + "/old.sqlite"
                let old = try await makeSchema1File(path, donor: donor)
                let clock = TestClock(fixtureStart.addingTimeInterval(3600))
                let store = try Store(catalog: donor.catalog, path: path, now: clock.closure)

                let check = try SQLiteDatabase(path: path, create: false)
                #expect(try check.scalar("PRAGMA user_version") == Ledger.schemaVersion)
                let columns = try check.rows("SELECT name FROM pragma_table_info('transactions')") { $0.text(.name) }
                #expect(columns.suffix(5) == ["pending_reason", "offer_id", "offer_discount_type", "offer_period", "seal"])

                let history = try await store.transactions()
                #expect(history.map(\.id) == old.reversed().map(\.id))
                for transaction in history {
                    #expect(transaction.verification == .verified, "\(transaction.productID): \(transaction.verification)")
                    #expect(transaction.pendingReason == nil)
                    #expect(transaction.status == .purchased)
                }
                #expect(Set(try await store.currentEntitlements().map(\.productID)) == ["sub.yearly", "pro"])
                #expect(try await store.ownedProducts()["pro"]?.id == old[1].id)
                #expect(try await store.balances()["coins"] == 4)
                #expect(try await store.storefront().countryCode == "GBR")
                // Signed again as schema 5 signs: the x5c header, the same payload plus today's fields.
                let resigned = try await store.transaction(id: old[0].id)
                #expect(resigned.jwsRepresentation != old[0].jwsRepresentation)
                let header = try await store.verify(jws: try #require(resigned.jwsRepresentation)).header
                #expect(header["x5c"] != nil && header["kid"] == nil)

                // Schema 2's column in use: Ask to Buy on the migrated file.
                try await store.setSetting("askToBuy", to: "true")
                let waiting = try await pendingTransaction(in: store, try await store.purchase("faces"))
                #expect(waiting.id > old[2].id)
                let reopened = try Store(catalog: donor.catalog, path: path, now: clock.closure)
                #expect(try await reopened.transaction(id: waiting.id).pendingReason == .askToBuy)
                try await reopened.approve(waiting.id)
                #expect(try await reopened.isEntitled(to: "faces"))
                // The old purchases can be refunded: re-signed under the same key.
                let refunded = try await reopened.refund(old[1].id)
                #expect(refunded.verification == .verified)
                #expect(try await reopened.isEntitled(to: "pro") == false)
            }
        }
    }

    @Test("two stores opening one schema 1 file at the same moment both succeed; it is migrated once", .fileStoreOnly)
    func concurrentMigration() async throws {
        try await withStoreFixture { donor in
            try await withTemporaryFolder { folder in
                let path = folder + "/old.sqlite"
                let old = try await makeSchema1File(path, donor: donor)
                let catalog = donor.catalog
                let counts = try await withThrowingTaskGroup(of: Int.self) { group in
                    for _ in 0..<4 {
                        group.addTask {
                            let store = try Store(catalog: catalog, path: path)
                            return try await store.transactions().filter { $0.verification == .verified }.count
                        }
                    }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
                #expect(counts == [old.count, old.count, old.count, old.count])
                let check = try SQLiteDatabase(path: path, create: false)
                #expect(try check.scalar("PRAGMA user_version") == Ledger.schemaVersion)
            }
        }
    }
}
