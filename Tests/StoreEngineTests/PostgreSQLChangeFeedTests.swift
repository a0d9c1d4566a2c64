import Foundation
import Testing
import TestSupport
@testable import StoreEngine

/// The change feed of a store in PostgreSQL across a server restart: its listener's connection
/// is lost, the feed polls the store's version and listens again, and a purchase made after the
/// restart still reaches the subscriber. Its own cluster: restarting the run's would break the
/// tests beside it.
@Suite("change feed on PostgreSQL", .postgreSQLOnly)
struct PostgreSQLChangeFeedTests {
    @Test("after the server restarts, another connection's purchase still reaches a subscriber")
    func restartedServer() async throws {
        // Starting and restarting a cluster block for seconds: off Swift's shared pool.
        let server = try await onOwnThread { try PostgreSQLServer.start() }
        defer { server.stop() }
        let catalog = try fixtureCatalog()
        let clock = TestClock(fixtureStart)
        let store = try Store(catalog: catalog, path: server.uri(), now: clock.closure)
        let heard = StreamLog(store.changes.changes())
        func waitFor(_ what: String, _ matches: (StoreChange) -> Bool) async -> StoreChange? {
            guard let found = await heard.first(within: .seconds(20), matches) else {
                Issue.record("never heard \(what)")
                return nil
            }
            return found.value
        }
        // The first value, whatever its cause: a first look may itself write (a row's verified mark)
        // and hand that change out first.
        let first = await waitFor("the first value") { _ in true }
        let before = try #require(first).dataVersion
        try await onOwnThread { try server.restart() }
        let other = try Store(catalog: catalog, path: server.uri(), now: clock.closure)
        _ = try await buy(other, "coins")
        let after = await waitFor("the purchase made after the restart") { $0.dataVersion > before }
        #expect(after != nil)
        #expect(try await store.app.snapshot().balances["coins"] == 1)
    }

    @Test("while the server is down, the feed looks again less and less often, not in a loop")
    func serverDown() async throws {
        let server = try await onOwnThread { try PostgreSQLServer.start() }
        let store = try Store(catalog: try fixtureCatalog(), path: server.uri(), now: TestClock(fixtureStart).closure)
        try await onOwnThread { server.stop() }
        // A subscriber waits for its first value, which no look can make while the server is down.
        let heard = StreamLog(store.changes.changes())
        try await Task.sleep(for: .seconds(3))
        let reads = store.changes.reads
        // Backing off from 10 ms to at most a second: about ten looks in three seconds (a connection
        // refused takes a few ms, so a loop would make hundreds).
        #expect(reads >= 3 && reads <= 15, "\(reads) looks in 3 s")
        _ = heard
    }
}
