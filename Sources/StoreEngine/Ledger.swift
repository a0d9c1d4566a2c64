import CSQLite
import Dispatch
import Foundation

/// The store file: one SQLite database with what the App Store knows
/// (accounts, every transaction, settings, the event log) and what the app on
/// the device knows (its cache of owned products, consumable balances) in
/// separate tables, so deleting the app and resetting an account differ as on a device.
///
/// A file that is not a store file is refused before anything is written to it.
final class Ledger {
    /// `PRAGMA application_id` of every store file: "SFRT".
    static let applicationID: Int32 = 0x5346_5254
    /// The newest schema this build reads and writes. 2: why a pending transaction waits;
    /// 3: promotional offers and subscription renewal state; 4: transactions are signed
    /// with their account (`sandboxAccount`); 5: a certificate chain beside the key, every
    /// JWS with `x5c` and Apple's later payload fields. Older files are re-signed on open.
    static let schemaVersion: Int64 = 5
    /// Transaction ids start above this, like the long ids Apple hands out.
    static let firstTransactionID: Int64 = 2_000_000_000

    let path: String
    let db: SQLiteDatabase
    /// The store's signing key and its certificate chain, kept inside the store file
    /// (see README: one file to share).
    var key: SigningIdentity!
    /// Real time, as the store's clock reads it (tests pass their own).
    let now: @Sendable () -> Date
    /// The store's time, for `signedDate`: the store sets its own clock here; until
    /// then (while opening) the clock settings are read as they stand.
    var signingTime: () throws -> Date = { Date() }
    /// The app's bundle id, for signed payloads.
    let bundleID: String
    /// JWS strings already checked, so a long-running paywall verifies each once.
    var verifiedSignatures: [String: Result<JSON, VerificationFailure>] = [:]

