import Foundation
import Testing
@testable import StoreLedger

/// A connection to a database of the test's own on the run's cluster (PostgreSQLServer.shared()).
private func freshConnection(_ name: String) throws -> PostgreSQLConnection {
    try PostgreSQLConnection(PostgreSQLServer.shared().freshDatabase(named: name))
}

/// The PostgreSQLError `body` throws; nil (a failed expectation) when it throws none or another.
private func failure(_ body: () throws -> Void, sourceLocation: SourceLocation = #_sourceLocation) -> PostgreSQLError? {
    do {
        try body()
        Issue.record("expected a PostgreSQLError, got none", sourceLocation: sourceLocation)
    } catch let error as PostgreSQLError {
        return error
    } catch {
        Issue.record("expected a PostgreSQLError, got \(error)", sourceLocation: sourceLocation)
    }
    return nil
}

/// A name no other test or run uses.
private func unique(_ prefix: String) -> String {
    "\(prefix)_\(UUID().uuidString.prefix(8).lowercased())"
}

@Suite("PostgreSQLConnection")
struct PostgreSQLConnectionTests {
    // MARK: - Statements and rows

    @Test("parameters are bound as values, never spliced into the SQL: quotes, '; DROP and $2 round-trip")
    func boundParameters() throws {
        let db = try freshConnection("bound")
        try db.execute("CREATE TABLE notes (id bigint PRIMARY KEY, body text NOT NULL)")
        let hostile = "it's \"quoted\"'); DROP TABLE notes; -- ✓ €"
        try db.query("INSERT INTO notes (id, body) VALUES ($1, $2)", ["1", hostile])
        let found = try db.query("SELECT id, body FROM notes WHERE body = $1", [hostile])
        #expect(found.count == 1)
        #expect(found.first?.text("body") == hostile)
        #expect(found.first?.int64("id") == 1)
        #expect(try db.scalar("SELECT count(*) FROM notes") == 1, "the table is still there")
        // Replacing $1 by its value first, then $2, would put "x" inside the first value.
        let pair = try db.query("SELECT $1::text AS first, $2::text AS second", ["$2", "x"])
        #expect(pair.first?.text("first") == "$2" && pair.first?.text("second") == "x")
        // A NUL cannot be bound as C text: refused, not cut short.
        let nul = failure { try db.query("SELECT $1::text AS value", ["a\u{0}b"]) }
        #expect(nul?.message.contains("NUL") == true)
    }

    @Test("rows are read by column name, whatever the order of the SELECT list or the table's columns")
    func rowsByName() throws {
        let db = try freshConnection("byname")
        try db.execute("""
            CREATE TABLE items (a text, b bigint, "Mixed" text);
            INSERT INTO items VALUES ('alpha', 42, 'upper');
            CREATE TABLE reversed ("Mixed" text, b bigint, a text);
            INSERT INTO reversed VALUES ('upper', 42, 'alpha');
            """)
        for sql in ["SELECT a, b, \"Mixed\" FROM items", "SELECT \"Mixed\", b, a FROM items", "SELECT * FROM items",
                    "SELECT * FROM reversed", "SELECT b, 'noise' AS c, a, \"Mixed\" FROM reversed"] {
            let row = try #require(try db.query(sql).first, "\(sql)")
            #expect(row.text("a") == "alpha", "\(sql)")
            #expect(row.int64("b") == 42, "\(sql)")
            #expect(row.text("Mixed") == "upper", "the name as the result spells it, case and all: \(sql)")
        }
        let numbers = try db.query("SELECT $1::bigint AS largest, $2::bigint AS smallest, $3::boolean AS yes, false AS no",
                                   [String(Int64.max), String(Int64.min), "true"])
        #expect(numbers.first?.int64("largest") == Int64.max && numbers.first?.int64("smallest") == Int64.min)
        #expect(numbers.first?.bool("yes") == true && numbers.first?.bool("no") == false)
        #expect(numbers.columnNames == ["largest", "smallest", "yes", "no"])
    }

    @Test("NULL and the empty string are told apart, bound and read")
    func nullVersusEmpty() throws {
        let db = try freshConnection("nulls")
        try db.execute("CREATE TABLE cells (id bigint, value text, amount bigint)")
        try db.query("INSERT INTO cells VALUES (1, $1, $2), (2, $3, $4)", [nil, nil, "", "0"])
        let rows = try db.query("SELECT id, value, amount FROM cells ORDER BY id")
        #expect(rows.count == 2)
        #expect(rows[0].isNull("value") && rows[0].optionalText("value") == nil && rows[0].optionalInt64("amount") == nil)
        #expect(!rows[1].isNull("value") && rows[1].optionalText("value") == "" && rows[1].optionalInt64("amount") == 0)
        #expect(try db.scalar("SELECT count(*) FROM cells WHERE value IS NULL") == 1)
        #expect(try db.scalar("SELECT count(*) FROM cells WHERE value = $1", [""]) == 1)
        #expect(try db.scalar("SELECT NULL::bigint AS nothing") == nil)
    }

