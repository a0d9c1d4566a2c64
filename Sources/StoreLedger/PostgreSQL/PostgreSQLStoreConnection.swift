import CLibPQ
import Glibc

/// The ledger's connection to a store in PostgreSQL: the ledger's SQL (written once, with `?`
/// for each parameter) on ``PostgreSQLConnection``, with the store's write lock and version.
///
/// Isolation: a write is `READ COMMITTED` under one transaction-scoped advisory lock for the
/// store (``LockClass/write``), taken first: writes of every host run one at a time, each seeing
/// every commit before it, as SQLite's `BEGIN IMMEDIATE` makes them on a file. So "bought once",
/// "a nonce used once" and "a renewal made once" hold by the same reads-then-writes the file
/// uses, with no serialization failure to retry; the rare one PostgreSQL may still raise
/// (a deadlock with a reader's lock) runs the whole write again. A read is `REPEATABLE READ,
/// READ ONLY`: every statement in it sees one snapshot, as a SQLite read transaction does.
/// Every write that changed a row ends by counting the store's version up and `NOTIFY`ing it on
/// the store's channel, in the same transaction: the change feed's signal, delivered at the
/// commit and only then.
package final class PostgreSQLStoreConnection: LedgerConnection {
    package let connection: PostgreSQLConnection
    /// The channel every write notifies and the change feed listens on: one per store (a
    /// notification reaches every listener of a database, whatever its schema).
    package let channel: String
    /// The advisory locks of a store: each is this class (`SFR` and a number) with the hash of
    /// the store's schema, so stores in two schemas of one database never wait for each other.
    package enum LockClass: Int32 {
        /// Taken first by every write: one writer at a time per store.
        case write = 0x5346_5201
        /// Held while the store's tables are checked or made.
        case schema = 0x5346_5202
        /// Held by the `serve` that sends the store's notifications.
        case sender = 0x5346_5203
    }
    /// The ledger's SQL with `$1`, `$2`, … for its `?`s, by the SQL text.
    private var translated: [String: String] = [:]
    private var lastChanges = 0
    package private(set) var totalChanges: Int64 = 0
    package private(set) var transactionsGeneration: Int64 = 0
    /// Writes open on this connection (a write inside another joins it).
    private var writeDepth = 0
    /// Whether a read is open.
    private var reading = false

    package init(_ connectionString: String) throws(DatabaseError) {
        do {
            connection = try PostgreSQLConnection(connectionString)
            channel = try Self.channel(of: connection)
        } catch {
            throw DatabaseError(error)
        }
    }

    /// The store's channel on `connection`: `storefront_store.` and the schema its tables are in.
    static func channel(of connection: PostgreSQLConnection) throws(PostgreSQLError) -> String {
        "storefront_store." + (try connection.query("SELECT current_schema()::text AS name").first?.text("name") ?? "public")
    }

    package func execute(_ sql: String) throws(DatabaseError) {
        try reconnecting(opening: sql.hasPrefix("BEGIN")) { () throws(PostgreSQLError) in try connection.execute(sql) }
    }

    /// Runs `statement`; when it is the first of a write or read, or a read on its own, and the
    /// server went away (restarted, or the network dropped it), connects again and runs it once
    /// more: nothing of a transaction was lost, since none was open. Inside one, the failure is
    /// the caller's, as any other.
    private func reconnecting<T>(opening: Bool, _ statement: () throws(PostgreSQLError) -> T) throws(DatabaseError) -> T {
        if opening, PQstatus(connection.handle) != CONNECTION_OK { try? connection.reset() }
        do {
            return try statement()
        } catch where opening && error.isConnectionFailure {
            do {
                try connection.reset()
                return try statement()
            } catch {
                throw DatabaseError(error)
            }
        } catch {
            throw DatabaseError(error)
        }
    }

    package func query(_ sql: String, _ parameters: [any SQLBindable], _ body: (Row) throws(DatabaseError) -> Void) throws(DatabaseError) {
        // A statement that writes, outside a write: a write of its own, as SQLite makes it (the
        // store's write lock, the version counted up and notified), never a bare autocommit.
        if writeDepth == 0, !reading, Self.writes(sql) {
            try beginWrite(durable: true)
            do {
                try query(sql, parameters, body)
                try endWrite(changedRows: true)
            } catch {
                abandonWrite()
                throw error
            }
            return
        }
        let text = translated[sql] ?? {
            let made = Self.postgreSQL(sql)
            translated[sql] = made
            return made
        }()
        let values: [String?] = parameters.map { parameter in
            switch parameter.sqlValue {
            case .null: nil
            case .integer(let value): String(value)
            case .text(let value): value
            case .real(let value): String(value)
            }
        }
        let result = try reconnecting(opening: writeDepth == 0 && !reading) { () throws(PostgreSQLError) in
            try connection.query(text, values, prepare: true)
        }
        // libpq counts a SELECT's rows too: only a statement that writes changes rows.
        lastChanges = Self.writes(sql) ? result.rowsAffected : 0
        if lastChanges > 0 {
            totalChanges += Int64(lastChanges)
            transactionsGeneration += 1
        }
        guard !result.isEmpty else { return }
        let rows = PostgreSQLFetchedRows(result, sql: sql)
        for index in 0..<Int32(result.count) { try body(Row(rows, index: index)) }
    }

    package var changes: Int { lastChanges }
    package var isOutsideTransaction: Bool { !connection.isInTransaction }

    package func transaction<T>(durable: Bool, _ body: () throws -> T) throws -> T {
        if writeDepth > 0 || reading {
            // Inside another write (or a read): a savepoint, joining the outer commit.
            writeDepth += 1
            defer { writeDepth -= 1 }
            try execute("SAVEPOINT storefront_nested")
            do {
                let value = try body()
                try execute("RELEASE SAVEPOINT storefront_nested")
                return value
            } catch {
                transactionsGeneration += 1
                try? execute("ROLLBACK TO SAVEPOINT storefront_nested; RELEASE SAVEPOINT storefront_nested")
                throw error
            }
        }
        var attempt = 1
        while true {
            do {
                try beginWrite(durable: durable)
                let before = totalChanges
                let value = try body()
                try endWrite(changedRows: totalChanges != before)
                return value
            } catch {
                abandonWrite()
                // Given up for a concurrent transaction (a deadlock with a reader's lock): the whole write again.
                guard Self.isSerializationFailure(error), attempt < 5 else { throw error }
                usleep(UInt32.random(in: 500...UInt32(min(1_000 << attempt, 50_000))))
                attempt += 1
            }
        }
    }

    /// BEGIN, then the store's write lock: one writer at a time, as SQLite's `BEGIN IMMEDIATE`.
    private func beginWrite(durable: Bool) throws(DatabaseError) {
        writeDepth = 1
        try execute("BEGIN ISOLATION LEVEL READ COMMITTED")
        try run("SELECT pg_advisory_xact_lock(?, hashtext(current_schema()))", Int(LockClass.write.rawValue))
        if !durable { try execute("SET LOCAL synchronous_commit = off") }
    }

    /// COMMIT; first, when the write changed a row, the store's version counted up (a write that
    /// found nothing to do is no change, as on a file) and notified: the notification is delivered
    /// at the commit, so a listener never looks before the write is there.
    private func endWrite(changedRows: Bool) throws(DatabaseError) {
        if changedRows { try countVersionUp() }
        try commit()
        writeDepth = 0
    }

    /// A failed write rolled back (what a cached read saw may be undone).
    private func abandonWrite() {
        transactionsGeneration += 1
        if !isOutsideTransaction { try? execute("ROLLBACK") }
        writeDepth = 0
    }

    /// Whether `sql` may change rows: anything but a query (`SELECT`, `WITH … SELECT`).
    private static func writes(_ sql: String) -> Bool {
        let start = sql.drop { $0.isWhitespace }.prefix(6).uppercased()
        return !(start.hasPrefix("SELECT") || start.hasPrefix("WITH") || start.hasPrefix("VALUES"))
    }

    /// `store_version` one up, and a `NOTIFY` of it to every listener (at the commit).
    private func countVersionUp() throws(DatabaseError) {
        do {
            let version = try connection.query("UPDATE store_version SET version = version + 1 RETURNING version")
            try connection.query("SELECT pg_notify($1, $2)", [channel, version.first?.text("version") ?? ""])
        } catch {
            throw DatabaseError(error)
        }
    }

    private static func isSerializationFailure(_ error: any Error) -> Bool {
        (error as? DatabaseError)?.isSerializationFailure == true
    }

    /// COMMIT, refused when the server rolled back instead (a statement the body caught spoiled it).
    private func commit() throws(DatabaseError) {
        let status: String
        do {
            status = try connection.query("COMMIT").commandStatus
        } catch {
            throw DatabaseError(error)
        }
        guard status == "COMMIT" else {
            throw DatabaseError(sqlState: nil, message: "the write was rolled back, not committed: a statement in it failed")
        }
    }

    package func read<T>(_ body: () throws -> T) throws -> T {
        guard writeDepth == 0, !reading, isOutsideTransaction else { return try body() }
        reading = true
        defer { reading = false }
        try execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
        do {
            let value = try body()
            try commit()
            return value
        } catch {
            if !isOutsideTransaction { try? execute("ROLLBACK") }
            throw error
        }
    }

    package func columns(of table: String) throws(DatabaseError) -> [String] {
        try rows("""
            SELECT column_name::text AS name FROM information_schema.columns
            WHERE table_schema = current_schema() AND table_name = ? AND column_name <> 'rowid'
            ORDER BY ordinal_position
            """, table) { $0.text(.name) }
    }

    package func values(_ sql: String, _ body: ([SQLValue]) throws(DatabaseError) -> Void) throws(DatabaseError) {
        let result = try reconnecting(opening: writeDepth == 0 && !reading) { () throws(PostgreSQLError) in try connection.query(sql) }
        let count = Int32(result.columnNames.count)
        for row in 0..<Int32(result.count) {
            try body((0..<count).map { column in
                if result.cellIsNull(row, column) { return .null }
                let text = String(decoding: result.cellBytes(row, column), as: UTF8.self)
                switch result.columnType(column) {
                case 20, 21, 23: return .integer(Int64(text) ?? 0)
                case 700, 701: return .real(Double(text) ?? 0)
                default: return .text(text)
                }
            })
        }
    }

    /// The store's version: counted up by every write of every host.
    package func storeVersion() throws(DatabaseError) -> Int64 {
        try scalar("SELECT version FROM store_version") ?? 0
    }

    /// The ledger's SQL in PostgreSQL's words: each `?` outside quotes numbered (`$1`, `$2`, …),
    /// and SQLite's planner hints (`INDEXED BY name`, a unary `+` that keeps a column from its
    /// index) left out: PostgreSQL plans by itself.
    static func postgreSQL(_ sql: String) -> String {
        numberedParameters(sql.replacing(/INDEXED BY \w+/, with: "").replacing(/([\s(])\+([a-z_])/) { "\($0.output.1)\($0.output.2)" })
    }

    /// `sql` with each `?` outside quotes numbered as PostgreSQL's `$1`, `$2`, …
    static func numberedParameters(_ sql: String) -> String {
        var result = ""
        result.reserveCapacity(sql.utf8.count + 16)
        var number = 0
        var quote: Character?
        for character in sql {
            if let open = quote {
                if character == open { quote = nil }
                result.append(character)
            } else if character == "'" || character == "\"" {
                quote = character
                result.append(character)
            } else if character == "?" {
                number += 1
                result += "$\(number)"
            } else {
                result.append(character)
            }
        }
        return result
    }
}

extension DatabaseError {
    /// libpq's error as the ledger's, its SQLSTATE kept (the password was taken out already).
    init(_ error: PostgreSQLError) {
        self.init(sqlState: error.sqlState, message: error.message)
    }
}
