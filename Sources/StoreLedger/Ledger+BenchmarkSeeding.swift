import Dispatch
import Foundation
import StoreCatalog
import StoreSigning

extension Ledger {
    /// Starts a bulk load into a file no one else has open: a rollback journal appends new
    /// pages without copying them to a WAL first, and nothing is synced until ``endBulkLoad()``.
    package func beginBulkLoad() throws(DatabaseError) {
        try db.execute("PRAGMA journal_mode = DELETE; PRAGMA synchronous = OFF")
    }

    /// Back to WAL and full syncs after ``beginBulkLoad()``.
    package func endBulkLoad() {
        try? db.execute("PRAGMA journal_mode = WAL")
        try? sqliteFile?.setDurability(durability)
    }

    /// One past the `transactions` table's AUTOINCREMENT sequence: the id the next row
    /// inserted gets in a file whose rows were all made by the sequence.
    package func nextSequencedTransactionID() throws(DatabaseError) -> Int64 {
        (try db.scalar("SELECT seq FROM sqlite_sequence WHERE name = 'transactions'") ?? 0) + 1
    }

    /// Signs each transaction's payload as ``sign(_:bundleID:)`` would, on every core.
    package func signInParallel(_ transactions: [Transaction], signedDate: Date) throws -> [String] {
        let key = self.key!, bundleID = self.bundleID
        // The key is only read (see SigningKey).
        return try parallelMap(count: transactions.count, chunk: 256) { index in
            Result { () throws(VerificationFailure) in
                try key.sign(transactions[index].signedPayload(bundleID: bundleID, signedDate: signedDate))
            }
        }.map { try $0.get() }
    }

    /// Folds the seals of rows inserted by ``insertRow(_:jws:seals:)`` into the sealed head.
    package func foldIntoHead(_ seals: SealAccumulator) throws(DatabaseError) {
        var digest = try headDigest()
        seals.fold(into: &digest)
        try saveHead(digest)
    }
}

/// The XOR of many rows' seals, kept in memory while a batch is inserted.
package struct SealAccumulator {
    private var digest = [UInt8](repeating: 0, count: 32)

    package mutating func add(_ seal: [UInt8]) {
        for index in digest.indices where index < seal.count { digest[index] ^= seal[index] }
    }

    func fold(into other: inout [UInt8]) {
        for index in other.indices where index < digest.count { other[index] ^= digest[index] }
    }

    package init() {}
}