    @Test("bytea round-trips every byte value, in hex and in escape output")
    func byteaRoundTrip() throws {
        let db = try freshConnection("bytea")
        try db.execute("CREATE TABLE blobs (id bigint, data bytea)")
        let every = (0...255).map(UInt8.init) + [0, 0, 92, 120, 255]
        try db.query("INSERT INTO blobs VALUES (1, $1), (2, $2), (3, NULL)",
                     [PostgreSQLConnection.byteaParameter(every), PostgreSQLConnection.byteaParameter([])])
        // The server holds the bytes, not their text.
        #expect(try db.scalar("SELECT octet_length(data) AS size FROM blobs WHERE id = 1") == Int64(every.count))
        #expect(try db.scalar("SELECT get_byte(data, 92) AS byte FROM blobs WHERE id = 1") == 92)
        for output in ["hex", "escape"] {
            try db.execute("SET bytea_output = '\(output)'")
            let rows = try db.query("SELECT id, data FROM blobs ORDER BY id")
            #expect(rows[0].bytes("data") == every, "\(output)")
            #expect(rows[1].optionalBytes("data") == [], "\(output)")
            #expect(rows[2].optionalBytes("data") == nil, "\(output)")
        }
    }

    @Test("a statement's error carries the server's words and SQLSTATE; execute runs many statements")
    func statementErrors() throws {
        let db = try freshConnection("errors")
        try db.execute("CREATE TABLE t (id bigint PRIMARY KEY); INSERT INTO t VALUES (1); INSERT INTO t VALUES (2)")
        #expect(try db.scalar("SELECT count(*) FROM t") == 2)
        let duplicate = failure { try db.query("INSERT INTO t VALUES ($1)", ["1"]) }
        #expect(duplicate?.sqlState == "23505")
        #expect(duplicate?.message.contains("duplicate key value violates unique constraint") == true)
        #expect(duplicate?.isSerializationFailure == false && duplicate?.isConnectionFailure == false)
        let missing = failure { try db.execute("SELECT * FROM no_such_table") }
        #expect(missing?.sqlState == "42P01" && missing?.description.contains("no_such_table") == true)
        #expect(try db.query("INSERT INTO t VALUES (3), (4)").rowsAffected == 2)
    }

    // MARK: - Connecting

    @Test("a wrong password fails in libpq's words, and the password is in no message")
    func wrongPassword() throws {
        let server = try PostgreSQLServer.shared()
        let role = unique("pw")
        let password = "Right-\(UUID().uuidString)"
        try server.psql("CREATE ROLE \(role) LOGIN PASSWORD '\(password)' IN ROLE \(PostgreSQLServer.passwordGroup)")
        // The port named too: a PGPORT in the environment would name another socket.
        let folder = server.socketFolder
        let port = server.port
        let right = try PostgreSQLConnection("postgresql://\(role):\(password)@:\(port)/postgres?host=\(folder)")
        #expect(try right.query("SELECT current_user AS name").first?.text("name") == role)

        let wrong = "Wrong-\(UUID().uuidString)"
        for uri in ["postgresql://\(role):\(wrong)@:\(port)/postgres?host=\(folder)",
                    "postgres:///postgres?host=\(folder)&port=\(port)&user=\(role)&password=\(wrong)",
                    "host=\(folder) port=\(port) user=\(role) password='\(wrong)' dbname=postgres"] {
            let error = failure { _ = try PostgreSQLConnection(uri) }
            #expect(error?.description.contains("password authentication failed for user \"\(role)\"") == true, "\(uri)")
            #expect(error?.isConnectionFailure == true)
            #expect(error.map { !"\($0)".contains(wrong) && !$0.message.contains(wrong) } == true, "\(uri)")
        }
        let none = failure { _ = try PostgreSQLConnection("postgresql:///postgres?host=\(folder)&port=\(port)&user=\(role)&passfile=/nonexistent/storefront-pgpass") }
        #expect(none?.message.contains("no password supplied") == true)
        // libpq echoes a malformed URI's token, password and all: taken out.
        let echoed = failure { _ = try PostgreSQLConnection("postgresql://\(role):Echo%zz\(wrong)@:\(port)/postgres?host=\(folder)") }
        #expect(echoed?.message.contains("percent") == true, "libpq's words: \(String(describing: echoed))")
        #expect(echoed.map { !"\($0)".contains(wrong) } == true, "\(String(describing: echoed))")
    }

