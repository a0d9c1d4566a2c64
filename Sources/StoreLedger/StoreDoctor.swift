import CSQLite
import Foundation
import StoreCatalog
import StoreSigning

/// What `storefront doctor` found in a store file: whether it could be read at
/// all, the problems that make it unusable or untrustworthy, and notes.
public struct StoreCheckup: Sendable {
    /// One finding: a short machine name (`"integrity"`, `"unverified"`), a
    /// sentence for people, and the transactions it concerns.
    public struct Finding: Sendable, Equatable {
        public var check: String
        public var message: String
        public var transactionIDs: [Int64]

        public init(check: String, message: String, transactionIDs: [Int64] = []) {
            self.check = check
            self.message = message
            self.transactionIDs = transactionIDs
        }
    }

    public var path: String
    /// False when the file could not be read at all (missing, a folder, no permission).
    public var readable = true
    /// What passed, in the order checked.
    public var passed: [String] = []
    public var problems: [Finding] = []
    public var notes: [Finding] = []
    public var schemaVersion: Int64?
    public var transactionCount: Int?
    public var accountCount: Int?

    /// Readable and without problems (notes are fine).
    public var isHealthy: Bool { readable && problems.isEmpty }
}

/// Examines a store file without changing it: not one byte of it, and no
/// `-wal`, `-shm` or journal file is created beside it.
public enum StoreDoctor {
    /// Checks the file at `path`: what it is, its SQLite integrity, its tables,
    /// every transaction's signature, its permissions, unfinished transactions.
    public static func examine(path: String) -> StoreCheckup {
        if case .postgreSQL(let uri) = StoreAddress(path) { return examine(postgreSQL: uri) }
        var checkup = StoreCheckup(path: path)
        func cannotRead(_ message: String) -> StoreCheckup {
            checkup.readable = false
            checkup.problems.append(.init(check: "readable", message: message))
            return checkup
        }
        func problem(_ check: String, _ message: String, _ ids: [Int64] = []) {
            checkup.problems.append(.init(check: check, message: message, transactionIDs: ids))
        }

        // The rule storefront opens it by: a symbolic link is followed, and its file examined.
        let location: StoreFileLocation
        do {
            location = try StoreFileLocation(path)
        } catch {
            return cannotRead(error.reason)
        }
        guard let info = location.info else { return cannotRead("there is no file at this path") }
        let path = location.file
        if path != location.path { checkup.notes.append(.init(check: "link", message: "a symbolic link to \(path): that file is examined")) }
        guard info.st_mode & S_IFMT == S_IFREG else { return cannotRead("is not a regular file (a folder or a device)") }
        guard let handle = FileHandle(forReadingAtPath: path) else { return cannotRead("cannot be read (permission denied)") }
        let header = (try? handle.read(upToCount: 100)) ?? Data()
        try? handle.close()

        // Permissions first: they matter whatever the content.
        for file in [path, path + "-wal", path + "-shm"] {
            var fileInfo = stat()
            guard stat(file, &fileInfo) == 0 else { continue }
            let mode = fileInfo.st_mode & 0o777
            if mode != 0o600 {
                problem("mode", "\((file as NSString).lastPathComponent) has mode \(String(mode, radix: 8, uppercase: false).leftPadded(to: 4)); it should be 0600 (owner only: the file holds the signing key)")
            }
        }
        if !checkup.problems.contains(where: { $0.check == "mode" }) { checkup.passed.append("mode 0600") }

        guard info.st_size > 0 else {
            problem("empty", "is empty (0 bytes), not a store file")
            return checkup
        }
        guard header.count == 100, header.starts(with: Array("SQLite format 3\0".utf8)) else {
            problem("format", "is not a SQLite database (no SQLite header)")
            return checkup
        }
        if let truncation = StoreFileHeader.truncation(at: path) { problem("truncated", truncation) }
        // A -wal file, even empty, means another connection may be writing: read through it.
        // An empty one holds nothing (a full disk can leave one behind, with an empty -shm that
        // a read-only connection cannot use): the main file is then the whole database.
        let walExists = ((try? FileManager.default.attributesOfItem(atPath: path + "-wal")[.size]) as? Int ?? 0) > 0
        if let full = diskFull(beside: path) { problem("disk full", full) }
        if let missing = StoreFileCompanions.missingWAL(of: path) { problem("wal", missing.message) }
        if let foreign = StoreFileCompanions.foreignLog(of: path, info: info) { problem("wal", foreign) }

        // Read-only; with no -wal file the main file is the whole database and is
        // opened immutable, which creates no -wal or -shm beside it.
        let uri = "file:" + uriEscaped(SQLiteDatabase.plainPath(path)) + (walExists ? "?mode=ro" : "?immutable=1")
        let db: SQLiteDatabase
        do {
            db = try SQLiteDatabase(path: uri, create: false, readOnly: true, uri: true)
            try db.execute("PRAGMA busy_timeout = 5000")
        } catch {
            return cannotRead("cannot be opened: \(error.message)")
        }
        do {
            try examine(db, into: &checkup)
        } catch {
            problem("damaged", "is damaged: \(error.message)")
        }
        return checkup
    }

