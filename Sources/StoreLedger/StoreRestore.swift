import CSQLite
import Foundation
import Glibc
import StoreCatalog

/// A backup put back into a store file (`storefront store restore BACKUP`) through SQLite's backup
/// API, as `sqlite3 STORE ".restore BACKUP"` does: every page replaced in one commit under the
/// store's write lock, so running processes see the restored store as one more change, and no file
/// is ever paired with another's `-wal`. Moving a backup into place is what this replaces.
package enum StoreRestore {
    /// What was restored: the transactions the store holds now.
    package struct Report: Sendable, Equatable {
        package var transactions: Int
    }

    /// Restores the store file at `store` from the store file `backup`, which is checked first (a
    /// store file, sound: `integrity_check`, its seals and signatures) and only read. The store
    /// need not open (damaged, or beside another file's log): every page of it is replaced.
    package static func restore(from backup: String, into store: String) throws -> Report {
        guard case .file = StoreAddress(backup) else {
            throw StoreFileError(path: StoreAddress(backup).shown, reason: "is not a store file; a restore reads a backup file (`store copy` brings a store from PostgreSQL)")
        }
        guard case .file = StoreAddress(store) else {
            throw StoreFileError(path: StoreAddress(store).shown, reason: "is a store in PostgreSQL; `store restore` puts a backup into a store file (`store copy` fills an empty database)")
        }
        // The backup, as the doctor sees it (read only); its file mode is no reason to refuse it.
        let checkup = StoreDoctor.examine(path: backup)
        let problems = checkup.problems.filter { $0.check != "mode" }
        guard checkup.readable, problems.isEmpty else {
            throw StoreFileError(path: backup, reason: "is not a sound store file to restore (nothing was changed): \(problems.map(\.message).joined(separator: "; "))")
        }
        let location = try StoreFileLocation(store)
        guard let info = location.info else {
            throw StoreFileError(path: store, reason: "does not exist; `store restore` puts a backup into a store (to start from a copy of one, copy the file)")
        }
        let file = location.file
        // A file of another application is never overwritten; a damaged store (no header even) is.
        if let header = StoreFileHeader(path: file), header.applicationID != UInt32(bitPattern: Ledger.applicationID), header.applicationID != 0 {
            throw StoreFileError(path: store, reason: "is a SQLite database of another application, not a store file (nothing was changed)")
        }
        if let foreign = StoreFileCompanions.foreignCompanions(of: file, info: info) {
            throw StoreFileError(path: store, reason: foreign)
        }
        do {
            let source = try SQLiteDatabase(path: "file:" + StoreDoctor.uriEscaped(SQLiteDatabase.plainPath(backup)) + "?mode=ro",
                                            create: false, readOnly: true, uri: true)
            let destination = try SQLiteDatabase(path: file, create: false)
            // A log another file's (left by a killed process) is replaced with the rest.
            try destination.restore(from: source, waitingUpTo: 30_000)
        } catch {
            if error.isBusy { throw StoreFileError(path: store, reason: "is busy: \(error.message) (nothing was changed)", isBusy: true) }
            throw StoreFileError(path: store, reason: "cannot be restored from \(backup): \(error.message)")
        }
        let restored = try Ledger(path: store)
        return Report(transactions: Int(try restored.db.scalar("SELECT count(*) FROM transactions") ?? 0))
    }
}
