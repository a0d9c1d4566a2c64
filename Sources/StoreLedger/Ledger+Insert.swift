import Foundation
import StoreCatalog
import StoreSigning

/// A new transaction goes into the store file in one statement, signed and sealed: its id is
/// known before the row is written (the write lock is held), so the JWS is made first. Writing
/// the row bare and then updating its signature and seal moved it to a new page and wrote
/// three more statements' worth of pages to the WAL on every purchase.
extension Ledger {
    /// Stores a new transaction and returns it with its id (and, for a first
    /// purchase, its `originalID`) filled in, as the file keeps it (dates to the millisecond).
    /// The transaction takes the store's `environment` setting as it is recorded; a purchased one
    /// is signed on the store's clock, sealed, and marked verified (LedgerVerifiedRows).
    package func insert(_ transaction: Transaction) throws(DatabaseError) -> Transaction {
        do {
            return try db.transaction { () throws -> Transaction in
                var draft = transaction
                draft.environment = try environment()
                draft.id = try nextTransactionID()
                if draft.originalID == 0 { draft.originalID = draft.id }
                var payload: JSON?
                var jws: String?
                if draft.status == .purchased {
                    payload = Self.asStored(draft).signedPayload(bundleID: bundleID, signedDate: try signingTime())
                    jws = try key.sign(payload!)
                }
                var seals = SealAccumulator()
                let seal = try insertRow(draft, jws: jws, seals: &seals)
                if draft.commitment != nil { try saveCommitment(of: draft) }
                try foldIntoHead(seals)
                var stored = try db.rows("SELECT \(Self.columns) FROM transactions WHERE id = ?", draft.id,
                                         as: Self.unverifiedTransaction).first ?? draft
                stored.jwsRepresentation = jws
                guard let payload, let signedDate = payload["signedDate"] else { return stored }
                // The row as it reads back must say what was signed (else a read checks it in full, and refuses it).
                if case .number(let milliseconds) = signedDate, let value = Int64(milliseconds),
                   stored.signedPayload(bundleID: bundleID, signedDate: Date(milliseconds: value)) == payload {
                    try saveMark(id: stored.id, seal: seal)
                } else {
                    try sign(stored.id)
                    return try self.transaction(id: stored.id) ?? stored
                }
                return stored
            }
        } catch let error as DatabaseError {
            throw error
        } catch {
            throw DatabaseError(code: 1, message: "storing transaction failed: \(error)")
        }
    }

    /// The id the next transaction gets (AUTOINCREMENT's: never one used before, even if deleted).
    func nextTransactionID() throws(DatabaseError) -> Int64 {
        try db.scalar("""
            SELECT CASE WHEN sequence > used THEN sequence ELSE used END + 1 FROM
              (SELECT coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'transactions'), 0) AS sequence,
                      coalesce((SELECT max(id) FROM transactions), 0) AS used) AS ids
            """) ?? Self.firstTransactionID + 1
    }

    /// The transaction as reading its row gives it back: dates to the millisecond, the price
    /// through its decimal text, the token and the offer period through theirs.
    static func asStored(_ transaction: Transaction) -> Transaction {
        var stored = transaction
        stored.purchaseDate = Date(milliseconds: transaction.purchaseDate.milliseconds)
        stored.originalPurchaseDate = Date(milliseconds: transaction.originalPurchaseDate.milliseconds)
        stored.expirationDate = transaction.expirationDate.map { Date(milliseconds: $0.milliseconds) }
        stored.revocationDate = transaction.revocationDate.map { Date(milliseconds: $0.milliseconds) }
        stored.price = DecimalText.parse(DecimalText.format(transaction.price)) ?? transaction.price
        return stored
    }

    /// Inserts a transaction with its id, signature and seal in one statement; its seal is
    /// folded into `seals`, for ``foldIntoHead(_:)`` once the batch is in. Returns the seal.
    @discardableResult
    package func insertRow(_ transaction: Transaction, jws: String?, seals: inout SealAccumulator) throws(DatabaseError) -> String {
        // In the order of ``columns`` (``sealedColumns``, then the seal), typed as the columns store them, so the seal is the row's.
        let values: [any SQLBindable] = [
            transaction.id, transaction.originalID, transaction.account, transaction.productID,
            transaction.productType.rawValue, transaction.purchaseDate.milliseconds,
            transaction.originalPurchaseDate.milliseconds, transaction.expirationDate?.milliseconds,
            transaction.revocationDate?.milliseconds, transaction.revocationReason?.rawValue, transaction.isUpgraded,
            transaction.ownershipType.rawValue, transaction.purchasedQuantity, transaction.appAccountToken?.uuidString,
            transaction.environment.rawValue, transaction.storefront, transaction.currency,
            DecimalText.format(transaction.price), transaction.reason == .renewal ? Self.renewalReason : "purchase",
            transaction.subscriptionGroupID, transaction.offerType?.rawValue, transaction.status.rawValue,
            transaction.isFinished, jws, transaction.pendingReason?.rawValue, transaction.offerID,
            transaction.offerPaymentMode?.rawValue, transaction.offerPeriod?.description,
        ]
        let seal = sealHasher.mac(Self.canonicalBytes(values))
        let sealText = Self.hex(seal)
        try db.query("INSERT INTO transactions (\(Self.insertColumns)) VALUES (\(Self.insertPlaceholders))", values + [sealText]) { _ in }
        if jws != nil { try advanceRevision(of: transaction.id) }
        seals.add(seal)
        return sealText
    }

    private static let insertPlaceholders = Array(repeating: "?", count: sealedColumns.count + 1).joined(separator: ", ")
}
