import Foundation
import StoreCatalog
import StoreSigning

/// The ledger's signing: the key and its certificate chain in the store file, the
/// migration of older files to schema 5, and signing each transaction on the store's clock.
extension Ledger {
    // MARK: - Key and certificate chain

    /// Stores a new key with its chain, issued at `date` (store time).
    static func insertSigningKey(_ key: SigningKey, at date: Date, into db: any LedgerConnection) throws {
        let chain = try CertificateChain.issue(for: key, at: date)
        try db.run("""
            INSERT INTO signing_key (id, private_key, leaf_certificate, intermediate_certificate, root_certificate)
            VALUES (1, ?, ?, ?, ?)
            """, key.privateKeyPEM, chain.leaf.pem, chain.intermediate.pem, chain.root.pem)
    }

    /// The signing key stored in the file; made, with its chain, on first use.
    func loadKey() throws -> SigningKey {
        if let pem = try db.rows("SELECT private_key FROM signing_key WHERE id = 1", as: { $0.text(.private_key) }).first {
            return try ParsedSigningCache.key(pem)
        }
        return try db.transaction {
            if let pem = try db.rows("SELECT private_key FROM signing_key WHERE id = 1", as: { $0.text(.private_key) }).first {
                return try ParsedSigningCache.key(pem)
            }
            let key = try SigningKey.generate()
            try Self.insertSigningKey(key, at: try signingTime(), into: db)
            return key
        }
    }

    /// The key with the chain stored beside it (schema 5 has one in every file).
    func loadIdentity(_ key: SigningKey) throws -> SigningIdentity {
        let row = try db.rows("""
            SELECT private_key, leaf_certificate, intermediate_certificate, root_certificate FROM signing_key WHERE id = 1
            """) { ($0.text(.private_key), [$0.optionalText(.leaf_certificate), $0.optionalText(.intermediate_certificate),
                                            $0.optionalText(.root_certificate)]) }.first
        let pems = row?.1.compactMap { $0 } ?? []
        guard let keyPEM = row?.0, pems.count == 3 else { throw VerificationFailure(description: "the certificate chain is missing") }
        return try ParsedSigningCache.identity(key, keyPEM: keyPEM, chain: pems)
    }

    // MARK: - Schema 5

    /// Schema ≤ 4 → 5, in one write transaction: the offer columns, a certificate chain
    /// for the existing key (issued now, store time), and every transaction that verifies
    /// as the older schemas signed it (without or with its account, `kid` header) signed
    /// again with `x5c` and today's fields. One that does not verify is left as it is:
    /// unverified, as before.
    package func migrate(_ signingKey: SigningKey) throws {
        guard try db.scalar("PRAGMA user_version") ?? 0 < Self.schemaVersion else { return }
        try db.transaction {
            // Checked again under the write lock: another process may have done it meanwhile.
            let stated = try db.scalar("PRAGMA user_version") ?? 0
            guard stated < Self.schemaVersion else { return }
            // A version set back by hand is the schema the columns show: a file with seals keeps
            // them, and its head, as they are. Sealed again, an edit made under them (finished=0
            // for a second consumable, a refund undone) would be laundered.
            let shape = try Self.shapeVersion(of: db)
            let version = max(stated, shape)
            if let lowered = Self.loweredVersion(stated: stated, shape: shape) {
                warnings.append("\(path): \(lowered); opened as schema \(Self.schemaVersion) with every seal kept, so an edit made under them still shows (`storefront doctor`)")
            }
            // Schema 5's columns, then schema 6's seal per row and sealed head (before the re-signing, which reseals).
            if version < 5 {
                for column in ["offer_discount_type", "offer_period"]
                where try db.scalar("SELECT count(*) FROM pragma_table_info('transactions') WHERE name = ?", column) == 0 {
                    try db.execute("ALTER TABLE transactions ADD COLUMN \(column) TEXT")
                }
            }
            for table in ["transactions"] + Self.sealedRecordTables.map(\.name)
            where try db.scalar("SELECT count(*) FROM pragma_table_info(?) WHERE name = 'seal'", table) == 0 {
                try db.execute("ALTER TABLE \(table) ADD COLUMN seal TEXT")
            }
            try db.execute(Self.sealHeadTable)
            if version < 5 { try migrate4to5(signingKey) }
            // Every row that verifies sealed as it stands (edits made before schema 6 to what the JWS does
            // not cover cannot be told any more); one that does not stays unsealed, so unverified.
            // Schemas 7, 8, 9 and 10 add tables or seals only: rows keep their seals (resealing would hide an edit).
            if version < 6 {
                if key == nil { key = try loadIdentity(signingKey) }
                try sealRowsThatVerify()
            }
            // Schema 10: the subscriptions' renewal state and the balances sealed once, as they stand
            // (nothing to check them by before); in the write that sets the version, so a file with
            // their seal column has them sealed.
            if version < 10 { try sealRecordsAsTheyStand() }
            try db.execute("PRAGMA user_version = \(Self.schemaVersion)")
        }
    }

