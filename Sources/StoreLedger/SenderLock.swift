import Foundation
import Glibc
import Synchronization

/// The right to send a store's notifications, held by one `serve` at a time: a second `serve`
/// on the same store serves the API but sends nothing, and takes over once the lock is free.
/// It never fails open: a lock that cannot be taken (``Outcome/unavailable(_:)``) means no sending,
/// since two servers that each send would deliver every notification twice.
///
/// On a file: an exclusive `flock` on a file beside it (`STORE-sender.lock`, holding the
/// sender's pid). `flock` rather than a row in the store: the kernel drops it when its holder
/// ends however it ends (SIGKILL included), so there is no lease to expire and no clock to trust
/// (the store's moves); it needs no write to the store file (a full disk cannot steal it); and two
/// opens in one process conflict as two processes do (an `fcntl` lock would not), so two servers
/// in one test process behave as two `serve`s.
///
/// On PostgreSQL: a session advisory lock on a connection of the lock's own, for the same
/// reasons: the server drops it when the holder's session ends, however it ends, on any host.
package final class SenderLock: Sendable {
    /// The lock file, or the database's URI without its password: what a log line names.
    package let path: String
    /// The open lock file while this process holds the lock; -1 otherwise.
    private let descriptor = Mutex<Int32>(-1)
    /// A store in PostgreSQL: its URI; and the connection holding the advisory lock while this process holds it.
    private let database: String?
    private let session = Mutex<PostgreSQLConnection?>(nil)

    package init(store address: StoreAddress) {
        switch address {
        case .file(let storePath):
            // Through symlinks: two servers naming one file by two paths share its lock.
            path = URL(fileURLWithPath: storePath).resolvingSymlinksInPath().path + "-sender.lock"
            database = nil
        case .postgreSQL(let uri):
            path = "the sender's advisory lock on \(address.shown)"
            database = uri
        }
    }

    /// What taking the lock found.
    package enum Outcome: Equatable {
        /// This process holds it now.
        case taken
        /// Another holds it (its pid, when it wrote one).
        case held(by: Int32?)
        /// The lock cannot be taken at all (a folder or a dangling link where the lock file goes, a
        /// read-only folder, another user's file; the database unreachable): nobody can tell whether
        /// another server sends, so this one must not. Why, for the log.
        case unavailable(String)
    }

    /// Takes the lock unless another process (or another server in this one) holds it.
    package func take() -> Outcome {
        if let database { return takeAdvisoryLock(database) }
        return descriptor.withLock { held in
            if held >= 0 { return .taken }
            let file = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
            guard file >= 0 else { return .unavailable(String(cString: strerror(errno))) }
            guard flock(file, LOCK_EX | LOCK_NB) == 0 else {
                var bytes = [UInt8](repeating: 0, count: 16)
                let count = read(file, &bytes, bytes.count)
                close(file)
                let text = String(decoding: bytes.prefix(max(0, count)), as: UTF8.self)
                return .held(by: Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)))
            }
            let pid = Array("\(getpid())\n".utf8)
            _ = ftruncate(file, 0)
            _ = pwrite(file, pid, pid.count, 0)
            held = file
            return .taken
        }
    }

    /// Whether this process still holds the lock. A file's is held until released; a PostgreSQL
    /// session's only while its connection lives (asked with a round trip): the server dropped
    /// the lock with the session when the connection broke, and another `serve` may hold it now.
    package func isStillHeld() -> Bool {
        if database != nil { return session.withLock { $0?.isAlive() ?? false } }
        return descriptor.withLock { $0 >= 0 }
    }

    /// Lets the lock go (closing the file is what frees a `flock`).
    package func release() {
        session.withLock { $0 = nil }
        descriptor.withLock { held in
            guard held >= 0 else { return }
            _ = ftruncate(held, 0)
            close(held)
            held = -1
        }
    }

    deinit { release() }

    /// `pg_try_advisory_lock` on a session of the lock's own, kept while this process holds it.
    private func takeAdvisoryLock(_ uri: String) -> Outcome {
        session.withLock { held in
            if let connection = held, connection.isAlive() { return .taken }
            held = nil
            do {
                let connection = try PostgreSQLConnection(uri)
                let lock = String(PostgreSQLStoreConnection.LockClass.sender.rawValue)
                guard try connection.scalar("SELECT pg_try_advisory_lock($1, hashtext(current_schema()))::int", [lock]) == 1 else {
                    // Its holder may be on any host: no pid of this machine to name.
                    return .held(by: nil)
                }
                held = connection
                return .taken
            } catch {
                return .unavailable("\(error)")
            }
        }
    }
}
