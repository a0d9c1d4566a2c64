import CSQLite
import Dispatch
import Foundation
import StoreCatalog
import StoreSigning

/// Transactions: rows mapped by column name, verified against their signatures when read.
extension Ledger {
    // MARK: - Transactions

    /// The columns a row's seal covers, in the order it hashes them (which is the on-disk
    /// format of every seal: never reorder), and what an insert writes in that order.
    package static let sealedColumns: [Column] = [
        .id, .original_id, .account, .product_id, .product_type, .purchase_date, .original_purchase_date,
        .expiration_date, .revocation_date, .revocation_reason, .is_upgraded, .ownership_type, .quantity,
        .app_account_token, .environment, .storefront, .currency, .price, .reason, .subscription_group_id,
        .offer_type, .status, .finished, .jws, .pending_reason, .offer_id, .offer_discount_type, .offer_period,
    ]

    /// The `SELECT` list of a transaction: ``sealedColumns``, the seal, and its commitment (LedgerCommitments).
    package static let columns = (sealedColumns + [.seal]).selectList + ", " + commitmentExpression + ", " + refundExpression

    /// The columns an insert writes: ``sealedColumns`` and the seal.
    static let insertColumns = (sealedColumns + [.seal]).selectList

    /// A transaction row, verified: its JWS must carry a valid signature of this
    /// store's key over exactly the payload the row describes.
    /// A row read with ``verifiedColumns`` that is sealed and marked verified is not checked
    /// again (LedgerVerifiedRows); any other is, in full.
    package func transaction(_ row: Row) -> Transaction {
        var transaction = Self.unverifiedTransaction(row)
        transaction.jwsRepresentation = row.optionalText(.jws)
        let sealed = isSealed(row)
        if sealed, hasMark(row) { return transaction }  // .verified: checked when made, unchanged since
        transaction.verification = verify(transaction)
        // The signature's verdict first; then what it does not cover (status, finished), by the row's seal.
        if transaction.verification.isVerified, !sealed { transaction.verification = .unverified(reason: Self.brokenSealReason) }
        return transaction
    }

    /// The rows of a query of `columns`, each verified. Signatures not seen before are
    /// checked first, on every core at once: one P-256 check costs about 0.1 ms, so a
    /// few hundred of them would otherwise dominate a restore or the paywall's first load.
    ///
    /// With `reusable` (a query of the `transactions` table alone), the read is kept while that
    /// table is as it was (no commit by another process, no change by this one): a restore
    /// followed by `currentEntitlements`, or a paywall looking again, verifies the same rows once.
    ///
    /// `ids`: the same query's ids alone, in its order, answered from an index without the table:
    /// when every row it names was verified by another read meanwhile (``ReadCache``), those are
    /// the answer, and no row of the table is read (each a page of its own, often out of SQLite's cache).
    func verifiedTransactions(_ sql: String, _ parameters: [any SQLBindable], reusable: Bool = false,
                              ids: String? = nil) throws(DatabaseError) -> [Transaction] {
        let state = ReadCache.State(dataVersion: try dataVersion(), generation: db.transactionsGeneration)
        guard reusable else { return try readVerifiedTransactions(sql, parameters, state) }
        let key = ReadCache.key(sql, parameters)
        if let kept = readCache.lookup(key, state) { return kept }
        if let ids, let kept = try keptRows(ids, parameters, state) {
            readCache.keep(kept, for: key, state)
            return kept
        }
        let read = try readVerifiedTransactions(sql, parameters, state)
        readCache.keep(read, for: key, state)
        return read
    }

    /// The rows a query of ids names, when each was verified by another read while the table is unchanged; else nil.
    private func keptRows(_ sql: String, _ parameters: [any SQLBindable], _ state: ReadCache.State) throws(DatabaseError)
        -> [Transaction]? {
        var kept: [Transaction] = []
        var missing = false
        try db.query(sql, parameters) { row in
            guard !missing else { return }
            if let transaction = readCache.row(row.int64(.id), state) { kept.append(transaction) } else { missing = true }
        }
        return missing ? nil : kept
    }

