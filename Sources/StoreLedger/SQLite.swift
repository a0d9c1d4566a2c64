import CSQLite
import Dispatch
import Foundation
import Glibc
import StoreCatalog
import StoreSigning

/// A value bound to a statement parameter.
package enum SQLValue {
    case null
    case integer(Int64)
    case text(String)
    case real(Double)
}

/// Something that can be bound as a parameter: never SQL built from strings.
package protocol SQLBindable {
    var sqlValue: SQLValue { get }
}

extension Int: SQLBindable { package var sqlValue: SQLValue { .integer(Int64(self)) } }
extension Int64: SQLBindable { package var sqlValue: SQLValue { .integer(self) } }
extension Bool: SQLBindable { package var sqlValue: SQLValue { .integer(self ? 1 : 0) } }
extension String: SQLBindable { package var sqlValue: SQLValue { .text(self) } }
extension SQLValue: SQLBindable { package var sqlValue: SQLValue { self } }
extension Optional: SQLBindable where Wrapped: SQLBindable {
    package var sqlValue: SQLValue { self?.sqlValue ?? .null }
}

/// One SQLite connection, with prepared statements cached by their SQL text.
/// Not thread-safe: each owner (an actor) keeps its own.
package final class SQLiteDatabase: LedgerConnection {
    private var handle: OpaquePointer?
    private var statements: [String: Prepared] = [:]
    /// How far a commit waits for the disk (``setDurability(_:)``); a transaction that need not be
    /// durable waits less, never more.
    private(set) var durability = Durability.full
    /// Changes this connection made to rows of `transactions`, and rollbacks (SQLite's update and
    /// rollback hooks count them; ``execute(_:)`` adds one for any statement naming the table or
    /// rolling back to a savepoint, which the hooks do not see).
    private let transactionChanges = UnsafeMutablePointer<Int64>.allocate(capacity: 1)
    /// ``waitWhenBusy(milliseconds:)``'s limit, read by the busy handler.
    private let busyLimit = UnsafeMutablePointer<Int64>.allocate(capacity: 1)
    /// A zero-length C string, bound for an empty Swift string.
    nonisolated(unsafe) private static let emptyText: UnsafePointer<CChar> = UnsafePointer(strdup("")!)

    /// SQLite's process-wide settings, before its first connection: no memory statistics (nothing
    /// reads them, and they serialize every connection's allocations on one mutex).
    private static let configureOnce: Void = { _ = csqlite_memory_statistics_off() }()

    /// Opens (and with `create`, creates) the database at `path`; with `uri`,
    /// `path` is a `file:` URI whose parameters (`mode=ro`, `immutable=1`) apply. Without,
    /// `path` is a file's path and nothing else (``plainPath(_:)``).
    package init(path: String, create: Bool, readOnly: Bool = false, uri: Bool = false) throws(DatabaseError) {
        var flags = readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE
        if create { flags |= SQLITE_OPEN_CREATE }
        if uri { flags |= SQLITE_OPEN_URI }
        flags |= SQLITE_OPEN_NOMUTEX
        Self.configureOnce
        let status = sqlite3_open_v2(uri ? path : Self.plainPath(path), &handle, flags, nil)
        guard status == SQLITE_OK else {
            let error = Self.error(status, handle)
            sqlite3_close_v2(handle)
            handle = nil
            throw error
        }
        sqlite3_extended_result_codes(handle, 1)
        transactionChanges.initialize(to: 0)
        csqlite_count_changes_to_transactions(handle, transactionChanges)
    }

    /// `path` as SQLite can only read it as a file: `./` before a relative path. Alone, `:memory:`
    /// is an in-memory database, `file:x?mode=memory` one too (Debian's SQLite takes URIs
    /// everywhere), and an empty path a temporary one: every purchase in them reported, then lost.
    package static func plainPath(_ path: String) -> String {
        path.hasPrefix("/") ? path : "./" + path
    }

    deinit {
        for prepared in statements.values { sqlite3_finalize(prepared.statement) }
        if checkpointsBeforeClose {
            busyLimit.pointee = 0  // at once or not at all: closing never waits for another connection
            sqlite3_exec(handle, "PRAGMA wal_checkpoint(TRUNCATE)", nil, nil, nil)
        }
        sqlite3_close_v2(handle)
        transactionChanges.deallocate()
        busyLimit.deallocate()
    }

    /// Waits up to `milliseconds` for a lock another connection holds, as `PRAGMA busy_timeout`
    /// does, but looking again every 100 µs at first (a purchase's commit holds it for well under
    /// a millisecond, and SQLite's own handler slept a whole one before looking again).
    func waitWhenBusy(milliseconds: Int64) {
        busyLimit.pointee = milliseconds
        csqlite_busy_timeout(handle, busyLimit)
    }

    /// Changes with every change this connection makes to the `transactions` table: with
    /// `PRAGMA data_version` (other connections' commits), whether a read of it may be reused.
    package var transactionsGeneration: Int64 { transactionChanges.pointee }

    /// Rows this connection has inserted, updated or deleted since it opened: with `PRAGMA
    /// data_version` (which counts only other connections' commits), what the change feed checks.
    package var totalChanges: Int64 { sqlite3_total_changes64(handle) }

    private func error(_ status: Int32) -> DatabaseError {
        Self.error(status, handle)
    }

    /// SQLite's message, with the system's reason when a file operation failed:
    /// "disk I/O error" alone does not say that the disk is full.
    private static func error(_ status: Int32, _ handle: OpaquePointer?) -> DatabaseError {
        var message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
        let primary = status & 0xFF
        if let handle, [SQLITE_IOERR, SQLITE_FULL, SQLITE_CANTOPEN, SQLITE_READONLY].contains(primary) {
            let systemError = sqlite3_system_errno(handle)
            let reason = systemError != 0 ? systemError : likelyWriteFailure(status, handle)
            if reason != 0 { message += " (\(String(cString: strerror(reason))))" }
        }
        return DatabaseError(code: status, message: message)
    }

    /// The system's reason for a failed write when SQLite kept none (it reads `errno` after
    /// it has changed): `EFBIG` under a file-size limit (`ulimit -f`), `ENOSPC` on a full disk.
    private static func likelyWriteFailure(_ status: Int32, _ handle: OpaquePointer) -> Int32 {
        guard status & 0xFF == SQLITE_FULL || status & 0xFF == SQLITE_IOERR else { return 0 }
        var limit = rlimit()
        if getrlimit(Int32(RLIMIT_FSIZE.rawValue), &limit) == 0, limit.rlim_cur != rlim_t.max { return EFBIG }
        if let name = sqlite3_db_filename(handle, "main") {
            var info = statvfs()
            let folder = String(cString: name).pathFolder
            if statvfs(folder.isEmpty ? "." : folder, &info) == 0, UInt64(info.f_bavail) * UInt64(info.f_frsize) < 1 << 20 {
                return ENOSPC
            }
        }
        return status & 0xFF == SQLITE_FULL ? ENOSPC : 0
    }

    /// Runs one or more statements that take no parameters.
    package func execute(_ sql: String) throws(DatabaseError) {
        // `DELETE FROM transactions` without a WHERE is SQLite's truncate, which the update hook does not see.
        if sql.contains("transactions") || sql.contains("ROLLBACK") { transactionChanges.pointee += 1 }
        let status = sqlite3_exec(handle, sql, nil, nil, nil)
        guard status == SQLITE_OK else { throw error(status) }
    }

    /// Runs a query and hands each row to `body`.
    package func query(_ sql: String, _ parameters: [any SQLBindable], _ body: (Row) throws(DatabaseError) -> Void) throws(DatabaseError) {
        let prepared = try prepared(sql)
        let statement = prepared.statement
        defer {
            sqlite3_reset(statement)
            sqlite3_clear_bindings(statement)
        }
        for (offset, parameter) in parameters.enumerated() {
            let position = Int32(offset + 1)
            let status: Int32
            switch parameter.sqlValue {
            case .null: status = sqlite3_bind_null(statement, position)
            case .integer(let value): status = sqlite3_bind_int64(statement, position, value)
            case .real(let value): status = sqlite3_bind_double(statement, position, value)
            case .text(let value):
                // By byte length: text is bound whole, never cut at a NUL.
                var value = value
                status = value.withUTF8 { bytes in
                    bytes.withMemoryRebound(to: CChar.self) { chars in
                        // An empty buffer may have no address; SQLite needs one for text (not NULL).
                        sqlite3_bind_text(statement, position, chars.baseAddress ?? Self.emptyText, Int32(chars.count),
                                          csqlite_transient())
                    }
                }
            }
            guard status == SQLITE_OK else { throw error(status) }
        }
        var first = true
        while true {
            let status = sqlite3_step(statement)
            if status == SQLITE_DONE { return }
            guard status == SQLITE_ROW else { throw error(status) }
            if first {
                // A schema change makes SQLite prepare the statement again, maybe with other columns (`SELECT *`).
                prepared.layout.refreshIfReprepared(statement)
                first = false
            }
            try body(Row(statement: statement, layout: prepared.layout))
        }
    }

    /// Sets how far this connection's commits wait for the disk (`PRAGMA synchronous`).
    package func setDurability(_ durability: Durability) throws(DatabaseError) {
        try execute("PRAGMA synchronous = \(durability.synchronous)")
        self.durability = durability
    }

    /// Runs `body` inside `BEGIN IMMEDIATE … COMMIT`: the write lock is taken up
    /// front, so two processes never deadlock upgrading a read to a write.
    /// With `durable` false (a record that may be made again, never a purchase), the commit is not
    /// synced: a process killed loses nothing (the system has it), a power cut may lose it.
    package func transaction<T>(durable: Bool, _ body: () throws -> T) throws -> T {
        // Inside another transaction, a savepoint: the inner work joins the outer commit.
        let nested = sqlite3_get_autocommit(handle) == 0
        if !durable, !nested, durability == .full {
            try execute("PRAGMA synchronous = NORMAL")
            defer { try? execute("PRAGMA synchronous = FULL") }
            return try transaction(body)
        }
        if !nested { try guardFile?() }
        try execute(nested ? "SAVEPOINT nested" : "BEGIN IMMEDIATE")
        let changesBefore = totalChanges
        do {
            let result = try body()
            // Only a transaction that changed rows: one that changed nothing still commits nothing.
            if !nested, totalChanges != changesBefore { try beforeCommit?() }
            try execute(nested ? "RELEASE nested" : "COMMIT")
            return result
        } catch {
            try? execute(nested ? "ROLLBACK TO nested; RELEASE nested" : "ROLLBACK")
            throw error
        }
    }

    /// Runs `body` inside a deferred `BEGIN … COMMIT`: every read in it sees one state of the
    /// file, however other processes write meanwhile. Inside another transaction it just runs.
    package func read<T>(_ body: () throws -> T) throws -> T {
        guard sqlite3_get_autocommit(handle) != 0 else { return try body() }
        try guardFile?()
        try execute("BEGIN")
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    package var changes: Int { Int(sqlite3_changes(handle)) }

    package func columns(of table: String) throws(DatabaseError) -> [String] {
        try rows("SELECT name FROM pragma_table_info(?) ORDER BY cid", table) { $0.text(.name) }
    }

    package func values(_ sql: String, _ body: ([SQLValue]) throws(DatabaseError) -> Void) throws(DatabaseError) {
        let statement = try prepared(sql).statement
        defer { sqlite3_reset(statement) }
        while true {
            let status = sqlite3_step(statement)
            if status == SQLITE_DONE { return }
            guard status == SQLITE_ROW else { throw error(status) }
            try body((0..<sqlite3_column_count(statement)).map { column in
                switch sqlite3_column_type(statement, column) {
                case SQLITE_NULL: .null
                case SQLITE_INTEGER: .integer(sqlite3_column_int64(statement, column))
                case SQLITE_FLOAT: .real(sqlite3_column_double(statement, column))
                default:
                    .text(String(decoding: UnsafeRawBufferPointer(start: sqlite3_column_text(statement, column),
                                                                  count: Int(sqlite3_column_bytes(statement, column))), as: UTF8.self))
                }
            })
        }
    }

    /// `PRAGMA data_version`: changes when another connection commits to the file.
    package func storeVersion() throws(DatabaseError) -> Int64 {
        try scalar("PRAGMA data_version") ?? 0
    }

    /// Called before each outermost transaction and read: the store's check that its path still
    /// names the file this connection has open (LedgerFileWatch).
    package var guardFile: (() throws(DatabaseError) -> Void)?
    /// Leaves the log beside the file at close, not written back into it (a file overwritten in place).
    func leaveLogAtClose() { csqlite_no_checkpoint_on_close(handle) }
    /// Called inside each outermost write transaction, last: the store stamps the log with the file
    /// it was written for (LedgerLogOwner).
    package var beforeCommit: (() throws(DatabaseError) -> Void)?
    /// Whether closing first writes the log back into the file and empties it (a moved file's, which
    /// SQLite's own close leaves beside the path).
    var checkpointsBeforeClose = false
    /// No transaction open on this connection.
    package var isOutsideTransaction: Bool { sqlite3_get_autocommit(handle) != 0 }

    /// The main file's first bytes and size through SQLite's own handle, and whether its path
    /// names another file now; SQLite's result code of the read.
    func mainFile(header: inout [UInt8], size: inout Int64, moved: inout Int32) -> Int32 {
        let count = Int32(header.count)
        return header.withUnsafeMutableBufferPointer { csqlite_main_file(handle, $0.baseAddress, count, &size, &moved) }
    }

    /// Replaces every page of this database with `source`'s, as `sqlite3 .restore` does: SQLite's
    /// backup API, one step under this connection's write lock, so other connections see one commit.
    /// Waits for the lock up to `milliseconds`.
    package func restore(from source: SQLiteDatabase, waitingUpTo milliseconds: Int) throws(DatabaseError) {
        guard let backup = sqlite3_backup_init(handle, "main", source.handle, "main") else { throw error(sqlite3_errcode(handle)) }
        var status = SQLITE_OK
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(milliseconds) * 1_000_000
        repeat {
            status = sqlite3_backup_step(backup, -1)
            // Busy (another connection's write) or locked: the whole step again, after a moment.
            if status & 0xFF == SQLITE_BUSY || status & 0xFF == SQLITE_LOCKED { usleep(2_000) }
        } while (status & 0xFF == SQLITE_BUSY || status & 0xFF == SQLITE_LOCKED) && DispatchTime.now().uptimeNanoseconds < deadline
        let finished = sqlite3_backup_finish(backup)
        guard status == SQLITE_DONE else { throw error(status == SQLITE_OK ? finished : status) }
        guard finished == SQLITE_OK else { throw error(finished) }
    }

    private func prepared(_ sql: String) throws(DatabaseError) -> Prepared {
        if let cached = statements[sql] { return cached }
        var statement: OpaquePointer?
        let status = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard status == SQLITE_OK, let statement else { throw error(status) }
        let prepared = Prepared(statement: statement, layout: ColumnLayout(statement, sql: sql))
        statements[sql] = prepared
        return prepared
    }

    /// A prepared statement and where each named column is in its result.
    private struct Prepared {
        let statement: OpaquePointer
        let layout: ColumnLayout
    }
}

/// Where each ``Column`` is in a prepared statement's result, found once by name
/// (`sqlite3_column_name`) when the statement is prepared: a read by name then costs an
/// array index, not a lookup of the name.
package final class ColumnLayout {
    /// By ``Column/rawValue``: the column's position, ``absent`` or ``ambiguous``.
    private var positions: [Int32]
    /// The result's column count, for ``Row/onlyInt64()``.
    private(set) var count: Int32 = 0
    private var reprepared: Int32 = 0
    /// The statement's SQL, for the message when a read names a column it does not have.
    let sql: String
    static let absent: Int32 = -1
    static let ambiguous: Int32 = -2

    init(_ statement: OpaquePointer, sql: String) {
        self.sql = sql
        positions = Array(repeating: Self.absent, count: Column.allCases.count)
        resolve(statement)
    }

    /// The layout of a result whose columns are named `names`, in order (a backend that
    /// hands over a whole result: PostgreSQL's).
    init(names: [String?], sql: String) {
        self.sql = sql
        positions = Array(repeating: Self.absent, count: Column.allCases.count)
        resolve(names)
    }

    private func resolve(_ statement: OpaquePointer) {
        reprepared = sqlite3_stmt_status(statement, SQLITE_STMTSTATUS_REPREPARE, 0)
        resolve((0..<sqlite3_column_count(statement)).map { sqlite3_column_name(statement, $0).map { String(cString: $0) } })
    }

    private func resolve(_ names: [String?]) {
        positions = Array(repeating: Self.absent, count: Column.allCases.count)
        count = Int32(names.count)
        for (position, name) in names.enumerated() {
            // A column no case names (an expression without AS) cannot be read: nothing can ask for it.
            guard let name, let column = Column(name: name) else { continue }
            // Two columns of one name (a join's `t.id` and `s.id`): a read of either is refused, not guessed.
            positions[column.rawValue] = positions[column.rawValue] == Self.absent ? Int32(position) : Self.ambiguous
        }
    }

    /// Finds the columns again when SQLite has prepared the statement again for a schema change.
    func refreshIfReprepared(_ statement: OpaquePointer) {
        if sqlite3_stmt_status(statement, SQLITE_STMTSTATUS_REPREPARE, 0) != reprepared { resolve(statement) }
    }

    /// Whether the result has one column named `column`.
    func contains(_ column: Column) -> Bool { positions[column.rawValue] >= 0 }

    /// The position of `column` in the result. A name the result does not have is a bug in the
    /// code that reads it (a misspelt `SELECT` list, a read of a column not selected), found by
    /// the first test that runs it: it stops the program, as an index out of range does,
    /// rather than read another column's value or a silent NULL.
    @inline(__always)
    func position(of column: Column) -> Int32 {
        let position = positions[column.rawValue]
        if position < 0 { missing(column, position) }
        return position
    }

    private func missing(_ column: Column, _ position: Int32) -> Never {
        let what = position == Self.ambiguous ? "two columns named" : "no column named"
        preconditionFailure("\(what) \(column.name) in the result of: \(sql)")
    }
}
