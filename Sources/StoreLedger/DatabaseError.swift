import CSQLite

/// An error from the store's database: SQLite's result code, or PostgreSQL's SQLSTATE, with
/// the database's own message (never a password).
public struct DatabaseError: Error, Sendable, CustomStringConvertible {
    /// SQLite's extended result code; 0 for an error from PostgreSQL.
    public var code: Int32
    /// PostgreSQL's five-character SQLSTATE, when the server sent one.
    public var sqlState: String?
    public var message: String
    public var description: String { message }

    /// An error from SQLite, with its result code.
    public init(code: Int32, message: String) {
        self.code = code
        self.message = message
    }

    /// An error from PostgreSQL, with its SQLSTATE when there is one.
    public init(sqlState: String?, message: String) {
        self.code = 0
        self.sqlState = sqlState
        self.message = message
    }

    /// The file is not a database (garbage, encrypted, truncated header).
    public var isNotADatabase: Bool { code & 0xFF == SQLITE_NOTADB || code & 0xFF == SQLITE_CORRUPT }
    /// Another connection holds the lock longer than the ledger waits (SQLite's busy timeout,
    /// PostgreSQL's `lock_timeout`).
    public var isBusy: Bool {
        code & 0xFF == SQLITE_BUSY || code & 0xFF == SQLITE_LOCKED || sqlState == "55P03"
    }
    /// PostgreSQL could not serialize the transaction with another (40001) or broke a deadlock
    /// (40P01): the whole transaction may be run again.
    public var isSerializationFailure: Bool { sqlState == "40001" || sqlState == "40P01" }
}

extension DatabaseError: LedgerError {}
