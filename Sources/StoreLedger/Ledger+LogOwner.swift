import CSQLite
import Foundation
import Glibc
import StoreCatalog
import StoreSigning

/// Which file a store's `-wal` was written for. SQLite's log names no file: its header carries
/// random salts and the page size, nothing of the database it belongs to, so a log left by a
/// killed process is replayed onto whatever file is at the path next (a backup moved into place,
/// another store). Every write transaction that changes rows therefore records, in the log it writes, the inode
/// of the file it was made for (``logOwnerTable``); a log whose newest record names another
/// inode belongs to another file and is refused, never replayed.
extension Ledger {
    /// The one-row table each write stamps with the store file's inode (SQLite files only).
    static let logOwnerTable = """
        CREATE TABLE IF NOT EXISTS store_file (id INTEGER PRIMARY KEY CHECK (id = 1), inode INTEGER NOT NULL);
        """

    /// Has every outermost write of this connection stamp the log with the file's inode.
    func stampLogWithOwner(inode: ino_t) {
        guard let sqliteFile else { return }
        let value = Int64(bitPattern: UInt64(inode))
        var tableMade = false
        sqliteFile.beforeCommit = { [unowned sqliteFile] () throws(DatabaseError) in
            // Before the table exists (a store being created or migrated in this transaction), nothing.
            if !tableMade { tableMade = try sqliteFile.scalar("SELECT count(*) FROM sqlite_master WHERE name = 'store_file'") == 1 }
            guard tableMade else { return }
            try sqliteFile.query("INSERT OR REPLACE INTO store_file (id, inode) VALUES (1, ?)", [value]) { _ in }
        }
    }
}

extension StoreFileCompanions {
    /// Why the `-wal` beside the file at `path` (status `info`) is another file's, or nil: no running
    /// process holds it (those are ``foreignCompanions(of:info:)``'s), it has frames, and the newest
    /// write in it was made for a file with another inode (a backup since moved into place, another
    /// store's log put beside this one), or it cannot be read with this file at all. Read through a
    /// read-only connection, which replays the log in memory only: nothing is written to the file.
    /// `madeNow`: the file was made just now, so a log that names no file is not its own either.
    package static func foreignLog(of path: String, info: stat, madeNow: Bool = false) -> String? {
        guard hasLeftoverLog(path) else { return nil }
        let recorded: Int64?
        do {
            let db = try SQLiteDatabase(path: "file:" + StoreDoctor.uriEscaped(SQLiteDatabase.plainPath(path)) + "?mode=ro",
                                        create: false, readOnly: true, uri: true)
            try db.execute("PRAGMA busy_timeout = 5000")
            guard try db.scalar("SELECT count(*) FROM sqlite_master WHERE name = 'store_file'") == 1 else { return madeNow ? orphan : nil }
            recorded = try db.scalar("SELECT inode FROM store_file WHERE id = 1")
        } catch let error where error.isBusy {
            return nil
        } catch {
            return "\(logRefusal) (with this file the log cannot even be read: \(error.message)). \(logWayOut)"
        }
        guard recorded != Int64(bitPattern: UInt64(info.st_ino)) else { return nil }
        guard let recorded else { return madeNow ? orphan : nil }
        return "\(logRefusal) (its newest change was made for the file with inode \(recorded); this one's is \(info.st_ino)). \(logWayOut)"
    }

    /// Whether a `-wal` with frames is beside the file at `path` and no running process holds it:
    /// a killed process's, which the next open replays.
    package static func hasLeftoverLog(_ path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path + "-wal") else { return false }
        let header = [UInt8]((try? handle.read(upToCount: 32)) ?? Data())
        let size = (try? handle.seekToEnd()) ?? 0
        try? handle.close()
        // wal.c: the magic 0x377f0682 or 0x377f0683, big-endian, then the version and the page size.
        guard header.count == 32, header[0..<3] == [0x37, 0x7f, 0x06], header[3] & 0xFE == 0x82 else { return false }
        let pageSize = header[8..<12].reduce(0) { $0 << 8 | Int($1) }
        return size >= UInt64(32 + 24 + pageSize) && lockHolders(of: path + "-shm").isEmpty
    }

    /// A killed process's log beside a store file made just now: no file was at the path for it.
    private static let orphan = "\(logRefusal) (this file was made just now, where no store file was: its own was deleted or moved). \(logWayOut)"

    private static let logRefusal = "its -wal holds another file's changes, left by a process that stopped without writing them back (killed): this file was put in place after it (a backup moved over it), or another store's -wal and -shm beside it. Replayed, that log would lay the other file's pages over this one's, so it is not opened"

    private static let logWayOut = "Nothing was changed. To use this file as it is, move its -wal and -shm aside (they hold only the other file's changes); to go back to a backup, `storefront store restore BACKUP`"
}