    /// "disk full: …" when the file system holding the store has no room left for a page:
    /// then the store cannot be written, however healthy the file.
    static func diskFull(beside path: String) -> String? {
        var info = statvfs()
        let folder = path.pathFolder
        guard statvfs(folder.isEmpty ? "." : folder, &info) == 0 else { return nil }
        let free = UInt64(info.f_bavail) * UInt64(info.f_frsize)
        guard free < 64 * 1024 else { return nil }
        return "the disk is full: \(free) bytes free on the file system that holds the store, so nothing can be bought or changed until space is freed (the file itself may be fine)"
    }

    /// The checks that apply to a store in PostgreSQL: what the database is (a store, of a
    /// schema this build reads), its tables, the signing key and chain, every transaction's
    /// signature and seal, the sealed head, unfinished transactions. Read-only: one
    /// `READ ONLY` snapshot; nothing is made, even in an empty database.
    static func examine(postgreSQL uri: String) -> StoreCheckup {
        var checkup = StoreCheckup(path: StoreAddress(uri).shown)
        func problem(_ check: String, _ message: String) {
            checkup.problems.append(.init(check: check, message: message))
        }
        let db: PostgreSQLStoreConnection
        do {
            db = try PostgreSQLStoreConnection(uri)
        } catch {
            checkup.readable = false
            problem("readable", "cannot be opened: \(error.message)")
            return checkup
        }
        do {
            // One snapshot, read only: a store being written meanwhile is examined as of one commit.
            try db.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
            defer { try? db.execute("COMMIT") }
            let tables = Set(try db.texts("""
                SELECT table_name::text FROM information_schema.tables WHERE table_schema = current_schema()
                """))
            guard tables.contains(Ledger.markerTable) else {
                problem("application", tables.isEmpty ? "is an empty database (or schema), not a store yet"
                                                      : "is a database of another application, not a store")
                return checkup
            }
            let version = try db.scalar("SELECT schema_version FROM \(Ledger.markerTable)") ?? 0
            checkup.schemaVersion = version
            guard version <= Ledger.schemaVersion else {
                problem("schema", "was written by a newer storefront (schema version \(version); this one reads up to \(Ledger.schemaVersion))")
                return checkup
            }
            checkup.passed.append("a store in PostgreSQL, schema version \(version)")
            try examineContents(db, version: version, stated: version, shape: version, tables: tables, into: &checkup)
        } catch {
            problem("damaged", "cannot be read: \(error)")
        }
        return checkup
    }

