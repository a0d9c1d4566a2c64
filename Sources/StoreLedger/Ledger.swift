import CSQLite
import Dispatch
import Foundation
import Glibc
import StoreCatalog
import StoreSigning
import Synchronization

/// The store file: one SQLite database with what the App Store knows
/// (accounts, every transaction, settings, the event log) and what the app on
/// the device knows (its cache of owned products, consumable balances) in
/// separate tables, so deleting the app and resetting an account differ as on a device.
///
/// A file that is not a store file is refused before anything is written to it.
package final class Ledger {
    /// `PRAGMA application_id` of every store file: "SFRT".
    package static let applicationID: Int32 = 0x5346_5254
    /// The newest schema this build reads and writes. 2: why a pending transaction waits;
    /// 3: promotional offers and subscription renewal state; 4: transactions are signed
    /// with their account (`sandboxAccount`); 5: a certificate chain beside the key, every
    /// JWS with `x5c` and Apple's later payload fields; 6: a seal per row over every column
    /// and a sealed head over all rows (LedgerSeals), server notifications, their delivery
    /// attempts and the Server API's keys (LedgerServer); 7: promotional offer keys, nonces and
    /// redeemed offer codes; 8: Family Sharing and refund requests (``familyTables``,
    /// ``refundRequestTables``), price changes, price increases and messages (``pricingTables``),
    /// tables only; 9: each transaction's history revision, its last change (``historyRevisionTables``);
    /// 10: a seal on each subscription's renewal state and each balance (LedgerRecordSeals).
    /// Older files are re-signed on open.
    package static let schemaVersion: Int64 = 10
    /// Transaction ids start above this, like the long ids Apple hands out.
    package static let firstTransactionID: Int64 = 2_000_000_000

    package let path: String
    /// The file itself: `path`, or where its symbolic link leads.
    package let file: String
    /// What was repaired on opening (a file others could read), for the user to hear.
    package var warnings: [String] = []
    /// The connection: the ledger's own, never handed out (``write(durable:_:)``, ``read(_:)``).
    let db: any LedgerConnection
    /// The same connection when the store is a SQLite file, for the file's own concerns (its
    /// header, its log, the busy wait); nil on PostgreSQL.
    let sqliteFile: SQLiteDatabase?
    /// The store's signing key and its certificate chain, kept inside the store file
    /// (see docs/store-file.md).
    var key: SigningIdentity!
    /// The receipt signer, once loaded or issued (LedgerReceiptSigning).
    var receiptKey: ReceiptSigner?
    /// Real time, as the store's clock reads it (tests pass their own).
    package let now: @Sendable () -> Date
    /// The store's time, for `signedDate`: the store sets its own clock here; until
    /// then (while opening) the clock settings are read as they stand.
    package var signingTime: () throws -> Date = { Date() }
    /// The app's bundle id, for signed payloads (without a catalog, the file's own: ``adoptSignedBundleID()``).
    package var bundleID: String
    /// Verified reads of the `transactions` table, while it is unchanged (LedgerTransactions).
    var readCache = ReadCache()
    /// JWS strings already checked, so a long-running paywall verifies each once.
    var verifiedSignatures: [String: Result<JSON, VerificationFailure>] = [:]
    /// The key of the rows' seals, derived from the signing key (LedgerSeals).
    package private(set) var sealKey: [UInt8] = []
    /// HMAC-SHA256 under ``sealKey``, keyed once: seals and marks (LedgerSeals, LedgerVerifiedRows).
    package private(set) var sealHasher = SealHasher(key: [])
    /// That the file at ``path`` is still the one open (LedgerFileWatch).
    package internal(set) var fileWatch = FileWatch()
    /// Whether each commit waits for the disk (``Durability``); the file's other connections choose their own.
    package private(set) var durability = Durability.full
    /// Whether opening runs `PRAGMA quick_check`, and what its refusal adds (nil: not run).
    private var damageCheck: String?
    /// Each account's settings, read whole once per write or read (``write(durable:_:)``,
    /// ``read(_:)``), which no other connection can change meanwhile; nil outside one.
    var settingsMemo: SettingsMemo?
    /// Settings read ahead for a check outside a write or read (``readingSettings(_:of:_:)``); nil otherwise.
    var settingsRead: SettingsRead?
    /// How many statements have read settings: what a test counts to check a command's round trips.
    package internal(set) var settingQueries = 0

    /// Opens the store file at `path`, creating it (and, with `createFolder`,
    /// its folder) when there is none: from `template`, a closed store file's bytes, when given.
    package init(path: String, bundleID: String = Catalog.defaultBundleID, createFolder: Bool = false,
                 durability: Durability = .full, template: [UInt8]? = nil,
                 now: @escaping @Sendable () -> Date = Date.init) throws(StoreFileError) {
        self.path = path
        self.durability = durability
        self.bundleID = bundleID
        self.now = now
        // One rule for every check, here and in the doctor: a symbolic link is followed, and
        // the file it leads to is checked, opened and repaired (StoreFileLocation).
        let location = try StoreFileLocation(path)
        let file = location.file
        self.file = file
        let fileManager = FileManager.default
        var createInPlace = false
        // Already open in this process (another Store, a reopened paywall): the checks below would
        // read the file and its -shm through descriptors of their own, and closing one drops every
        // POSIX lock SQLite holds on that file here. The open connection vouches for the file.
        var openHere = location.info.map { StoreFileCompanions.process(getpid(), hasOpen: $0.st_dev, $0.st_ino) == true } ?? false
        if let info = location.info {
            guard info.st_mode & S_IFMT != S_IFDIR else { throw StoreFileError(path: path, reason: "is a folder, not a store file") }
            guard access(file, R_OK) == 0 else {
                throw StoreFileError(path: path, reason: "cannot be read (permission denied)")
            }
            guard info.st_size > 0 else {
                throw StoreFileError(path: path, reason: "is empty (0 bytes), not a store file; delete it to start a new store")
            }
            guard access(file, W_OK) == 0 else {
                throw StoreFileError(path: path, reason: "is read-only; the store file must be writable")
            }
            // SQLite opens a file cut short inside its last page as if whole, and would write to it.
            if !openHere, let truncation = StoreFileHeader.truncation(at: file) {
                throw StoreFileError(path: path, reason: "\(truncation): damaged; `storefront doctor` tells more")
            }
            // It holds the private key: owner only. Repaired, with a warning, when others may read it.
            warnings += try location.repairModes(path: path)
            // Drafts of a creation that died (killed, or the disk full) go at the next open.
            Self.removeAbandonedDrafts(of: file)
        } else {
            let folder = file.pathFolder
            if !folder.isEmpty, !fileManager.fileExists(atPath: folder) {
                guard createFolder else {
                    throw StoreFileError(path: path, reason: "the folder \(folder) does not exist")
                }
                do {
                    try StoreFileLocation.createPrivateFolder(folder)
                } catch {
                    throw StoreFileError(path: path, reason: "cannot create the folder \(folder): \(error.reason)")
                }
            }
            createInPlace = !Self.createComplete(at: file, date: now(), durability: durability, template: template)
        }
        let exists = location.info != nil
        // A file made just now is checked below only when a -wal or -shm is beside it (a killed
        // process's log, or a running one's of a file deleted under it): without, nothing can have it
        // open, and this process's open files (thousands in a parallel test run) need not be read.
        var madeInfo = stat()
        let made = !exists && !createInPlace && StoreFileCompanions.exist(beside: file) && stat(file, &madeInfo) == 0 ? madeInfo : nil
        if let made { openHere = StoreFileCompanions.process(getpid(), hasOpen: made.st_dev, made.st_ino) == true }
        let checked = location.info ?? made
        // Never paired with another file's log: a running process may hold the -wal and -shm of
        // the file that was here before (this one moved into its place, or made where it was deleted);
        // nor with the log a killed process left for the file that was here before, or another store's.
        if !openHere, let info = checked, let refusal = StoreFileCompanions.foreignCompanions(of: file, info: info)
            ?? StoreFileCompanions.missingWAL(of: file).flatMap({ $0.live ? $0.message : nil })
            ?? StoreFileCompanions.foreignLog(of: file, info: info, madeNow: made != nil) {
            // A file made just now goes again: the next open meets the same refusal, not a file taking in that log.
            if made != nil { unlink(file) }
            throw StoreFileError(path: path, reason: refusal)
        }
        do {
            let connection = try SQLiteDatabase(path: file, create: createInPlace)
            if createInPlace { chmod(file, 0o600) }
            // Waiting for another process is not an error: each write holds the lock for one
            // fsync, but a queue of writers on a slow disk can take seconds to drain.
            connection.waitWhenBusy(milliseconds: 30_000)
            (db, sqliteFile) = (connection, connection)
        } catch {
            throw StoreFileError(path: path, reason: "cannot be opened: \(error.message)")
        }
        var info = stat()
        if stat(file, &info) == 0 { stampLogWithOwner(inode: info.st_ino) }
        // quick_check reads every page (about 1 ms a MiB): at every open of a file up to 16 MiB, and
        // of any file about to take in a log a killed process left (doctor checks every file).
        let leftoverLog = exists && !openHere && StoreFileCompanions.hasLeftoverLog(file)
        damageCheck = exists && !openHere && (info.st_size <= 16 << 20 || leftoverLog)
            ? (leftoverLog ? " A -wal a stopped process left beside it is part of what was read: moved aside (with the -shm), the file is read without it." : "")
            : nil
        try checkAndPrepare(isNew: !exists)
        try loadSigning(migrating: true)
        armFileWatch()
    }

    /// Opens the store in the PostgreSQL database a libpq connection string names
    /// (`postgresql://user@host/database?sslmode=require`), making its tables when the database
    /// has none. A database that holds other tables, or a newer store, is refused untouched.
    /// ``path`` and ``file`` are the string without its password.
    package init(postgreSQL connectionString: String, bundleID: String = Catalog.defaultBundleID,
                 now: @escaping @Sendable () -> Date = Date.init) throws(StoreFileError) {
        let shown = PostgreSQLConnection.redacted(connectionString)
        (path, file) = (shown, shown)
        self.bundleID = bundleID
        self.now = now
        do {
            let connection = try PostgreSQLStoreConnection(connectionString)
            (db, sqliteFile) = (connection, nil)
        } catch {
            throw StoreFileError(path: shown, reason: "cannot be opened: \(error.message)")
        }
        try preparePostgreSQL()
        try loadSigning(migrating: false)
        try migratePostgreSQL()
    }

    /// The last steps of opening: the store's clock for signing, the signing key (made on first
    /// use) and the seals' key, older files' signatures migrated, the certificate chain.
    private func loadSigning(migrating: Bool) throws(StoreFileError) {
        signingTime = { [unowned self] in try self.storeTimeFromSettings() }
        let signingKey: SigningKey
        do {
            signingKey = try loadKey()
            sealKey = Self.sealKey(for: signingKey)
            sealHasher = SealHasher(key: sealKey)
        } catch {
            throw Self.openingFailure(of: path, "has an unusable signing key", error)
        }
        if migrating {
            do {
                try migrate(signingKey)
            } catch {
                throw Self.openingFailure(of: path, "cannot be upgraded to schema \(Self.schemaVersion)", error)
            }
        }
        do {
            key = try loadIdentity(signingKey)
        } catch {
            throw Self.openingFailure(of: path, "has an unusable certificate chain", error)
        }
    }

    /// Why a step of opening failed: busy (the file is fine, try again) when another process
    /// held the lock past the busy timeout — at any step, loading the key and migrating included.
    package static func openingFailure(of path: String, _ step: String, _ error: any Error) -> StoreFileError {
        if let error = error as? DatabaseError, error.isBusy {
            return StoreFileError(path: path, reason: "is busy: \(error.message)", isBusy: true)
        }
        return StoreFileError(path: path, reason: "\(step): \(error)")
    }

    /// Refuses foreign files, then switches on WAL and creates or migrates the schema.
    func checkAndPrepare(isNew: Bool) throws(StoreFileError) {
        do {
            // Reads only: nothing is written until the file is known to be ours. One read
            // transaction, so all three come from one snapshot even while another process
            // is creating the schema.
            try db.execute("BEGIN")
            let applicationID = try db.scalar("PRAGMA application_id") ?? 0
            let version = try db.scalar("PRAGMA user_version") ?? 0
            let objects = try db.scalar("SELECT count(*) FROM sqlite_master") ?? 0
            // A damaged file (an index that misses rows, a page out of place) is refused before
            // anything is written to it: a write would build on the damage and report success.
            let damage = damageCheck == nil ? [] : try db.rows("PRAGMA quick_check(5)") { $0.text(.quick_check) }.filter { $0 != "ok" }
            try db.execute("COMMIT")
            if !damage.isEmpty {
                throw StoreFileError(path: path, reason: "is damaged (PRAGMA quick_check: \(damage.joined(separator: "; "))), so nothing is written to it; `storefront doctor` tells more, and `storefront store restore BACKUP` puts a backup in its place.\(damageCheck ?? "")")
            }
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
            try sqliteFile?.setDurability(durability)
            try db.execute("PRAGMA journal_mode = WAL")
            // A file of this schema holding exactly the objects of one this process prepared has
            // nothing to create: its DDL would be parsed, and the write lock taken, for nothing.
            if applicationID == Int64(Self.applicationID), version == Self.schemaVersion,
               let prepared = Self.preparedObjects.withLock({ $0 }), try objectNames() == prepared { return }
            try db.transaction {
                // Checked again under the write lock: another process may have created it meanwhile.
                // A version set back by hand counts as the schema its columns show: the steps
                // below it would create tables there are, or add a column twice, and every open fail.
                let stated = try db.scalar("PRAGMA user_version") ?? 0
                let current = applicationID == Int64(Self.applicationID) ? max(stated, try Self.shapeVersion(of: db)) : stated
                if current < 1 { try createSchema() }
                if current == 1 { try Self.migrate1to2(db) }
                if (1...2).contains(current) { try Self.migrate2to3(db) }
                if (1...5).contains(current) { try Self.migrate5to6(db, from: current) }
                if (1...6).contains(current) { try Self.migrate6to7(db) }
                if (1...7).contains(current) { try Self.migrate7to8(db) }
                if (1...8).contains(current) { try Self.migrate8to9(db) }
                try db.execute(Self.indexes)
                try db.execute(Self.serveTables)
                try db.execute(Self.verifiedRowsTable)
                try db.execute(Self.commitmentsTable)
                try db.execute(Self.refundsTable)
                try db.execute(Self.logOwnerTable)
                try db.execute(Self.receiptSigningKeyTable)
            }
            if try db.scalar("PRAGMA user_version") == Self.schemaVersion {
                let names = try objectNames()
                Self.preparedObjects.withLock { $0 = names }
            }
        } catch let error as StoreFileError {
            throw error
        } catch let error as DatabaseError where error.isNotADatabase {
            throw StoreFileError(path: path, reason: "is not a store file (not a SQLite database, or a damaged one)")
        } catch {
            throw Self.openingFailure(of: path, "cannot be used", error)
        }
    }

    /// The names of a store file's tables, indexes and triggers as this process's last prepared
    /// file of the current schema had them (``checkAndPrepare(isNew:)``).
    private static let preparedObjects = Mutex<String?>(nil)

    /// The names of the file's schema objects, sorted, in one string.
    private func objectNames() throws(DatabaseError) -> String {
        try db.rows("SELECT name FROM sqlite_master ORDER BY name") { $0.text(.name) }.joined(separator: " ")
    }

    /// Builds a new store file beside `path` and links it into place complete, so
    /// that a second process starting at the same moment never finds a half-made
    /// (empty) file there, which it would rightly refuse. Returns true when a store
    /// file is now at `path`: this one, or another process's that got there first.
    /// False when it could not be built so (the caller then creates it in place). With `template`
    /// (a closed store file's bytes), the draft is those bytes: its schema, key and settings.
    static func createComplete(at path: String, date: Date, durability: Durability = .full, template: [UInt8]? = nil) -> Bool {
        removeAbandonedDrafts(of: path)
        let temporary = path + ".new-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        defer { unlink(temporary) }
        if let template {
            guard writeDraft(template, to: temporary, durability: durability) else { return false }
        } else {
            do {
                let db = try SQLiteDatabase(path: temporary, create: true)
                try db.setDurability(durability)
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
        }
        return link(temporary, path) == 0 || errno == EEXIST
    }

    /// Writes `bytes` to a new file at `path`, the owner's alone; on the disk before it returns
    /// when `durability` is full, as a store SQLite made would be.
    private static func writeDraft(_ bytes: [UInt8], to path: String, durability: Durability) -> Bool {
        let descriptor = Glibc.open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress! + written, $0.count - written) }
            guard count > 0 else { return false }
            written += count
        }
        return durability != .full || fsync(descriptor) == 0
    }

    /// The tables of schema version 1, which the doctor expects to find.
    package static let tables = ["accounts", "transactions", "signing_key", "settings", "events", "app_owned", "app_balances"]

    /// Removes half-made store files (`PATH.new-PID-N` and their journals) that a
    /// process killed while creating the store left behind, once that process is gone.
    static func removeAbandonedDrafts(of path: String) {
        let folder = path.pathFolder
        let prefix = (path as NSString).lastPathComponent + ".new-"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.isEmpty ? "." : folder)) ?? []
        for name in names where name.hasPrefix(prefix) {
            guard let pid = Int32(name.dropFirst(prefix.count).prefix { $0 != "-" }),
                  kill(pid, 0) == -1, errno == ESRCH else { continue }
            unlink(folder.isEmpty ? name : folder + "/" + name)
        }
    }

    /// Changes whenever another connection commits: cheap to poll.
    package func dataVersion() throws(DatabaseError) -> Int64 {
        try checkFile()
        return try db.storeVersion()
    }

}
