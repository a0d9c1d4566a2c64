import CSQLite
import Foundation
import Testing
import TestSupport

/// SIGKILL in the middle of purchases and renewals loses no notification: each is recorded in
/// the write that makes its event, so every committed transaction has exactly its one, and the
/// receiver gets each of them once.
@Suite("storefront serve: notifications survive SIGKILL", .serverLane)
struct ServerCrashTests: ServerHarness {
    /// Rows of a query, each column as text ('' for NULL), read with SQLite itself.
    static func rows(_ path: String, _ sql: String) throws -> [[String]] {
        var db: OpaquePointer?
        defer { sqlite3_close(db) }
        guard openWithSQLite(path, &db, flags: SQLITE_OPEN_READONLY) == SQLITE_OK else { throw StoreFileTests.SQLiteFailure(message: "open \(path)") }
        sqlite3_busy_timeout(db, 10_000)
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK else {
            throw StoreFileTests.SQLiteFailure(message: String(cString: sqlite3_errmsg(db)))
        }
        defer { sqlite3_finalize(statement) }
        var rows: [[String]] = []
        while sqlite3_step(statement) == SQLITE_ROW {
            rows.append((0..<sqlite3_column_count(statement)).map { column in
                sqlite3_column_text(statement, column).map { String(cString: $0) } ?? ""
            })
        }
        return rows
    }

    @Test("A storefront process killed with SIGKILL amid purchases and renewals loses no notification, and none is sent twice")
    func killedMidEvent() async throws {
        let setup = try await setup()
        let binary = try #require(Binary.url)
        let accounts = (1...5).map { "tester\($0)" }
        for account in accounts {
            for product in ["monthly", "plus.monthly"] {
                try await setup.sandbox.storefront(["buy", product, "--account", account], catalog: setup.catalog).expect(exit: 0)
            }
        }
        // Kill each at a random moment: still starting, amid its write (rolled back whole), or
        // after it (two subscriptions for each of five accounts: 120 renewals a year), or amid
        // a purchase. Kept light: the other suites run beside this one. A process can finish
        // before its moment comes (a purchase takes a few tens of milliseconds): the windows
        // narrow after each that did, and while none was killed, more rounds kill while it starts.
        var killed = 0, killedAfterCommitting = 0
        var windows = [800, 400]  // ms: for a clock advance, for a purchase
        let count = { () throws -> Int in Int(try Self.rows(setup.sandbox.store, "SELECT count(*) FROM transactions")[0][0]) ?? 0 }
        for round in 0..<16 where round < 8 || killed == 0 {
            let before = try count()
            let work = round % 2 == 0 ? ["clock", "advance", "P1Y"] : ["buy", "coins", "--account", accounts[round % accounts.count]]
            let pid = try #require(Processes.spawn([binary.path, "--catalog", setup.catalog, "--store", setup.sandbox.store] + work,
                                                   environment: ["PATH": "/usr/bin:/bin", "HOME": setup.sandbox.home],
                                                   stdout: "/dev/null", stderr: "/dev/null"))
            try await Task.sleep(for: .milliseconds(round < 8 ? Int.random(in: 1...windows[round % 2]) : 2))
            let wasRunning = Processes.isRunning(pid)
            if !wasRunning { windows[round % 2] = max(2, windows[round % 2] / 2) }
            if wasRunning { kill(pid, SIGKILL) }
            let ending = await Processes.exit(of: pid)
            if wasRunning, ending.signal != nil {
                killed += 1
                // It had committed some of its work when it died.
                if try count() > before { killedAfterCommitting += 1 }
            }
        }
        // What the kills left due is made by the next process, as after any crash.
        try await setup.sandbox.storefront(["clock", "advance", "PT1M"], catalog: setup.catalog).expect(exit: 0)

        let store = setup.sandbox.store
        // Every committed transaction has exactly the one notification its event makes.
        let kinds = "'SUBSCRIBED', 'DID_RENEW', 'ONE_TIME_CHARGE', 'DID_CHANGE_RENEWAL_PREF'"
        let wrong = try Self.rows(store, """
            SELECT t.id, t.product_id, t.reason, count(n.id) FROM transactions t
            LEFT JOIN notifications n ON n.transaction_id = t.id AND n.type IN (\(kinds))
            WHERE t.status = 'purchased' GROUP BY t.id HAVING count(n.id) != 1
            """)
        #expect(wrong.isEmpty, "transactions without their notification, or with two: \(wrong)")
        let transactions = try Self.rows(store, "SELECT count(*) FROM transactions WHERE status = 'purchased'")[0][0]
        let notifications = try Self.rows(store, "SELECT uuid FROM notifications").map { $0[0] }
        let renewals = try Self.rows(store, "SELECT count(*) FROM transactions WHERE reason = 'renew'")[0][0]
        #expect(Int(renewals) ?? 0 > 0, "no renewal was made")
        #expect(killed > 0, "no process was killed")
        #expect(Set(notifications).count == notifications.count)
        #expect(notifications.count >= Int(transactions) ?? 0)

        // And the receiver gets each once.
        let log = setup.sandbox.path("received.jsonl")
        // The uuids only (verifying hundreds of signatures in Python takes long): the other
        // tests decode every kind of notification with Apple's library.
        let receiver = try startReceiver(setup, log: log, countOnly: true)
        let receiverPort = try await receiver.wait(for: #"listening (\d+)"#)
        let server = try startServer(setup, notify: ["http://127.0.0.1:\(receiverPort)/"])
        _ = try await port(of: server)
        let got = try await received(log, count: notifications.count, seconds: 90)
        #expect(got.count >= notifications.count, "not all received in 90 s")
        // One more after: once it is in, anything sent twice before it would be in too.
        try await setup.sandbox.storefront(["buy", "pro", "--account", accounts[0]], catalog: setup.catalog).expect(exit: 0)
        let all = try Self.rows(store, "SELECT uuid FROM notifications").map { $0[0] }
        #expect(all.count > notifications.count)
        let again = try await received(log, count: all.count, seconds: 30)
        #expect(again.compactMap { $0["uuid"] as? String }.sorted() == all.sorted(), "lost or sent twice")
        await server.stop()
        await receiver.stop()
        print("killedMidEvent: \(killed) processes killed (\(killedAfterCommitting) after committing part of their work), \(transactions) transactions (\(renewals) renewals), \(notifications.count) notifications, all received once")
    }
}