    private static func examine(_ db: any LedgerConnection, into checkup: inout StoreCheckup) throws(DatabaseError) {
        func problem(_ check: String, _ message: String, _ ids: [Int64] = []) {
            checkup.problems.append(.init(check: check, message: message, transactionIDs: ids))
        }
        let applicationID = try db.scalar("PRAGMA application_id") ?? 0
        let stated = try db.scalar("PRAGMA user_version") ?? 0
        // Read as the schema its columns show: a version set back by hand would have the seals
        // read as absent (and an edit under them pass), and makes no migration to come.
        let shape = try Ledger.shapeVersion(of: db)
        let version = applicationID == Int64(Ledger.applicationID) ? max(stated, shape) : stated
        let tables = Set(try db.rows("SELECT name FROM sqlite_master WHERE type = 'table'") { $0.text(.name) })
        guard applicationID == Int64(Ledger.applicationID) else {
            problem("application", applicationID == 0 && version == 0 && tables.isEmpty
                ? "is a blank SQLite database, not a store file yet"
                : "is a SQLite database of another application (application_id \(applicationID)), not a store file")
            return
        }
        checkup.schemaVersion = version
        guard version <= Ledger.schemaVersion else {
            problem("schema", "was written by a newer storefront (schema version \(version); this one reads up to \(Ledger.schemaVersion))")
            return
        }
        if let lowered = Ledger.loweredVersion(stated: stated, shape: shape) {
            problem("schema", "\(lowered); storefront opens it as schema \(Ledger.schemaVersion) and seals nothing again, so what was edited under its seals is still found")
        } else {
            checkup.passed.append("a store file, schema version \(version)")
        }

        let integrity = try db.rows("PRAGMA integrity_check(20)") { $0.text(.integrity_check) }
        if integrity == ["ok"] {
            checkup.passed.append("integrity_check ok")
        } else {
            problem("integrity", "fails PRAGMA integrity_check: \(integrity.prefix(5).joined(separator: "; "))")
        }

        try examineContents(db, version: version, stated: stated, shape: shape, tables: tables, into: &checkup)
    }