    /// `state`: the table's state for ``ReadCache`` (one `PRAGMA data_version` a read, taken by the caller).
    private func readVerifiedTransactions(_ sql: String, _ parameters: [any SQLBindable], _ state: ReadCache.State)
        throws(DatabaseError) -> [Transaction] {
        var transactions: [Transaction] = []
        var checks: [Check] = []
        // A row another read verified while the table is unchanged is taken as it was: not read
        // past its id (its JWS is a few overflow pages), nor hashed again.
        var read: [Int] = []
        try db.query(sql, parameters) { row in
            if let kept = readCache.row(row.int64(.id), state) {
                transactions.append(kept)
                checks.append(.kept)
                return
            }
            let (transaction, check) = pending(row)
            read.append(transactions.count)
            transactions.append(transaction)
            checks.append(check)
        }
        let settled = settle(&transactions, checks, caching: true)
        readCache.keep(rows: read.map { settled[$0] }, state)
        return settled
    }

    /// What a row read with ``verifiedColumns`` still needs: its signature checked (or not, when
    /// marked), and whether its seal failed.
    package enum Check {
        case marked, sealed, unsealed
        /// Verified by an earlier read (``ReadCache``): settled already.
        case kept

        var isSettled: Bool { self == .marked || self == .kept }
    }

    /// A row as a transaction not yet verified, and what its verification needs.
    package func pending(_ row: Row) -> (Transaction, Check) {
        var transaction = Self.unverifiedTransaction(row)
        transaction.jwsRepresentation = row.optionalText(.jws)
        return (transaction, !isSealed(row) ? .unsealed : hasMark(row) ? .marked : .sealed)
    }

    /// Verifies each transaction as its check says: the unmarked ones' signatures on every core.
    /// `caching` keeps the verdicts for this ledger's life (a paywall reading the same rows again);
    /// a listing of the whole history does not, so its memory does not grow with it.
    package func settle(_ transactions: inout [Transaction], _ checks: [Check], caching: Bool) -> [Transaction] {
        let signatures = transactions.indices.compactMap { checks[$0].isSettled ? nil : transactions[$0].jwsRepresentation }
        let added = checkSignatures(signatures)
        for index in transactions.indices where !checks[index].isSettled {
            // What the JWS does not cover (status, finished) the row's seal does.
            transactions[index].verification = verify(transactions[index])
            if checks[index] == .unsealed, transactions[index].verification.isVerified {
                transactions[index].verification = .unverified(reason: Self.brokenSealReason)
            }
        }
        if !caching {
            for jws in added { verifiedSignatures[jws] = nil }
        }
        return transactions
    }

    /// Checks each signature not in the cache, in parallel, and caches the outcome. Returns the
    /// signatures it added to the cache.
    @discardableResult
    func checkSignatures(_ signatures: [String]) -> [String] {
        let unchecked = Array(Set(signatures.filter { verifiedSignatures[$0] == nil }))
        // One is checked where it is read (and cached there).
        guard unchecked.count > 1 else { return unchecked }
        let key = self.key!
        // The key is only read (safe to share, see SigningKey).
        let results = parallelMap(count: unchecked.count) { index in
            Result { () throws(VerificationFailure) in try key.verifySignature(unchecked[index]).payload }
        }
        for (jws, result) in zip(unchecked, results) {
            verifiedSignatures[jws] = result
        }
        return unchecked
    }