    /// Opens the store file at `path`, creating it (and, with `createFolder`,
    /// its folder) when there is none.
    init(path: String, bundleID: String = Catalog.defaultBundleID, createFolder: Bool = false,
         now: @escaping @Sendable () -> Date = Date.init) throws(StoreFileError) {
        self.path = path
        self.bundleID = bundleID
        self.now = now
        let fileManager = FileManager.default
        var isDirectory: ObjCBool = false
        let exists = fileManager.fileExists(atPath: path, isDirectory: &isDirectory)
        var createInPlace = false
        if exists {
            guard !isDirectory.boolValue else { throw StoreFileError(path: path, reason: "is a folder, not a store file") }
            guard fileManager.isReadableFile(atPath: path) else {
                throw StoreFileError(path: path, reason: "cannot be read (permission denied)")
            }
            let size = (try? fileManager.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
            guard size > 0 else {
                throw StoreFileError(path: path, reason: "is empty (0 bytes), not a store file; delete it to start a new store")
            }
            guard fileManager.isWritableFile(atPath: path) else {
                throw StoreFileError(path: path, reason: "is read-only; the store file must be writable")
            }
            // SQLite opens a file cut short inside its last page as if whole, and would write to it.
            if let truncation = StoreFileHeader.truncation(at: path) {
                throw StoreFileError(path: path, reason: "\(truncation): damaged; `storefront doctor` tells more")
            }
        } else {
            let folder = (path as NSString).deletingLastPathComponent
            if !folder.isEmpty, !fileManager.fileExists(atPath: folder) {
                guard createFolder else {
                    throw StoreFileError(path: path, reason: "the folder \(folder) does not exist")
                }
                do {
                    try fileManager.createDirectory(atPath: folder, withIntermediateDirectories: true)
                } catch {
                    throw StoreFileError(path: path, reason: "cannot create the folder \(folder): \(error.localizedDescription)")
                }
            }
            createInPlace = !Self.createComplete(at: path, date: now())
        }
        do {
            db = try SQLiteDatabase(path: path, create: createInPlace)
            if createInPlace { chmod(path, 0o600) }
            // Waiting for another process is not an error: each write holds the lock for one
            // fsync, but a queue of writers on a slow disk can take seconds to drain.
            try db.execute("PRAGMA busy_timeout = 30000")
        } catch {
            throw StoreFileError(path: path, reason: "cannot be opened: \(error.message)")
        }
        try checkAndPrepare(isNew: !exists)
        signingTime = { [unowned self] in try self.storeTimeFromSettings() }
        let signingKey: SigningKey
        do {
            signingKey = try loadKey()
        } catch {
            throw StoreFileError(path: path, reason: "has an unusable signing key: \(error)")
        }
        do {
            try migrate(signingKey)
        } catch {
            throw StoreFileError(path: path, reason: "cannot be upgraded to schema \(Self.schemaVersion): \(error)")
        }
        do {
            key = try loadIdentity(signingKey)
        } catch {
            throw StoreFileError(path: path, reason: "has an unusable certificate chain: \(error)")
        }
    }

    /// Refuses foreign files, then switches on WAL and creates or migrates the schema.
    private func checkAndPrepare(isNew: Bool) throws(StoreFileError) {
        do {
            // Reads only: nothing is written until the file is known to be ours. One read
            // transaction, so all three come from one snapshot even while another process
            // is creating the schema.
            try db.execute("BEGIN")
            let applicationID = try db.scalar("PRAGMA application_id") ?? 0
            let version = try db.scalar("PRAGMA user_version") ?? 0
            let objects = try db.scalar("SELECT count(*) FROM sqlite_master") ?? 0
            try db.execute("COMMIT")
            if applicationID != Int64(Self.applicationID) {
                // A blank database (no id, no version, no tables) may become a store file; anything else is foreign.
                guard applicationID == 0, version == 0, objects == 0 else {
                    throw StoreFileError(path: path, reason: "is a SQLite database of another application, not a store file")
                }
            } else if version > Self.schemaVersion {
                throw StoreFileError(
                    path: path,
                    reason: "was written by a newer storefront (schema version \(version); this one reads up to \(Self.schemaVersion))")
            }
            try db.execute("PRAGMA journal_mode = WAL")
            try db.execute("PRAGMA synchronous = FULL")
            try db.transaction {
                // Checked again under the write lock: another process may have created it meanwhile.
                let current = try db.scalar("PRAGMA user_version") ?? 0
                if current < 1 { try createSchema() }
                if current == 1 { try Self.migrate1to2(db) }
                if (1...2).contains(current) { try Self.migrate2to3(db) }
                try db.execute(Self.indexes)
            }
        } catch let error as StoreFileError {
            throw error
        } catch let error as SQLiteError where error.isNotADatabase {
            throw StoreFileError(path: path, reason: "is not a store file (not a SQLite database, or a damaged one)")
        } catch {
            throw StoreFileError(path: path, reason: "cannot be used: \(error)")
        }
    }

    /// Builds a new store file beside `path` and links it into place complete, so
    /// that a second process starting at the same moment never finds a half-made
    /// (empty) file there, which it would rightly refuse. Returns true when a store
    /// file is now at `path`: this one, or another process's that got there first.
    /// False when it could not be built so (the caller then creates it in place).
    private static func createComplete(at path: String, date: Date) -> Bool {
        removeAbandonedDrafts(of: path)
        let temporary = path + ".new-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        defer { unlink(temporary) }
        do {
            let db = try SQLiteDatabase(path: temporary, create: true)
            // Purchases and the signing key are the owner's alone (SQLite gives -wal and -shm the same mode).
            chmod(temporary, 0o600)
            // The key too: a store linked into place is complete, even if its creator dies at once.
            try db.transaction {
                try createSchema(in: db)
                try insertSigningKey(SigningKey.generate(), at: date, into: db)
            }
        } catch {
            return false
        }
        return link(temporary, path) == 0 || errno == EEXIST
    }

    /// The tables of schema version 1, which the doctor expects to find.
    static let tables = ["accounts", "transactions", "signing_key", "settings", "events", "app_owned", "app_balances"]

    /// Removes half-made store files (`PATH.new-PID-N` and their journals) that a
    /// process killed while creating the store left behind, once that process is gone.
    private static func removeAbandonedDrafts(of path: String) {
        let folder = (path as NSString).deletingLastPathComponent
        let prefix = (path as NSString).lastPathComponent + ".new-"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.isEmpty ? "." : folder)) ?? []
        for name in names where name.hasPrefix(prefix) {
            guard let pid = Int32(name.dropFirst(prefix.count).prefix { $0 != "-" }),
                  kill(pid, 0) == -1, errno == ESRCH else { continue }
            unlink(folder.isEmpty ? name : folder + "/" + name)
        }
    }

    /// Partial indexes of the few rows restore, entitlements, the unfinished check and a
    /// subscription purchase (its group's history) read, and one by subscription (renewals
    /// walk a subscription's transactions by `original_id`), so they never walk the whole history (a row with its JWS is about a
    /// kilobyte: 100,000 of them are 100 MB). Each index's WHERE repeats its query's
    /// terms exactly, as SQLite requires to use it. Added to older files when opened:
    /// an index changes nothing an older build reads, so the schema version stays.
    private static let indexes = """
        CREATE INDEX IF NOT EXISTS transactions_restorable ON transactions (account, product_id)
            WHERE status = 'purchased' AND product_type != 'consumable' AND revocation_date IS NULL AND is_upgraded = 0;
        CREATE INDEX IF NOT EXISTS transactions_unfinished ON transactions (account)
            WHERE status = 'purchased' AND finished = 0;
        CREATE INDEX IF NOT EXISTS transactions_by_group ON transactions (account, subscription_group_id)
            WHERE subscription_group_id IS NOT NULL;
        CREATE INDEX IF NOT EXISTS transactions_by_original ON transactions (original_id, id);
        """

    private func createSchema() throws(SQLiteError) {
        try Self.createSchema(in: db)
    }

    private static func createSchema(in db: SQLiteDatabase) throws(SQLiteError) {
        try db.execute("""
            PRAGMA application_id = \(Self.applicationID);
            PRAGMA user_version = \(Self.schemaVersion);

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
                offer_period TEXT                        -- schema 5: the offer's whole length, ISO-8601
            );
            CREATE TABLE signing_key (
                id INTEGER PRIMARY KEY CHECK (id = 1),
                private_key TEXT NOT NULL,               -- PKCS#8 PEM of the ES256 key that signs transactions
                leaf_certificate TEXT,                   -- schema 5: PEM certificates of the key's chain
                intermediate_certificate TEXT,
                root_certificate TEXT
            );
            CREATE INDEX transactions_by_account ON transactions (account, product_id);
            \(Self.subscriptionsTable)
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
                PRIMARY KEY (account, product_id)
            ) WITHOUT ROWID;
            """)
        try db.run("INSERT INTO sqlite_sequence (name, seq) VALUES ('transactions', ?)", Self.firstTransactionID)
    }

    /// Schema 2 adds why a pending transaction waits (Ask to Buy, interrupted purchases).
    private static func migrate1to2(_ db: SQLiteDatabase) throws(SQLiteError) {
        try db.execute("""
            ALTER TABLE transactions ADD COLUMN pending_reason TEXT;
            PRAGMA user_version = 2;
            """)
    }

    /// Schema 3 adds promotional offers and each subscription group's renewal state.
    private static func migrate2to3(_ db: SQLiteDatabase) throws(SQLiteError) {
        try db.execute("""
            ALTER TABLE transactions ADD COLUMN offer_id TEXT;
            \(subscriptionsTable)
            PRAGMA user_version = 3;
            """)
    }

    /// What the App Store knows of each subscription beyond its transactions.
    private static let subscriptionsTable = """
        CREATE TABLE subscriptions (
            account TEXT NOT NULL,
            group_id TEXT NOT NULL,
            original_id INTEGER NOT NULL,            -- the subscription's first transaction: renewals share it
            will_auto_renew INTEGER NOT NULL DEFAULT 1,
            auto_renew_product_id TEXT NOT NULL,     -- what renews next: a downgrade waits here
            expiration_reason TEXT,                  -- autoRenewDisabled, billingError, …
            billing_retry_since INTEGER,             -- ms: the renewal that failed, while retrying
            grace_until INTEGER,                     -- ms: the end of the billing grace period
            PRIMARY KEY (account, group_id)
        ) WITHOUT ROWID;
        """

    /// Changes whenever another connection commits: cheap to poll.
    func dataVersion() throws(SQLiteError) -> Int64 {
        try db.scalar("PRAGMA data_version") ?? 0
    }

    // MARK: - Accounts

    func ensureAccount(_ name: String, at date: Date) throws(SQLiteError) {
        try db.run("INSERT OR IGNORE INTO accounts (name, created) VALUES (?, ?)", name, date.milliseconds)
    }

    func accounts() throws(SQLiteError) -> [String] {
        try db.rows("SELECT name FROM accounts ORDER BY created, name") { $0.text(0) }
    }

    // MARK: - Transactions

    static let columns = """
        id, original_id, account, product_id, product_type, purchase_date, original_purchase_date,
        expiration_date, revocation_date, revocation_reason, is_upgraded, ownership_type, quantity,
        app_account_token, environment, storefront, currency, price, reason, subscription_group_id,
        offer_type, status, finished, jws, pending_reason, offer_id, offer_discount_type, offer_period
        """

    /// A transaction row, verified: its JWS must carry a valid signature of this
    /// store's key over exactly the payload the row describes.
    private func transaction(_ row: SQLiteDatabase.Row) -> Transaction {
        var transaction = Self.unverifiedTransaction(row)
        transaction.jwsRepresentation = row.optionalText(23)
        transaction.verification = verify(transaction)
        return transaction
    }

    /// The rows of a query of `columns`, each verified. Signatures not seen before are
    /// checked first, on every core at once: one P-256 check costs about 0.1 ms, so a
    /// few hundred of them would otherwise dominate a restore or the paywall's first load.
    private func verifiedTransactions(_ sql: String, _ parameters: [any SQLBindable]) throws(SQLiteError) -> [Transaction] {
        var transactions: [Transaction] = []
        try db.query(sql, parameters) { row in
            var transaction = Self.unverifiedTransaction(row)
            transaction.jwsRepresentation = row.optionalText(23)
            transactions.append(transaction)
        }
        checkSignatures(transactions.compactMap(\.jwsRepresentation))
        for index in transactions.indices {
            transactions[index].verification = verify(transactions[index])
        }
        return transactions
    }

    /// Checks each signature not in the cache, in parallel, and caches the outcome.
    private func checkSignatures(_ signatures: [String]) {
        let unchecked = Array(Set(signatures.filter { verifiedSignatures[$0] == nil }))
        guard unchecked.count > 1 else { return }  // one is checked where it is read
        let key = self.key!
        // Each iteration writes its own slot only, so sharing the buffer is safe.
        nonisolated(unsafe) let results = UnsafeMutableBufferPointer<Result<JSON, VerificationFailure>?>
            .allocate(capacity: unchecked.count)
        results.initialize(repeating: nil)
        defer {
            _ = results.deinitialize()
            results.deallocate()
        }
        // The key is only read (safe to share, see SigningKey).
        DispatchQueue.concurrentPerform(iterations: unchecked.count) { index in
            results[index] = Result { () throws(VerificationFailure) in try key.verifySignature(unchecked[index]).payload }
        }
        for (jws, result) in zip(unchecked, results) {
            verifiedSignatures[jws] = result
        }
    }

    private func verify(_ transaction: Transaction) -> Transaction.Verification {
        guard let jws = transaction.jwsRepresentation else {
            // The App Store signs a transaction when it is purchased; pending and declined ones carry no signature.
            return transaction.status == .purchased ? .unverified(reason: "not signed by the App Store") : .verified
        }
        let checked = verifiedSignatures[jws] ?? Result { () throws(VerificationFailure) in try key.verifySignature(jws).payload }
        verifiedSignatures[jws] = checked
        switch checked {
        case .failure(let failure):
            return .unverified(reason: failure.description)
        case .success(let payload):
            guard Self.payload(payload, signs: transaction, bundleID: bundleID) else {
                return .unverified(reason: Self.editedDataReason)
            }
            return .verified
        }
    }

    static let editedDataReason = "the stored transaction does not match its signed payload (edited data)"

    /// Whether a verified JWS payload says exactly what the stored row says.
    /// `bundleID` nil takes the payload's own (the doctor reads a file without its catalog);
    /// `rule` checks as an older schema signed.
    static func payload(_ payload: JSON, signs transaction: Transaction, bundleID: String?,
                        rule: PayloadRule = .current) -> Bool {
        guard case .number(let signed) = payload["signedDate"], let milliseconds = Int64(signed) else { return false }
        let bundle: String
        if let bundleID {
            bundle = bundleID
        } else if case .string(let signedBundle)? = payload["bundleId"] {
            bundle = signedBundle
        } else {
            return false
        }
        return payload == transaction.signedPayload(bundleID: bundle, signedDate: Date(milliseconds: milliseconds),
                                                    rule: rule)
    }

    static func unverifiedTransaction(_ row: SQLiteDatabase.Row) -> Transaction {
        Transaction(
            id: row.int64(0), originalID: row.int64(1), productID: row.text(3),
            productType: ProductType(rawValue: row.text(4)) ?? .nonConsumable,
            purchaseDate: Date(milliseconds: row.int64(5)),
            originalPurchaseDate: Date(milliseconds: row.int64(6)),
            expirationDate: row.optionalInt64(7).map(Date.init(milliseconds:)),
            revocationDate: row.optionalInt64(8).map(Date.init(milliseconds:)),
            revocationReason: row.optionalText(9).flatMap(Transaction.RevocationReason.init(rawValue:)),
            isUpgraded: row.bool(10),
            ownershipType: Transaction.OwnershipType(rawValue: row.text(11)) ?? .purchased,
            purchasedQuantity: row.int(12),
            appAccountToken: row.optionalText(13).flatMap(UUID.init(uuidString:)),
            environment: Transaction.AppStoreEnvironment(rawValue: row.text(14)) ?? .xcode,
            storefront: row.text(15), currency: row.text(16),
            price: DecimalText.parse(row.text(17)) ?? 0,
            reason: Transaction.Reason(rawValue: row.text(18)) ?? .purchase,
            subscriptionGroupID: row.optionalText(19),
            offerType: row.optionalText(20).flatMap(Transaction.OfferType.init(rawValue:)),
            account: row.text(2),
            status: Transaction.Status(rawValue: row.text(21)) ?? .pending,
            isFinished: row.bool(22),
            pendingReason: row.optionalText(24).flatMap(Transaction.PendingReason.init(rawValue:)),
            offerID: row.optionalText(25),
            offerPaymentMode: row.optionalText(26).flatMap(PaymentMode.init(rawValue:)),
            offerPeriod: row.optionalText(27).flatMap(ISODuration.init))
    }

    /// Stores a new transaction and returns it with its id (and, for a first
    /// purchase, its `originalID`) filled in.
    /// The transaction takes the store's `environment` setting as it is recorded.
    func insert(_ transaction: Transaction) throws(SQLiteError) -> Transaction {
        var stored = transaction
        stored.environment = try environment()
        try db.run("""
            INSERT INTO transactions (original_id, account, product_id, product_type, purchase_date,
                original_purchase_date, expiration_date, revocation_date, revocation_reason, is_upgraded,
                ownership_type, quantity, app_account_token, environment, storefront, currency, price,
                reason, subscription_group_id, offer_type, status, finished, pending_reason, offer_id,
                offer_discount_type, offer_period)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            transaction.originalID, transaction.account, transaction.productID, transaction.productType.rawValue,
            transaction.purchaseDate.milliseconds, transaction.originalPurchaseDate.milliseconds,
            transaction.expirationDate?.milliseconds, transaction.revocationDate?.milliseconds,
            transaction.revocationReason?.rawValue, transaction.isUpgraded, transaction.ownershipType.rawValue,
            transaction.purchasedQuantity, transaction.appAccountToken?.uuidString,
            stored.environment.rawValue, transaction.storefront, transaction.currency,
            DecimalText.format(transaction.price), transaction.reason.rawValue, transaction.subscriptionGroupID,
            transaction.offerType?.rawValue, transaction.status.rawValue, transaction.isFinished,
            transaction.pendingReason?.rawValue, transaction.offerID, transaction.offerPaymentMode?.rawValue,
            transaction.offerPeriod?.description)
        stored.id = try db.scalar("SELECT last_insert_rowid()") ?? 0
        if stored.originalID == 0 {
            stored.originalID = stored.id
            try db.run("UPDATE transactions SET original_id = id WHERE id = ?", stored.id)
        }
        if stored.status == .purchased { try sign(stored.id) }
        // Read back, so the caller gets what the file keeps (dates to the millisecond), not the draft.
        return try self.transaction(id: stored.id) ?? stored
    }

    /// The account's transactions, newest first; optionally of one product only, or only the newest `limit`.
    func transactions(account: String, productID: String? = nil, limit: Int? = nil) throws(SQLiteError) -> [Transaction] {
        if let productID {
            return try verifiedTransactions("SELECT \(Self.columns) FROM transactions WHERE account = ? AND product_id = ? ORDER BY id DESC",
                                            [account, productID])
        }
        return try verifiedTransactions("SELECT \(Self.columns) FROM transactions WHERE account = ? ORDER BY id DESC LIMIT ?",
                                        [account, limit ?? -1])
    }

    /// Whether the account ever bought a subscription of the group (a row is enough: no signature to check).
    func hasPurchase(account: String, groupID: String) throws(SQLiteError) -> Bool {
        try db.scalar("""
            SELECT EXISTS (SELECT 1 FROM transactions
                           WHERE account = ? AND subscription_group_id = ? AND status = 'purchased')
            """, account, groupID) == 1
    }

    /// Transactions the App Store still holds for the app: purchased, not finished.
    func unfinishedTransactions(account: String) throws(SQLiteError) -> [Transaction] {
        try verifiedTransactions("""
            SELECT \(Self.columns) FROM transactions
            WHERE account = ? AND status = 'purchased' AND finished = 0 ORDER BY id
            """, [account])
    }

    /// The newest transaction of each product that is not a consumable, for
    /// entitlements and restore.
    func latestRestorableTransactions(account: String) throws(SQLiteError) -> [Transaction] {
        try verifiedTransactions("""
            SELECT \(Self.columns) FROM transactions
            WHERE id IN (SELECT max(id) FROM transactions
                         WHERE account = ? AND status = 'purchased' AND product_type != 'consumable'
                           AND revocation_date IS NULL AND is_upgraded = 0
                         GROUP BY product_id)
            ORDER BY id
            """, [account])
    }

    /// The transactions that granted the app's owned products (any account's ids the
    /// cache names; the caller checks), read and verified in one go.
    func ownedProductTransactions(account: String) throws(SQLiteError) -> [Transaction] {
        try verifiedTransactions("""
            SELECT \(Self.columns) FROM transactions
            WHERE id IN (SELECT transaction_id FROM app_owned WHERE account = ?)
            """, [account])
    }

    func transaction(id: Int64) throws(SQLiteError) -> Transaction? {
        try db.rows("SELECT \(Self.columns) FROM transactions WHERE id = ?", id, as: transaction).first
    }

    /// Rewrites a transaction's App Store record (approval, refund) and signs it anew.
    func update(_ transaction: Transaction) throws(SQLiteError) -> Transaction {
        try db.run("""
            UPDATE transactions SET original_id = ?, purchase_date = ?, original_purchase_date = ?, expiration_date = ?,
                revocation_date = ?, revocation_reason = ?, is_upgraded = ?, storefront = ?, currency = ?, price = ?,
                offer_type = ?, offer_id = ?, status = ?, pending_reason = ?, offer_discount_type = ?, offer_period = ?,
                jws = NULL
            WHERE id = ?
            """,
            transaction.originalID, transaction.purchaseDate.milliseconds, transaction.originalPurchaseDate.milliseconds,
            transaction.expirationDate?.milliseconds, transaction.revocationDate?.milliseconds,
            transaction.revocationReason?.rawValue, transaction.isUpgraded, transaction.storefront,
            transaction.currency, DecimalText.format(transaction.price), transaction.offerType?.rawValue,
            transaction.offerID, transaction.status.rawValue, transaction.pendingReason?.rawValue,
            transaction.offerPaymentMode?.rawValue, transaction.offerPeriod?.description, transaction.id)
        if transaction.status == .purchased { try sign(transaction.id) }
        return try self.transaction(id: transaction.id) ?? transaction
    }

    /// Removes a transaction from the history (the Transaction Manager's Delete).
    func delete(transactionID id: Int64) throws(SQLiteError) {
        try db.run("DELETE FROM transactions WHERE id = ?", id)
        try db.run("DELETE FROM app_owned WHERE transaction_id = ?", id)
    }

    /// The account's transactions waiting for approval or an action, oldest first.
    func pendingTransactions(account: String) throws(SQLiteError) -> [Transaction] {
        try db.rows("SELECT \(Self.columns) FROM transactions WHERE account = ? AND status = 'pending' ORDER BY id",
                    account, as: transaction)
    }

    func markUpgraded(_ id: Int64) throws(SQLiteError) {
        try db.run("UPDATE transactions SET is_upgraded = 1 WHERE id = ?", id)
        try sign(id)
    }

    /// Marks a transaction finished; false when it already was (so delivery happens once).
    func markFinished(_ id: Int64) throws(SQLiteError) -> Bool {
        try db.run("UPDATE transactions SET finished = 1 WHERE id = ? AND finished = 0", id)
        return db.changes > 0
    }

    // MARK: - Subscriptions

    /// Each subscription group's renewal state for an account.
    func subscriptionStates(account: String) throws(SQLiteError) -> [SubscriptionRecord] {
        try db.rows("""
            SELECT group_id, original_id, will_auto_renew, auto_renew_product_id, expiration_reason,
                   billing_retry_since, grace_until
            FROM subscriptions WHERE account = ? ORDER BY group_id
            """, account) { row in
            SubscriptionRecord(
                groupID: row.text(0), originalID: row.int64(1), willAutoRenew: row.bool(2),
                autoRenewProductID: row.text(3), expirationReason: row.optionalText(4),
                billingRetrySince: row.optionalInt64(5).map(Date.init(milliseconds:)),
                graceUntil: row.optionalInt64(6).map(Date.init(milliseconds:)))
        }
    }

    /// Every account with a subscription, for renewals made across the store.
    func subscribedAccounts() throws(SQLiteError) -> [String] {
        try db.rows("SELECT DISTINCT account FROM subscriptions ORDER BY account") { $0.text(0) }
    }

    func saveSubscription(_ record: SubscriptionRecord, account: String) throws(SQLiteError) {
        try db.run("""
            INSERT OR REPLACE INTO subscriptions (account, group_id, original_id, will_auto_renew, auto_renew_product_id,
                expiration_reason, billing_retry_since, grace_until) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """, account, record.groupID, record.originalID, record.willAutoRenew, record.autoRenewProductID,
            record.expirationReason, record.billingRetrySince?.milliseconds, record.graceUntil?.milliseconds)
    }

    /// The newest transaction of a subscription (renewals included).
    func latestTransaction(originalID: Int64) throws(SQLiteError) -> Transaction? {
        try db.rows("SELECT \(Self.columns) FROM transactions WHERE original_id = ? AND status = 'purchased' ORDER BY id DESC LIMIT 1",
                    originalID, as: transaction).first
    }

    /// How many transactions of a subscription used an offer of this type (periods of a pay-as-you-go offer).
    func offerPeriods(originalID: Int64, type: Transaction.OfferType, since: Int64) throws(SQLiteError) -> Int {
        Int(try db.scalar("SELECT count(*) FROM transactions WHERE original_id = ? AND offer_type = ? AND id >= ?",
                          originalID, type.rawValue, since) ?? 0)
    }

    /// When the subscription was last bought (not renewed): the start of its current run.
    func latestPurchaseDate(originalID: Int64) throws(SQLiteError) -> Date? {
        try db.rows("""
            SELECT purchase_date FROM transactions WHERE original_id = ? AND reason = 'purchase' ORDER BY id DESC LIMIT 1
            """, originalID) { Date(milliseconds: $0.int64(0)) }.first
    }

    /// When the subscription's current run of renewals began: the plain purchase of
    /// `productID` that started it, or the end of the offer or other plan before it.
    func renewalSeriesStart(originalID: Int64, productID: String) throws(SQLiteError) -> Date? {
        try db.rows("""
            SELECT offer_type IS NULL AND product_id = ?, purchase_date, expiration_date FROM transactions
            WHERE original_id = ? AND status = 'purchased' AND (reason = 'purchase' OR offer_type IS NOT NULL OR product_id != ?)
            ORDER BY id DESC LIMIT 1
            """, productID, originalID, productID, as: { row in
                Date(milliseconds: row.bool(0) ? row.int64(1) : (row.optionalInt64(2) ?? row.int64(1)))
            }).first
    }

    /// The id of the subscription's newest transaction that started an offer of this type (0 when none).
    func latestOfferStart(originalID: Int64, type: Transaction.OfferType) throws(SQLiteError) -> Int64 {
        try db.scalar("""
            SELECT coalesce(max(id), 0) FROM transactions WHERE original_id = ? AND reason = 'purchase' AND offer_type = ?
            """, originalID, type.rawValue) ?? 0
    }

    // MARK: - App side

    func recordOwned(account: String, productID: String, transactionID: Int64) throws(SQLiteError) {
        try db.run("INSERT OR REPLACE INTO app_owned (account, product_id, transaction_id) VALUES (?, ?, ?)",
                   account, productID, transactionID)
    }

    /// The app's cache of owned products: product id → the transaction that granted it.
    func owned(account: String) throws(SQLiteError) -> [String: Int64] {
        var owned: [String: Int64] = [:]
        try db.query("SELECT product_id, transaction_id FROM app_owned WHERE account = ?", [account]) { row in
            owned[row.text(0)] = row.int64(1)
        }
        return owned
    }

    func balances(account: String) throws(SQLiteError) -> [String: Int] {
        var balances: [String: Int] = [:]
        try db.query("SELECT product_id, balance FROM app_balances WHERE account = ?", [account]) { row in
            balances[row.text(0)] = row.int(1)
        }
        return balances
    }

    func addToBalance(account: String, productID: String, amount: Int) throws(SQLiteError) {
        try db.run("""
            INSERT INTO app_balances (account, product_id, balance) VALUES (?, ?, ?)
            ON CONFLICT (account, product_id) DO UPDATE SET balance = balance + excluded.balance
            """, account, productID, amount)
    }

    // MARK: - Settings

    func setting(_ name: String, account: String) throws(SQLiteError) -> String? {
        try db.rows("SELECT value FROM settings WHERE account = ? AND name = ?", account, name) { $0.text(0) }.first
    }

    func setSetting(_ name: String, account: String, value: String) throws(SQLiteError) {
        try db.run("INSERT OR REPLACE INTO settings (account, name, value) VALUES (?, ?, ?)", account, name, value)
    }

    func removeSetting(_ name: String, account: String) throws(SQLiteError) {
        try db.run("DELETE FROM settings WHERE account = ? AND name = ?", account, name)
    }

    // MARK: - Events

    func log(_ state: TransactionEvent.State, account: String, productID: String, transactionID: Int64? = nil,
             detail: String = "", at date: Date) throws(SQLiteError) {
        try db.run("INSERT INTO events (date, account, state, product_id, transaction_id, detail) VALUES (?, ?, ?, ?, ?, ?)",
                   date.milliseconds, account, state.rawValue, productID, transactionID, detail)
    }

    /// The account's newest events, oldest first.
    func events(account: String, limit: Int) throws(SQLiteError) -> [TransactionEvent] {
        try db.rows("""
            SELECT id, date, account, state, product_id, transaction_id, detail FROM
              (SELECT * FROM events WHERE account = ? ORDER BY id DESC LIMIT ?) ORDER BY id
            """, account, limit) { row in
            TransactionEvent(id: row.int64(0), date: Date(milliseconds: row.int64(1)), account: row.text(2),
                             state: TransactionEvent.State(rawValue: row.text(3)) ?? .failed,
                             productID: row.text(4), transactionID: row.optionalInt64(5), detail: row.text(6))
        }
    }

    // MARK: - Resets

    func reset(_ scope: ResetScope, account: String) throws(SQLiteError) {
        switch scope {
        case .app:
            // Deleting the app wipes what the device knows, for every account signed in on it.
            try db.execute("DELETE FROM app_owned; DELETE FROM app_balances;")
        case .account:
            for table in ["transactions", "settings", "events", "app_owned", "app_balances", "subscriptions"] {
                try db.run("DELETE FROM \(table) WHERE account = ?", account)
            }
            try db.run("DELETE FROM accounts WHERE name = ?", account)
        case .all:
            // The id sequence is kept, so no transaction id is ever handed out twice.
            try db.execute("""
                DELETE FROM transactions; DELETE FROM settings; DELETE FROM events; DELETE FROM subscriptions;
                DELETE FROM app_owned; DELETE FROM app_balances; DELETE FROM accounts;
                """)
        }
    }
}

extension Date {
    /// Milliseconds since 1970, as Apple's transaction payloads count.
    var milliseconds: Int64 { Int64((timeIntervalSince1970 * 1000).rounded()) }

    init(milliseconds: Int64) {
        self.init(timeIntervalSince1970: Double(milliseconds) / 1000)
    }
}
