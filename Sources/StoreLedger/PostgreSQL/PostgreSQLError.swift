/// An error from PostgreSQL or libpq: libpq's words, with the connection's password taken out,
/// and the server's SQLSTATE when it sent one.
package struct PostgreSQLError: Error, Sendable, CustomStringConvertible {
    /// libpq's message, trimmed; never holds the connection's password (``PostgreSQLConnection/redacted(_:)``).
    package var message: String
    /// The server's five-character SQLSTATE (`40001`), when the error came from the server.
    package var sqlState: String?
    /// libpq had no working connection after the failure: never made, or lost.
    package var connectionLost: Bool

    package init(message: String, sqlState: String? = nil, connectionLost: Bool = false) {
        self.message = message
        self.sqlState = sqlState
        self.connectionLost = connectionLost
    }

    package var description: String { sqlState.map { "\(message) (SQLSTATE \($0))" } ?? message }

    /// The server gave up one of two concurrent transactions (`40001` serialization_failure,
    /// `40P01` deadlock_detected): running the whole transaction again may succeed.
    package var isSerializationFailure: Bool { sqlState == "40001" || sqlState == "40P01" }

    /// The connection is gone or was never made (a server stopped or restarted, a socket that is
    /// not there, a refused sign-in): a reset (``PostgreSQLConnection/reset()``) may bring it back.
    package var isConnectionFailure: Bool {
        guard !connectionLost else { return true }
        guard let sqlState else { return false }
        // Class 08: connection exception; 57P01-03: the server shutting down or starting up.
        return sqlState.hasPrefix("08") || ["57P01", "57P02", "57P03"].contains(sqlState)
    }
}