    package func verify(_ transaction: Transaction) -> Transaction.Verification {
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

    /// How the `reason` column spells a renewal (StoreKit 2's `Transaction.Reason.renewal`);
    /// every store file since schema 1 says `renew`, and the queries compare with `'purchase'`.
    static let renewalReason = "renew"

    static let editedDataReason = "the stored transaction does not match its signed payload (edited data)"

    /// Whether a verified JWS payload says exactly what the stored row says.
    /// `bundleID` nil takes the payload's own (the doctor reads a file without its catalog);
    /// `rule` checks as an older schema signed.
    package static func payload(_ payload: JSON, signs transaction: Transaction, bundleID: String?,
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
        let expected = transaction.signedPayload(bundleID: bundle, signedDate: Date(milliseconds: milliseconds), rule: rule)
        if payload == expected { return true }
        // Revoked before builds signed `revocationType` and `revocationPercentage`: both are decided from
        // columns the payload covers already, so a payload without either still says all the row says.
        guard payload["revocationType"] == nil, payload["revocationPercentage"] == nil,
              case .object(let members) = expected else { return false }
        return payload == .object(members.filter { $0.key != "revocationType" && $0.key != "revocationPercentage" })
    }

    static func unverifiedTransaction(_ row: Row) -> Transaction {
        var transaction = Transaction(
            id: row.int64(.id), originalID: row.int64(.original_id), productID: row.text(.product_id),
            productType: ProductType(rawValue: row.text(.product_type)) ?? .nonConsumable,
            purchaseDate: Date(milliseconds: row.int64(.purchase_date)),
            originalPurchaseDate: Date(milliseconds: row.int64(.original_purchase_date)),
            expirationDate: row.optionalInt64(.expiration_date).map(Date.init(milliseconds:)),
            revocationDate: row.optionalInt64(.revocation_date).map(Date.init(milliseconds:)),
            revocationReason: row.optionalText(.revocation_reason).flatMap(Transaction.RevocationReason.init(rawValue:)),
            isUpgraded: row.bool(.is_upgraded),
            ownershipType: Transaction.OwnershipType(rawValue: row.text(.ownership_type)) ?? .purchased,
            purchasedQuantity: row.int(.quantity),
            appAccountToken: row.optionalText(.app_account_token).flatMap(UUID.init(uuidString:)),
            environment: Transaction.AppStoreEnvironment(rawValue: row.text(.environment)) ?? .xcode,
            storefront: row.text(.storefront), currency: row.text(.currency),
            price: DecimalText.parse(row.text(.price)) ?? 0,
            reason: row.text(.reason) == Self.renewalReason ? .renewal : .purchase,
            subscriptionGroupID: row.optionalText(.subscription_group_id),
            offerType: row.optionalText(.offer_type).flatMap(Transaction.OfferType.init(rawValue:)),
            account: row.text(.account),
            status: Transaction.Status(rawValue: row.text(.status)) ?? .pending,
            isFinished: row.bool(.finished),
            pendingReason: row.optionalText(.pending_reason).flatMap(Transaction.PendingReason.init(rawValue:)),
            offerID: row.optionalText(.offer_id),
            offerPaymentMode: row.optionalText(.offer_discount_type).flatMap(PaymentMode.init(rawValue:)),
            offerPeriod: row.optionalText(.offer_period).flatMap(ISODuration.init))
        transaction.commitment = commitment(row)
        transaction.refundPercentage = refundPercentage(row)
        return transaction
    }

    /// The account's transactions, newest first; optionally of one product only, or only the newest `limit`.
    package func transactions(account: String, productID: String? = nil, limit: Int? = nil) throws(DatabaseError) -> [Transaction] {
        if let productID {
            return try verifiedTransactions("SELECT \(Self.verifiedColumns) FROM transactions WHERE account = ? AND product_id = ? ORDER BY id DESC",
                                            [account, productID], reusable: true)
        }
        return try verifiedTransactions("SELECT \(Self.verifiedColumns) FROM transactions WHERE account = ? ORDER BY id DESC LIMIT ?",
                                        [account, limit ?? Int.max], reusable: true)
    }

    /// `Transaction.all`: the account's purchased transactions, newest first — never a pending
    /// or declined request — and finished consumables only when refunded or revoked, or when
    /// `includeFinishedConsumables` (Apple's `SKIncludeConsumableInAppPurchaseHistory`); the newest `limit` only when given.
    package func appTransactions(account: String, includeFinishedConsumables: Bool, limit: Int?) throws(DatabaseError) -> [Transaction] {
        let (sql, parameters) = Self.appHistoryQuery(account: account, includeFinishedConsumables: includeFinishedConsumables,
                                                     before: nil, since: nil, limit: limit)
        return try verifiedTransactions(sql, parameters, reusable: true)
    }

    /// Whether the account ever bought a subscription of the group (a row is enough: no signature to
    /// check). One its family shares with it is not its own purchase.
    package func hasPurchase(account: String, groupID: String) throws(DatabaseError) -> Bool {
        try db.scalar("""
            SELECT EXISTS (SELECT 1 FROM transactions
                           WHERE account = ? AND subscription_group_id = ? AND status = 'purchased'
                             AND ownership_type = 'purchased')
            """, account, groupID) == 1
    }

    /// Transactions the App Store still holds for the app: purchased, not finished.
    package func unfinishedTransactions(account: String) throws(DatabaseError) -> [Transaction] {
        // By its own index, named: SQLite would otherwise take transactions_app_all (whose WHERE
        // `finished = 0` implies too) and read every non-consumable's row to find none unfinished.
        // (Every index is made when a ledger opens the file.)
        try verifiedTransactions("""
            SELECT \(Self.verifiedColumns) FROM transactions INDEXED BY transactions_unfinished
            WHERE account = ? AND status = 'purchased' AND finished = 0 ORDER BY id
            """, [account], reusable: true)
    }

    /// The newest transaction of each product that is not a consumable, for
    /// entitlements and restore.
    package func latestRestorableTransactions(account: String) throws(DatabaseError) -> [Transaction] {
        let newest = """
            SELECT max(id) AS id FROM transactions
            WHERE account = ? AND status = 'purchased' AND product_type != 'consumable'
              AND revocation_date IS NULL AND is_upgraded = 0
            GROUP BY product_id
            """
        // The ids come from the index transactions_restorable alone: after the paywall's owned read, no row is read again.
        return try verifiedTransactions("SELECT \(Self.verifiedColumns) FROM transactions WHERE id IN (\(newest)) ORDER BY id",
                                        [account], reusable: true, ids: "SELECT id FROM (\(newest)) AS newest ORDER BY id")
    }

    /// The transactions that granted the app's owned products (any account's ids the
    /// cache names; the caller checks), read and verified in one go.
    package func ownedProductTransactions(account: String) throws(DatabaseError) -> [Transaction] {
        try verifiedTransactions("""
            SELECT \(Self.verifiedColumns) FROM transactions
            WHERE id IN (SELECT transaction_id FROM app_owned WHERE account = ?)
            """, [account])
    }

    package func transaction(id: Int64) throws(DatabaseError) -> Transaction? {
        try db.rows("SELECT \(Self.verifiedColumns) FROM transactions WHERE id = ?", id, as: transaction).first
    }

    /// Rewrites a transaction's App Store record (approval, refund) and signs it anew.
    package func update(_ transaction: Transaction) throws(DatabaseError) -> Transaction {
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
        try saveCommitment(of: transaction)
        try saveRefund(of: transaction)
        if transaction.status == .purchased { try sign(transaction.id) }
        try reseal(transaction.id)
        return try self.transaction(id: transaction.id) ?? transaction
    }

    /// Removes a transaction from the history (the Transaction Manager's Delete).
    package func delete(transactionID id: Int64) throws(DatabaseError) {
        try unseal(id)
        try db.run("DELETE FROM transactions WHERE id = ?", id)
        try db.run("DELETE FROM transaction_commitments WHERE transaction_id = ?", id)
        try db.run("DELETE FROM transaction_refunds WHERE transaction_id = ?", id)
        try db.run("DELETE FROM app_owned WHERE transaction_id = ?", id)
    }

    /// The account's transactions waiting for approval or an action, oldest first.
    package func pendingTransactions(account: String) throws(DatabaseError) -> [Transaction] {
        try db.rows("SELECT \(Self.verifiedColumns) FROM transactions WHERE account = ? AND status = 'pending' ORDER BY id",
                    account, as: transaction)
    }

    package func markUpgraded(_ id: Int64) throws(DatabaseError) {
        try db.run("UPDATE transactions SET is_upgraded = 1 WHERE id = ?", id)
        try sign(id)
    }

    /// Hands a transaction back to the app unfinished: a refund reaches the app as an update.
    package func markUnfinished(_ id: Int64) throws(DatabaseError) {
        let wasVerified = try isMarkedAsStored(id)
        try db.run("UPDATE transactions SET finished = 0 WHERE id = ?", id)
        try reseal(id, verified: wasVerified)  // the JWS does not cover finished
    }

    /// Marks a transaction finished; false when it already was (so delivery happens once).
    package func markFinished(_ id: Int64) throws(DatabaseError) -> Bool {
        let wasVerified = try isMarkedAsStored(id)
        try db.run("UPDATE transactions SET finished = 1 WHERE id = ? AND finished = 0", id)
        guard db.changes > 0 else { return false }
        try reseal(id, verified: wasVerified)  // the JWS does not cover finished
        return true
    }
}
