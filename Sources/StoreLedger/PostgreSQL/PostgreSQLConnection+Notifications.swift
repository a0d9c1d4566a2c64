import CLibPQ
import Glibc

/// A `NOTIFY` another connection (or this one) sent on a channel this connection listens on.
package struct PostgreSQLNotification: Sendable, Equatable {
    /// The channel it was sent on.
    package var channel: String
    /// Its payload; empty when none was given.
    package var payload: String
    /// The server process of the connection that sent it (``PostgreSQLConnection/serverProcessID``).
    package var processID: Int32
}

extension PostgreSQLConnection {
    /// Listens on `channel` (`LISTEN`, the name quoted by libpq), now and after every ``reset()``.
    package func listen(_ channel: String) throws(PostgreSQLError) {
        try execute("LISTEN \(try quotedIdentifier(channel))")
        if !channels.contains(channel) { channels.append(channel) }
    }

    /// Stops listening on `channel`.
    package func unlisten(_ channel: String) throws(PostgreSQLError) {
        try execute("UNLISTEN \(try quotedIdentifier(channel))")
        channels.removeAll { $0 == channel }
    }

    /// Sends `payload` on `channel` to every connection listening on it, when the current
    /// transaction commits (`SELECT pg_notify($1, $2)`, both bound).
    package func notify(channel: String, payload: String = "") throws(PostgreSQLError) {
        try query("SELECT pg_notify($1, $2)", [channel, payload])
    }

    /// The notifications that have arrived, waiting up to `timeout` for the first when none has:
    /// poll(2) on libpq's socket, then PQconsumeInput and PQnotifies. Empty when none came in
    /// time. Blocks the calling thread meanwhile. Throws when the connection is lost (a server
    /// stopped or restarted): after a ``reset()``, read the state again, since notifications sent
    /// meanwhile are gone.
    package func notifications(timeout: Duration) throws(PostgreSQLError) -> [PostgreSQLNotification] {
        // Some may have come in with a statement's answer already.
        guard PQconsumeInput(handle) == 1 else { throw error(nil) }
        var received = queuedNotifications()
        let deadline = ContinuousClock.now + timeout
        while received.isEmpty {
            let remaining = deadline - ContinuousClock.now
            guard remaining > .zero else { break }
            var socket = pollfd(fd: PQsocket(handle), events: Int16(POLLIN), revents: 0)
            guard socket.fd >= 0 else { throw error(nil) }
            let ready = poll(&socket, 1, Self.milliseconds(remaining))
            if ready < 0 {
                if errno == EINTR { continue }
                throw PostgreSQLError(message: "poll on the connection's socket failed: \(String(cString: strerror(errno)))")
            }
            if ready == 0 { break }
            guard PQconsumeInput(handle) == 1 else { throw error(nil) }
            received = queuedNotifications()
        }
        return received
    }

    /// Every notification libpq has read and not yet handed out.
    private func queuedNotifications() -> [PostgreSQLNotification] {
        var received: [PostgreSQLNotification] = []
        while let notice = PQnotifies(handle) {
            received.append(PostgreSQLNotification(channel: String(cString: notice.pointee.relname),
                                                   payload: notice.pointee.extra.map { String(cString: $0) } ?? "",
                                                   processID: notice.pointee.be_pid))
            PQfreemem(notice)
        }
        return received
    }

    /// `duration` in whole milliseconds for poll(2), rounded up (a wait never ends early), at most a day.
    private static func milliseconds(_ duration: Duration) -> Int32 {
        let (seconds, attoseconds) = duration.components
        let total = seconds * 1_000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return Int32(clamping: min(total, 86_400_000))
    }
}