    private func migrate4to5(_ signingKey: SigningKey) throws {
        do {
            for (table, column) in [("transactions", "offer_discount_type"), ("transactions", "offer_period"),
                                    ("signing_key", "leaf_certificate"), ("signing_key", "intermediate_certificate"),
                                    ("signing_key", "root_certificate")] {
                let exists = try db.scalar("SELECT count(*) FROM pragma_table_info(?) WHERE name = ?", table, column) == 1
                if !exists { try db.execute("ALTER TABLE \(table) ADD COLUMN \(column) TEXT") }
            }
            let date = try signingTime()
            let chain = try CertificateChain.issue(for: signingKey, at: date)
            try db.run("UPDATE signing_key SET leaf_certificate = ?, intermediate_certificate = ?, root_certificate = ? WHERE id = 1",
                       chain.leaf.pem, chain.intermediate.pem, chain.root.pem)
            key = try SigningIdentity(key: signingKey, chain: chain)
            let rows = try db.rows("SELECT \(Self.columns) FROM transactions WHERE jws IS NOT NULL ORDER BY id") { row in
                (Self.unverifiedTransaction(row), row.text(.jws))
            }
            for (transaction, jws) in rows {
                guard let payload = try? signingKey.verify(jws).payload,
                      [PayloadRule.withoutAccount, .withAccount].contains(where: {
                          Self.payload(payload, signs: transaction, bundleID: nil, rule: $0)
                      }),
                      case .string(let bundle)? = payload["bundleId"] else { continue }
                try sign(transaction.id, bundleID: bundle)
            }
        }
    }

    /// The `SELECT` list of ``columns`` for a file of an older schema, read as it is
    /// (the doctor changes nothing): columns it does not have yet read as NULL.
    package static func columns(forSchema version: Int64, withCommitments: Bool = false, withRefunds: Bool = false) -> String {
        let added: [Column: Int64] = [.pending_reason: 2, .offer_id: 3, .offer_discount_type: 5, .offer_period: 5, .seal: 6]
        return (sealedColumns + [.seal]).map { column in
            version < added[column, default: 0] ? "NULL AS \(column.name)" : column.name
        }.joined(separator: ", ") + (withCommitments ? ", " + commitmentExpression : "") + (withRefunds ? ", " + refundExpression : "")
    }

    // MARK: - Signing

    /// Signs (or re-signs, after a change) a transaction as it now stands, as the
    /// App Store re-signs a transaction when it is upgraded or revoked; `signedDate`
    /// is the store's time.
    package func sign(_ id: Int64, bundleID: String? = nil) throws(DatabaseError) {
        guard let row = try db.rows("SELECT \(Self.columns) FROM transactions WHERE id = ?", id,
                                    as: Self.unverifiedTransaction).first else { return }
        do {
            let payload = row.signedPayload(bundleID: bundleID ?? self.bundleID, signedDate: try signingTime())
            let bytes = payload.serializedBytes(pretty: false)
            let jws = try key.sign(payloadBytes: bytes)
            try db.run("UPDATE transactions SET jws = ? WHERE id = ?", jws, id)
            try advanceRevision(of: id)  // a change: the history lists it after every earlier one
            // Signed here, for the bundle id reads check against: marked verified as it stands.
            try reseal(id, verified: (bundleID ?? self.bundleID) == self.bundleID)
            // Signed here, with this store's private key: its check would pass, so the read-back
            // need not repeat it (a P-256 check was half of a purchase's CPU). Cached as a check
            // returns it: the payload decoded from the very text the JWS carries. The read-back
            // still compares that payload with the row as stored.
            if let signed = try? JSON.parse(bytes) {
                verifiedSignatures[jws] = .success(signed)
            }
        } catch let error as DatabaseError {
            throw error
        } catch {
            throw DatabaseError(code: 1, message: "signing transaction \(id) failed: \(error)")
        }
    }

    /// The store's `environment` setting: what new transactions (and so their payloads) say.
    package func environment() throws(DatabaseError) -> Transaction.AppStoreEnvironment {
        try setting("environment", account: "").flatMap(Transaction.AppStoreEnvironment.init(appStoreName:)) ?? .xcode
    }

    // MARK: - The clock, while opening

    /// The store's time from the clock settings as they stand (anchors and rate), for
    /// what is signed while the file is opened, before the store's own clock is set.
    func storeTimeFromSettings() throws -> Date {
        let real = now()
        guard let anchorReal = try setting("clock.anchorReal", account: "").flatMap(Int64.init),
              let anchorStore = try setting("clock.anchorStore", account: "").flatMap(Int64.init) else { return real }
        let rate = try setting("timeRate", account: "").flatMap(TimeRate.init(rawValue:)) ?? .realTime
        return VirtualClock(anchorReal: Date(milliseconds: anchorReal), anchorStore: Date(milliseconds: anchorStore),
                            speed: rate.speed(shortestPeriod: nil)).storeTime(at: real)
    }
}