    @Test("a missing database is named in the error")
    func missingDatabase() throws {
        let server = try PostgreSQLServer.shared()
        let name = unique("no_such_database")
        let error = failure { _ = try PostgreSQLConnection(server.uri(database: name)) }
        #expect(error?.message.contains("database \"\(name)\" does not exist") == true, "\(String(describing: error))")
        #expect(error?.isConnectionFailure == true)
        let socket = failure { _ = try PostgreSQLConnection("postgresql:///postgres?host=/nonexistent/folder") }
        #expect(socket?.message.contains("/nonexistent/folder") == true && socket?.isConnectionFailure == true)
    }

    @Test("redacted() takes the password out of every shape of connection string, and nothing else")
    func redaction() {
        let cases: [(String, String)] = [
            ("postgresql://alice:s3cret@db.example:5432/store?sslmode=require", "postgresql://alice@db.example:5432/store?sslmode=require"),
            ("postgres://alice:s3cret@db.example/store", "postgres://alice@db.example/store"),
            ("postgresql://:s3cret@db.example/store", "postgresql://db.example/store"),
            ("postgresql://alice:p%40ss%3Fword@db.example/store", "postgresql://alice@db.example/store"),
            ("postgresql://db.example/store?user=alice&password=s3cret&sslmode=require", "postgresql://db.example/store?user=alice&sslmode=require"),
            ("postgresql:///store?host=/run/postgresql&password=s3cret", "postgresql:///store?host=/run/postgresql"),
            ("postgresql://alice:s3cret@db/store?pass%77ord=other", "postgresql://alice@db/store"),
            ("postgresql://alice@db.example/store", "postgresql://alice@db.example/store"),
            ("postgresql:///store?host=/tmp/x&user=postgres", "postgresql:///store?host=/tmp/x&user=postgres"),
            ("host=db user=alice password='s3 cret' dbname=store", "host=db user=alice dbname=store"),
            ("host=db password=s3cret", "host=db"),
        ]
        for (uri, expected) in cases {
            #expect(PostgreSQLConnection.redacted(uri) == expected)
        }
        #expect(PostgreSQLConnection.secrets(in: "postgresql://alice:p%40ss@db/store").contains("p@ss"))
        #expect(PostgreSQLConnection.secrets(in: "postgresql://alice:p%40ss@db/store").contains("p%40ss"))
    }

    // MARK: - Transactions

    @Test("a serialization failure between two connections is retried, and both bodies commit once")
    func serializationRetry() throws {
        let uri = try PostgreSQLServer.shared().freshDatabase(named: "serializable")
        let first = try PostgreSQLConnection(uri)
        let second = try PostgreSQLConnection(uri)
        try first.execute("CREATE TABLE counter (n bigint NOT NULL); INSERT INTO counter VALUES (0); CREATE TABLE log (who text NOT NULL)")
        var firstRuns = 0
        var secondRuns = 0
        try first.transaction(isolation: .serializable) {
            firstRuns += 1
            let seen = try #require(try first.scalar("SELECT n FROM counter"))
            if firstRuns == 1 {
                // Another connection reads and writes the same row and commits in between.
                try second.transaction(isolation: .serializable) {
                    secondRuns += 1
                    let its = try #require(try second.scalar("SELECT n FROM counter"))
                    try second.query("UPDATE counter SET n = $1", [String(its + 1)])
                    try second.query("INSERT INTO log (who) VALUES ($1)", ["second"])
                }
            }
            try first.query("UPDATE counter SET n = $1", [String(seen + 1)])
            try first.query("INSERT INTO log (who) VALUES ($1)", ["first"])
        }
        #expect(firstRuns == 2 && secondRuns == 1)
        #expect(try first.scalar("SELECT n FROM counter") == 2, "no update lost")
        #expect(try first.query("SELECT who FROM log ORDER BY who").map { $0.text("who") } == ["first", "second"])
        #expect(!first.isInTransaction && !second.isInTransaction)
    }

