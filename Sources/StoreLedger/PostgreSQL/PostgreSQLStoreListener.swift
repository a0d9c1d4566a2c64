import CLibPQ

/// What a store in PostgreSQL says when it is written: a connection of its own that `LISTEN`s
/// on the store's channel (every write notifies it at its commit: ``PostgreSQLStoreConnection``).
/// The change feed waits on its socket as it waits on inotify for a file.
package final class PostgreSQLStoreListener {
    private let connection: PostgreSQLConnection
    /// Set once the connection is lost (a server restarted): the feed then polls, and makes a
    /// new listener, which reads the store's version afresh, so nothing written meanwhile is missed.
    package private(set) var isLost = false

    /// Connects with `connectionString` and listens on the store's channel.
    package init(_ connectionString: String) throws(DatabaseError) {
        do {
            connection = try PostgreSQLConnection(connectionString)
            try connection.listen(try PostgreSQLStoreConnection.channel(of: connection))
        } catch {
            throw DatabaseError(error)
        }
    }

    /// The connection's socket: readable when a notification (or the server's goodbye) arrives.
    package var descriptor: Int32 { PQsocket(connection.handle) }

    /// Reads what arrived: whether the store was written (or the connection lost, which may hide a write).
    package func drain() -> Bool {
        guard !isLost else { return true }
        do {
            return try !connection.notifications(timeout: .zero).isEmpty
        } catch {
            isLost = true
            return true
        }
    }
}
