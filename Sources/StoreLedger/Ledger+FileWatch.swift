import CSQLite
import Foundation
import StoreCatalog
import StoreSigning

/// What a process that keeps its store file open checks before it uses it again: that the file
/// at its path is still the one it opened. A file moved or renamed over (a backup restored with
/// `mv`), deleted, or overwritten in place (`cp backup.sqlite store.sqlite`: it shrinks, or its
/// change counter goes back) is used no more: each use refuses with the reason, so no purchase
/// is made in a file no one will read again, nor a restored file mixed with the old one's log.
extension Ledger {
    /// What the watch has seen of the open file: it only grows, and its change counter
    /// (header bytes 24–27, which SQLite raises each time page 1 is written) only goes up.
    package struct FileWatch {
        var armed = false
        var largestSize: Int64 = 0
        var highestCounter: UInt32 = 0
        /// Whether the file's header has said it is a store file (application_id), as it does
        /// once page 1 was checkpointed into it: a new file's is still in the log.
        var sawStoreHeader = false
        /// Why the file was found replaced: kept, so every later use refuses too.
        package var replaced: String?
    }

    /// Starts the watch on the file as it is now (the end of opening).
    func armFileWatch() {
        var header = [UInt8](repeating: 0, count: 100)
        var size: Int64 = 0
        var moved: Int32 = 0
        guard let sqliteFile else { return }
        if sqliteFile.mainFile(header: &header, size: &size, moved: &moved) == SQLITE_OK {
            fileWatch.largestSize = size
            fileWatch.highestCounter = header[24..<28].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            fileWatch.sawStoreHeader = header[68..<72].reduce(UInt32(0)) { $0 << 8 | UInt32($1) } == UInt32(bitPattern: Self.applicationID)
        }
        fileWatch.armed = true
        sqliteFile.guardFile = { [unowned self] () throws(DatabaseError) in try self.checkFile() }
    }

    /// Throws when the file at the store's path is no longer the file this ledger has open.
    package func checkFile() throws(DatabaseError) {
        guard fileWatch.armed, let sqliteFile else { return }
        if let reason = fileWatch.replaced { throw replacedError(reason) }
        var header = [UInt8](repeating: 0, count: 100)
        var size: Int64 = 0
        var moved: Int32 = 0
        let status = sqliteFile.mainFile(header: &header, size: &size, moved: &moved)
        var reason: String?
        if moved != 0 {
            reason = "its path names another file now, or none (moved, renamed over, or deleted)"
        } else if status == SQLITE_IOERR | (2 << 8) {  // SQLITE_IOERR_SHORT_READ: shorter than its header
            reason = "it was overwritten: it is \(size) bytes now"
        } else if status == SQLITE_OK {
            let counter = header[24..<28].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            let appID = header[68..<72].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            let isStore = appID == UInt32(bitPattern: Self.applicationID)
            if !header.starts(with: Array("SQLite format 3\0".utf8)) || (fileWatch.sawStoreHeader && !isStore) {
                reason = "it was overwritten with a file that is not a store file"
            } else if size < fileWatch.largestSize, counter <= fileWatch.highestCounter {
                // SQLite shrinks the file only with its change counter raised (a restore's checkpoint, a VACUUM).
                reason = "it was overwritten (copied over, say): it shrank from \(fileWatch.largestSize) to \(size) bytes, which SQLite never does to it without raising its change counter"
            } else if counter < fileWatch.highestCounter {
                reason = "it was overwritten with an older copy of itself (its change counter went back from \(fileWatch.highestCounter) to \(counter))"
            } else {
                fileWatch.largestSize = size
                fileWatch.highestCounter = counter
                fileWatch.sawStoreHeader = fileWatch.sawStoreHeader || isStore
            }
        }
        guard let reason else { return }
        fileWatch.replaced = reason
        // Moved away (or deleted), the file is still this connection's: its log goes back into it now
        // and is emptied (SQLite leaves the log of a moved file at close), so the -wal left beside the
        // file now at the path holds nothing of this one. Overwritten in place, the log stays, and no close writes it
        // back over the copy (SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE): the next open finds it left and
        // checks the file with it (quick_check).
        if moved != 0 { writeBackLogOfMovedFile() } else { sqliteFile.leaveLogAtClose() }
        throw replacedError(reason)
    }

    /// Checkpoints this connection's log into the file it has open and truncates it (outside a
    /// transaction; else when the connection closes).
    private func writeBackLogOfMovedFile() {
        guard let sqliteFile else { return }
        sqliteFile.checkpointsBeforeClose = true
        guard sqliteFile.isOutsideTransaction else { return }
        // Without waiting: a look of the change feed runs here, on a queue every store's feed shares.
        sqliteFile.waitWhenBusy(milliseconds: 0)
        defer { sqliteFile.waitWhenBusy(milliseconds: 30_000) }
        try? sqliteFile.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    }

    private func replacedError(_ reason: String) -> DatabaseError {
        DatabaseError(code: SQLITE_IOERR, message: "\(path) was replaced while this process had it open: \(reason). This process uses it no more, so nothing is written to a file no one reads again, nor a restored file mixed with the old one's -wal; start it again to use the file now at \(path). To restore a backup, `storefront store restore BACKUP` (docs/store-file.md: Backing up and restoring)")
    }
}
