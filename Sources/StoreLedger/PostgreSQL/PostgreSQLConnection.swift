import CLibPQ
import Glibc

/// One libpq connection to PostgreSQL: statements with parameters bound as text, results read
/// by column name, transactions retried on serialization failures, LISTEN/NOTIFY, and a reset
/// after the server went away. Not thread-safe: each owner (an actor) keeps its own; every call
/// blocks its thread until the server answers.
package final class PostgreSQLConnection {
    /// The PGconn; never NULL.
    let handle: OpaquePointer
    /// The connection string's password in each form it may be echoed in, taken out of every message.
    private let secrets: [String]
    /// The channels this connection listens on, listened to again after a reset.
    var channels: [String] = []
    /// The statements prepared on this connection (PQprepare), by their SQL: parsed, analysed
    /// and planned once, then run by name. A session's own: a reset forgets them.
    private var prepared: [String: String] = [:]
    /// At most this many: SQL built from a list of values of any length would grow it without end.
    static let maximumPrepared = 256

    /// Connects with a libpq connection string as libpq takes it (PQconnectdb): a URI
    /// (`postgresql://user:password@host:port/database?sslmode=require`, `postgres://…`,
    /// `postgresql:///database?host=/socket/folder`) or `key=value` pairs, with libpq's
    /// environment variables (PGHOST, PGPASSFILE, …) for what it leaves out.
    package init(_ connectionString: String) throws(PostgreSQLError) {
        guard clibpq_available() != 0 else {
            let reason = clibpq_load_error().map { String(cString: $0) } ?? "unknown"
            throw PostgreSQLError(message: "a PostgreSQL store needs libpq, which could not be loaded (\(reason)): install Debian's libpq5",
                                  connectionLost: true)
        }
        secrets = Self.secrets(in: connectionString)
        guard let handle = PQconnectdb(connectionString) else {
            throw PostgreSQLError(message: "libpq could not allocate a connection", connectionLost: true)
        }
        guard PQstatus(handle) == CONNECTION_OK else {
            let message = Self.redact(Self.trimmed(PQerrorMessage(handle)), secrets)
            PQfinish(handle)
            throw PostgreSQLError(message: message, connectionLost: true)
        }
        self.handle = handle
        clibpq_ignore_notices(handle)
    }

    deinit {
        PQfinish(handle)
    }

    // MARK: - Statements

    /// Runs one or more statements that take no parameters (a schema, `LISTEN`), separated by `;`.
    package func execute(_ sql: String) throws(PostgreSQLError) {
        _ = try checked(PQexec(handle, sql))
    }

    /// Runs one statement with `parameters` bound to `$1`, `$2`, … as text (NULL for nil), never
    /// spliced into the SQL; the result's rows are read by column name.
    /// With `prepare`, the statement is prepared the first time and run by name afterwards:
    /// for the fixed statements a connection runs again and again.
    @discardableResult
    package func query(_ sql: String, _ parameters: [String?] = [], prepare: Bool = false) throws(PostgreSQLError) -> PostgreSQLResult {
        // A C string ends at the first NUL: a value holding one would be bound cut short.
        if parameters.contains(where: { $0?.utf8.contains(0) == true }) {
            throw PostgreSQLError(message: "a parameter holds a NUL character, which PostgreSQL's text cannot hold")
        }
        let copies = parameters.map { $0.flatMap { strdup($0) } }
        defer { copies.forEach { free($0) } }
        let values = copies.map { UnsafePointer($0) }
        // Types left to the server (nil), every value as text, every result column as text (format 0).
        if prepare, let name = try preparedName(sql, parameterCount: values.count) {
            return try checked(PQexecPrepared(handle, name, Int32(values.count), values, nil, nil, 0))
        }
        return try checked(PQexecParams(handle, sql, Int32(values.count), nil, values, nil, nil, 0))
    }

    /// The name `sql` is prepared under, preparing it now the first time; nil once
    /// ``maximumPrepared`` statements are.
    private func preparedName(_ sql: String, parameterCount: Int) throws(PostgreSQLError) -> String? {
        if let name = prepared[sql] { return name }
        guard prepared.count < Self.maximumPrepared else { return nil }
        let name = "storefront_\(prepared.count + 1)"
        _ = try checked(PQprepare(handle, name, sql, Int32(parameterCount), nil))
        prepared[sql] = name
        return name
    }

    /// The first column of the first row as an integer (`count(*)`, `SELECT pg_backend_pid()`); nil for no row or NULL.
    package func scalar(_ sql: String, _ parameters: [String?] = []) throws(PostgreSQLError) -> Int64? {
        let result = try query(sql, parameters)
        return result.isEmpty ? nil : result[0].onlyInt64()
    }

    /// A bytea value as a parameter: the hex format's text (`\x0a1b…`).
    package static func byteaParameter(_ bytes: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = [UInt8(ascii: "\\"), UInt8(ascii: "x")]
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// `name` quoted as an SQL identifier by libpq (PQescapeIdentifier), for the statements that
    /// take no parameters (`LISTEN "channel"`).
    package func quotedIdentifier(_ name: String) throws(PostgreSQLError) -> String {
        guard let quoted = PQescapeIdentifier(handle, name, name.utf8.count) else { throw error(nil) }
        defer { PQfreemem(quoted) }
        return String(cString: quoted)
    }

    // MARK: - The connection

    /// Whether the server still answers: one round trip of an empty query. A connection whose
    /// server stopped or restarted reads false; ``reset()`` makes a new one.
    package func isAlive() -> Bool {
        guard PQstatus(handle) == CONNECTION_OK else { return false }
        if let result = PQexec(handle, "") { PQclear(result) }
        return PQstatus(handle) == CONNECTION_OK
    }

    /// Connects again with the same connection string (PQreset) and listens again on every
    /// channel ``listen(_:)`` named. Session state is gone (settings, temporary tables), and
    /// notifications sent while the connection was down are lost: read the state again after it.
    package func reset() throws(PostgreSQLError) {
        prepared = [:]
        PQreset(handle)
        guard PQstatus(handle) == CONNECTION_OK else {
            throw PostgreSQLError(message: Self.redact(Self.trimmed(PQerrorMessage(handle)), secrets), connectionLost: true)
        }
        for channel in channels { try execute("LISTEN \(try quotedIdentifier(channel))") }
    }

    /// The server's process for this connection (the `processID` of its own notifications).
    package var serverProcessID: Int32 { PQbackendPID(handle) }

    /// Whether a transaction is open on this connection (or failed and not yet rolled back).
    package var isInTransaction: Bool { PQtransactionStatus(handle) != PQTRANS_IDLE }

    // MARK: - Results and errors

    /// The result of a statement, or its error (the result freed).
    private func checked(_ result: OpaquePointer?) throws(PostgreSQLError) -> PostgreSQLResult {
        guard let result else { throw error(nil) }
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY:
            return PostgreSQLResult(result)
        default:
            let failure = error(result)
            PQclear(result)
            throw failure
        }
    }

    /// The error of a failed `result`, or of the connection when there is none.
    func error(_ result: OpaquePointer?) -> PostgreSQLError {
        var text = result.map { Self.trimmed(PQresultErrorMessage($0)) } ?? ""
        if text.isEmpty { text = Self.trimmed(PQerrorMessage(handle)) }
        if text.isEmpty { text = "libpq reported a failure without a message" }
        let sqlState = result.flatMap { PQresultErrorField($0, clibpq_diag_sqlstate()) }.map { String(cString: $0) }
        return PostgreSQLError(message: Self.redact(text, secrets), sqlState: sqlState,
                               connectionLost: PQstatus(handle) != CONNECTION_OK)
    }

    /// libpq's message without its trailing newline.
    static func trimmed(_ message: UnsafePointer<CChar>?) -> String {
        guard let message else { return "" }
        var text = String(cString: message)
        while let last = text.last, last.isWhitespace { text.removeLast() }
        return text
    }
}
