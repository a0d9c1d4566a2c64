import Glibc

/// How much of other transactions' work a transaction may see (`BEGIN ISOLATION LEVEL …`).
package enum PostgreSQLIsolation: String, Sendable {
    case readCommitted = "READ COMMITTED"
    case repeatableRead = "REPEATABLE READ"
    case serializable = "SERIALIZABLE"
}

extension PostgreSQLConnection {
    /// Runs `body` inside `BEGIN ISOLATION LEVEL … COMMIT`, rolled back when it throws. When the
    /// server gives the transaction up for a concurrent one (``PostgreSQLError/isSerializationFailure``,
    /// thrown by a statement in `body` or by the COMMIT), the whole of `body` runs again in a new
    /// transaction after a short random wait, up to `attempts` runs in all; so `body` must do
    /// nothing outside the database that it cannot do twice. Inside another transaction, `body`
    /// runs in a savepoint, and the outer transaction's retry covers it.
    package func transaction<T>(isolation: PostgreSQLIsolation = .serializable, attempts: Int = 5,
                                _ body: () throws -> T) throws -> T {
        precondition(attempts >= 1, "a transaction runs at least once")
        if isInTransaction { return try savepoint(body) }
        var attempt = 1
        while true {
            try execute("BEGIN ISOLATION LEVEL \(isolation.rawValue)")
            do {
                let value = try body()
                // A COMMIT of a transaction a failed statement spoiled (one `body` caught) rolls
                // back and answers ROLLBACK, not an error: the work is lost, and says so.
                let status = try query("COMMIT").commandStatus
                guard status == "COMMIT" else {
                    throw PostgreSQLError(message: "the transaction was rolled back, not committed: a statement in it failed")
                }
                return value
            } catch let error as PostgreSQLError where error.isSerializationFailure && attempt < attempts {
                rollBack()
                usleep(Self.backoff(attempt: attempt))
                attempt += 1
            } catch {
                rollBack()
                throw error
            }
        }
    }

    /// `body` in `SAVEPOINT … RELEASE`, rolled back to the savepoint when it throws.
    private func savepoint<T>(_ body: () throws -> T) throws -> T {
        try execute("SAVEPOINT storefront_nested")
        do {
            let value = try body()
            try execute("RELEASE SAVEPOINT storefront_nested")
            return value
        } catch {
            try? execute("ROLLBACK TO SAVEPOINT storefront_nested; RELEASE SAVEPOINT storefront_nested")
            throw error
        }
    }

    /// Ends a failed transaction; a lost connection has none left to end.
    private func rollBack() {
        if isInTransaction { try? execute("ROLLBACK") }
    }

    /// Microseconds to wait before the next attempt: random (two retrying transactions should not
    /// meet again), up to 2, 4, 8, … ms, at most 50.
    static func backoff(attempt: Int) -> UInt32 {
        let ceiling = min(1_000 << min(attempt, 6), 50_000)
        return UInt32.random(in: 500...UInt32(ceiling))
    }
}
