import Foundation
import Synchronization
import Testing
@testable import StoreEngine

/// The change feed of a store in PostgreSQL across a server restart: its listener's connection
/// is lost, the feed polls the store's version and listens again, and a purchase made after the
/// restart still reaches the subscriber. Its own cluster: restarting the run's would break the
/// tests beside it.
@Suite("change feed on PostgreSQL", .postgreSQLOnly)
struct PostgreSQLChangeFeedTests {
    @Test("after the server restarts, another connection's purchase still reaches a subscriber")
    func restartedServer() async throws {
        let server = try PostgreSQLServer.start()
        defer { server.stop() }
        let catalog = try fixtureCatalog()
        let clock = TestClock(fixtureStart)
        let store = try Store(catalog: catalog, path: server.uri(), now: clock.closure)
        let heard = Heard()
        let stream = store.changes.changes()
        let task = Task { for await change in stream { heard.changes.withLock { $0.append(change) } } }
        defer { task.cancel() }
        func waitFor(_ what: String, _ matches: @escaping (StoreChange) -> Bool) async -> StoreChange? {
            let deadline = ContinuousClock.now + .seconds(20)
            while ContinuousClock.now < deadline {
                if let found = heard.changes.withLock({ $0.first(where: matches) }) { return found }
                try? await Task.sleep(for: .milliseconds(10))
            }
            Issue.record("never heard \(what)")
            return nil
        }
        // The first value, whatever its cause: a first look may itself write (a row's verified mark)
        // and hand that change out first.
        let first = await waitFor("the first value") { _ in true }
        let before = try #require(first).dataVersion
        try server.restart()
        let other = try Store(catalog: catalog, path: server.uri(), now: clock.closure)
        _ = try await buy(other, "coins")
        let after = await waitFor("the purchase made after the restart") { $0.dataVersion > before }
        #expect(after != nil)
        #expect(try await store.app.snapshot().balances["coins"] == 1)
    }
}

/// What a subscriber heard, shared with the task that listens.
private final class Heard: Sendable {
    let changes = Mutex<[StoreChange]>([])
}