    /// What both backends are checked for, once the store is known for a store of `version`.
    private static func examineContents(_ db: any LedgerConnection, version: Int64, stated: Int64, shape: Int64,
                                        tables: Set<String>, into checkup: inout StoreCheckup) throws(DatabaseError) {
        func problem(_ check: String, _ message: String, _ ids: [Int64] = []) {
            checkup.problems.append(.init(check: check, message: message, transactionIDs: ids))
        }
        let expected = Ledger.tables + (version >= 3 ? ["subscriptions"] : [])  // schema 3 added it
        let missing = expected.filter { !tables.contains($0) }
        guard missing.isEmpty else {
            problem("tables", "lacks the table\(missing.count == 1 ? "" : "s") \(missing.joined(separator: ", "))")
            return
        }
        checkup.passed.append("all \(expected.count) tables present")
        checkup.accountCount = Int(try db.scalar("SELECT count(*) FROM accounts") ?? 0)

        let pem = try db.rows("SELECT private_key FROM signing_key WHERE id = 1", as: { $0.text(.private_key) }).first
        let transactionCount = try db.scalar("SELECT count(*) FROM transactions") ?? 0
        if pem == nil, transactionCount == 0 {
            // A store whose creator stopped before its first key: the next open makes one.
            checkup.transactionCount = 0
            checkup.notes.append(.init(check: "key", message: "no signing key yet: made the next time storefront opens the store"))
            return
        }
        guard let pem, let key = try? SigningKey(pem: pem) else {
            problem("key", "has no usable signing key, so no transaction in it can be verified")
            return
        }
        let rule = PayloadRule.forSchema(version)
        let sealKey = Ledger.sealKey(for: key)
        // Schema 5 signs with the chain's header (x5c); older schemas with the bare key (kid).
        var identity: SigningIdentity?
        if rule == .current {
            do {
                identity = try chainIdentity(db, key: key)
                checkup.passed.append("certificate chain (root, intermediate, signing leaf) verified, with Apple's marker extensions")
            } catch {
                problem("chain", "has no valid certificate chain, so no transaction in it can be verified: \(error)")
                return
            }
        }
        if tables.contains("receipt_signing_key") { try examineReceiptSigner(db, into: &checkup) }
        let validity = identity.map { identity in
            (start: [identity.chain.leaf, identity.chain.intermediate, identity.chain.root].compactMap(\.notBefore).max() ?? .distantPast,
             end: [identity.chain.leaf, identity.chain.intermediate, identity.chain.root].compactMap(\.notAfter).min() ?? .distantFuture)
        }

        var unverified: [(id: Int64, reason: String)] = []
        var unfinished: [Int64] = []
        var count = 0
        let withCommitments = tables.contains("transaction_commitments")
        let columns = Ledger.columns(forSchema: version, withCommitments: withCommitments, withRefunds: tables.contains("transaction_refunds"))
        try db.query("SELECT \(columns) FROM transactions ORDER BY id", []) { row in
            count += 1
            var transaction = Ledger.unverifiedTransaction(row)
            if transaction.status == .purchased, !transaction.isFinished { unfinished.append(transaction.id) }
            // Schema 6 seals every column, status and finished too, which no JWS covers (judged
            // after the signature, whose reason says more).
            let sealed = version < 6 || row.optionalText(.seal) == Ledger.seal(of: row, key: sealKey)
            let before = unverified.count
            defer { if !sealed, unverified.count == before { unverified.append((transaction.id, Ledger.brokenSealReason)) } }
            guard let jws = row.optionalText(.jws) else {
                if transaction.status == .purchased { unverified.append((transaction.id, "not signed")) }
                return
            }
            transaction.jwsRepresentation = jws
            do {
                let payload = try identity?.verifySignature(jws).payload ?? key.verify(jws).payload
                if !Ledger.payload(payload, signs: transaction, bundleID: nil, rule: rule) {
                    unverified.append((transaction.id, Ledger.editedDataReason))
                } else if let validity, case .number(let text)? = payload["signedDate"], let milliseconds = Int64(text),
                          !(validity.start...validity.end).contains(Date(milliseconds: milliseconds)) {
                    unverified.append((transaction.id, "signed at a date outside the certificate chain's validity"))
                }
            } catch {
                unverified.append((transaction.id, String(describing: error)))
            }
        }
        checkup.transactionCount = count
        // Schema 10 seals each subscription's renewal state and each balance: an edited one is named.
        if version >= 10 {
            let broken = try Ledger.brokenRecordSeals(db, key: sealKey)
            if broken.rows.isEmpty {
                checkup.passed.append("every subscription's renewal state and every balance sealed")
            } else {
                let count = broken.rows.count
                let rows = broken.rows.prefix(Self.idsShown).joined(separator: "; ") + (count > Self.idsShown ? " and \(count - Self.idsShown) more" : "")
                problem("records", "\(count == 1 ? "1 row beside the transactions fails its seal" : "\(count) rows beside the transactions fail their seals") (edited: read as absent, so no grace period, renewal or balance comes of it): \(rows)",
                        broken.ids)
            }
        }
        if version >= 6 {
            if let head = try Ledger.headProblem(db, key: sealKey, withRecords: version >= 10) {
                problem("head", head)
            } else {
                checkup.passed.append("every row sealed, and the rows add up to the sealed head")
            }
        }
        if unverified.isEmpty {
            checkup.passed.append("\(count) transaction\(count == 1 ? "" : "s"), every one verified")
        } else {
            let reasons = Dictionary(grouping: unverified, by: \.reason)
                .sorted { $0.key < $1.key }
                .map { "\($0.key): \(Self.idList($0.value.map(\.id)))" }
            problem("unverified", "\(unverified.count) of \(count) transactions fail verification (tampered): \(reasons.joined(separator: "; "))",
                    unverified.map(\.id))
        }
        if stated < shape {
            // Said above, as a problem: no migration is to come.
        } else if (6...9).contains(version) {
            let tables = [(7, "schema 7's tables (offer keys, used nonces, redeemed offer codes)"),
                          (8, "schema 8's (price changes, price increases, messages, families, family-shared transactions, refund requests)"),
                          (9, "schema 9's (each transaction's history revision, in id order)"),
                          (10, "schema 10's seals on each subscription's renewal state and each balance, as they stand")]
                .filter { $0.0 > version }.map(\.1)
            checkup.notes.append(.init(check: "schema", message: "schema version \(version): the next time storefront opens it, it gets \(tables.joined(separator: " and ")); its transactions stay as they are"))
        } else if version < Ledger.schemaVersion {
            checkup.notes.append(.init(check: "schema", message: "schema version \(version): the next time storefront opens it, it gets a certificate chain and its transactions are signed again (with their account, x5c and today's fields)"))
        }
        if !unfinished.isEmpty {
            checkup.notes.append(.init(
                check: "unfinished",
                message: "\(unfinished.count) unfinished transaction\(unfinished.count == 1 ? "" : "s") (\(Self.idList(unfinished))): delivered and finished the next time storefront opens the store",
                transactionIDs: unfinished))
        }
    }

