import Foundation
import Glibc
import Synchronization

/// Whether anything was committed to a store since a moment before, asked from any thread on a
/// connection of its own, so it never waits for the engine's: what an answer cache keys on.
///
/// Its version changes only once a commit is visible to readers (SQLite's `data_version`, which
/// moves when another connection's commit is, and this one never writes; PostgreSQL's
/// `store_version`, which every write bumps in its own transaction). Read before an answer is
/// read, it can only be older than that answer: an answer kept under it is never newer than
/// the store, and the next commit moves it. A file replaced under its path moves it too (its
/// device and inode are part of it), though this connection still has the old file open.
package final class StoreVersionProbe: Sendable {
    /// The connection, behind a lock: one question at a time. Nil once it failed.
    private let connection: Mutex<(any LedgerConnection)?>
    private let file: String?

    /// Opens a connection of its own to the store at `address`; nil when it cannot.
    package init?(_ address: StoreAddress) {
        let opened: any LedgerConnection
        do {
            switch address {
            case .file(let path):
                file = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
                opened = try SQLiteDatabase(path: path, create: false, readOnly: true)
            case .postgreSQL(let uri):
                file = nil
                opened = try PostgreSQLStoreConnection(uri)
            }
        } catch {
            return nil
        }
        connection = Mutex(opened)
    }

    /// The store's version now; nil when it cannot be asked (then nothing may be answered from a cache).
    package func version() -> [Int64]? {
        var identity: [Int64] = []
        if let file {
            var info = stat()
            guard stat(file, &info) == 0 else { return nil }
            identity = [Int64(info.st_dev), Int64(bitPattern: UInt64(info.st_ino))]
        }
        return connection.withLock { connection -> [Int64]? in
            guard let asked = connection else { return nil }
            do {
                return identity + [try asked.storeVersion()]
            } catch {
                // A PostgreSQL connection reconnects by itself on its next statement; a file's
                // failing read is asked again next time.
                return nil
            }
        }
    }
}