    @Test("retries are bounded; other errors are not retried and roll back")
    func retryBoundsAndRollback() throws {
        let uri = try PostgreSQLServer.shared().freshDatabase(named: "bounds")
        let first = try PostgreSQLConnection(uri)
        let second = try PostgreSQLConnection(uri)
        try first.execute("CREATE TABLE counter (n bigint NOT NULL); INSERT INTO counter VALUES (0); CREATE TABLE t (id bigint PRIMARY KEY)")
        var runs = 0
        let conflict = failure {
            try first.transaction(isolation: .repeatableRead, attempts: 3) {
                runs += 1
                _ = try first.scalar("SELECT n FROM counter")
                try second.execute("UPDATE counter SET n = n + 1")  // always in between
                try first.execute("UPDATE counter SET n = n + 100")
            }
        }
        #expect(conflict?.isSerializationFailure == true && runs == 3)
        #expect(try first.scalar("SELECT n FROM counter") == 3, "only the other connection's updates")

        runs = 0
        let duplicate = failure {
            try first.transaction {
                runs += 1
                try first.execute("INSERT INTO t VALUES (1); INSERT INTO t VALUES (1)")
            }
        }
        #expect(duplicate?.sqlState == "23505" && runs == 1)
        #expect(!first.isInTransaction)
        #expect(try first.scalar("SELECT count(*) FROM t") == 0)

        // A failed statement the body swallowed spoils the transaction: COMMIT rolls back, and says so.
        let spoiled = failure {
            try first.transaction {
                try first.execute("INSERT INTO t VALUES (7)")
                _ = try? first.execute("SELECT 1 / 0")
            }
        }
        #expect(spoiled?.message.contains("rolled back") == true)
        #expect(try first.scalar("SELECT count(*) FROM t") == 0)
        let value = try first.transaction(isolation: .readCommitted) {
            try first.execute("INSERT INTO t VALUES (8)")
            return try first.transaction { try first.scalar("SELECT count(*) FROM t") }  // nested: a savepoint
        }
        #expect(value == 1)
        #expect(try second.scalar("SELECT count(*) FROM t") == 1, "committed")
    }

    // MARK: - LISTEN and NOTIFY

    @Test("a NOTIFY reaches a second connection listening, at its commit, without waiting out the timeout")
    func listenNotify() throws {
        let uri = try PostgreSQLServer.shared().freshDatabase(named: "notify")
        let listener = try PostgreSQLConnection(uri)
        let sender = try PostgreSQLConnection(uri)
        let channel = "ledger \"changes\"; DROP"
        try listener.listen(channel)
        #expect(try listener.notifications(timeout: .milliseconds(50)).isEmpty)

        try sender.transaction {
            try sender.notify(channel: channel, payload: "it's 1")
            #expect(try listener.notifications(timeout: .milliseconds(100)).isEmpty, "not before the commit")
        }
        let began = ContinuousClock.now
        let received = try listener.notifications(timeout: .seconds(20))
        #expect(ContinuousClock.now - began < .seconds(10), "woken by the socket, not by the timeout")
        #expect(received == [PostgreSQLNotification(channel: channel, payload: "it's 1", processID: sender.serverProcessID)])

        try sender.notify(channel: "another channel", payload: "not listened to")
        try listener.unlisten(channel)
        try sender.notify(channel: channel, payload: "after unlisten")
        #expect(try listener.notifications(timeout: .milliseconds(200)).isEmpty)
    }

    // MARK: - Reconnecting

    @Test("a server restart is detected, and a reset connects and listens again")
    func restart() async throws {
        // Its own: restarting the run's cluster would break other tests. Started and restarted off
        // Swift's shared pool: both block for seconds.
        let server = try await onOwnThread { try PostgreSQLServer.start() }
        defer { server.stop() }
        let db = try PostgreSQLConnection(server.uri())
        let idle = try PostgreSQLConnection(server.uri())
        try db.listen("after_restart")
        #expect(db.isAlive() && idle.isAlive())
        let before = db.serverProcessID

        try await onOwnThread { try server.restart() }
        // libpq's status alone still says "OK" until something reads the socket: isAlive() asks the server.
        #expect(!idle.isAlive())
        // A listener waiting for notifications hears the connection end.
        let waiting = failure { _ = try db.notifications(timeout: .seconds(20)) }
        #expect(waiting?.isConnectionFailure == true, "\(String(describing: waiting))")
        #expect(!db.isAlive())
        let query = failure { try db.query("SELECT 1 AS one") }
        #expect(query?.isConnectionFailure == true)

        try db.reset()
        #expect(db.isAlive() && db.serverProcessID != before)
        #expect(try db.scalar("SELECT 41 + 1 AS answer") == 42)
        let sender = try PostgreSQLConnection(server.uri())
        try sender.notify(channel: "after_restart", payload: "back")
        #expect(try db.notifications(timeout: .seconds(20)).map(\.payload) == ["back"], "listening again after the reset")

        server.stop()
        #expect(!db.isAlive())
        let down = failure { try db.reset() }
        #expect(down?.isConnectionFailure == true)
    }
}