    /// The receipt signer, once issued (at the store's first receipt): its chain verifies against its own
    /// root with the markers, its leaf certifies its key, and the key is RSA.
    private static func examineReceiptSigner(_ db: any LedgerConnection, into checkup: inout StoreCheckup) throws(DatabaseError) {
        let rows = try db.rows("""
            SELECT private_key, leaf_certificate, intermediate_certificate, root_certificate FROM receipt_signing_key WHERE id = 1
            """) { ($0.text(.private_key), $0.text(.leaf_certificate), $0.text(.intermediate_certificate), $0.text(.root_certificate)) }
        guard let (key, leaf, intermediate, root) = rows.first else { return }
        do {
            let chain = CertificateChain(leaf: try Certificate(pem: leaf), intermediate: try Certificate(pem: intermediate),
                                         root: try Certificate(pem: root))
            let signer = try ReceiptSigner(key: try SigningKey(pem: key), chain: chain)
            let leafKey = try CertificateChain.verify(x5c: chain.x5c, trustedRoot: chain.root, at: max(chain.leaf.notBefore ?? Date(), Date()))
            guard signer.key.isRSA, leafKey.hasSamePublicKey(as: signer.key) else {
                throw VerificationFailure(description: "the leaf does not certify an RSA receipt-signing key")
            }
            checkup.passed.append("receipt-signing chain (RSA root, intermediate, receipt-signing leaf) verified, with Apple's marker extensions")
        } catch {
            checkup.problems.append(.init(check: "receiptKey", message: "has an unusable receipt-signing key or chain, so its app receipts cannot be made or do not verify: \(error)",
                                          transactionIDs: []))
        }
    }

    /// Ids for a line of text: the first ``idsShown``, then how many more (`--json` lists every one):
    /// 2,400 unfinished transactions made one line of 28,000 characters.
    static func idList(_ ids: [Int64]) -> String {
        let shown = ids.prefix(idsShown).map(String.init).joined(separator: ", ")
        return ids.count <= idsShown ? shown : shown + " and \(ids.count - idsShown) more (--json lists them all)"
    }

    /// How many ids a line names.
    static let idsShown = 10

    /// The chain stored beside the key (schema 5), checked now: it verifies against its
    /// own root, carries the markers, and its leaf certifies the key.
    private static func chainIdentity(_ db: any LedgerConnection, key: SigningKey) throws -> SigningIdentity {
        let pems = try db.rows("""
            SELECT leaf_certificate, intermediate_certificate, root_certificate FROM signing_key WHERE id = 1
            """) { [$0.optionalText(.leaf_certificate), $0.optionalText(.intermediate_certificate), $0.optionalText(.root_certificate)] }.first?.compactMap { $0 } ?? []
        guard pems.count == 3 else { throw VerificationFailure(description: "the certificates are missing") }
        let identity = try SigningIdentity(
            key: key, chain: CertificateChain(leaf: try Certificate(pem: pems[0]), intermediate: try Certificate(pem: pems[1]),
                                              root: try Certificate(pem: pems[2])))
        let start = identity.chain.leaf.notBefore ?? Date()
        try identity.checkChain(at: max(start, Date()))
        return identity
    }

    /// A path as the path part of a `file:` URI: `%`, `?` and `#` would otherwise end or change it.
    static func uriEscaped(_ path: String) -> String {
        var escaped = ""
        for character in path {
            switch character {
            case "%": escaped += "%25"
            case "?": escaped += "%3f"
            case "#": escaped += "%23"
            default: escaped.append(character)
            }
        }
        return escaped
    }
}
