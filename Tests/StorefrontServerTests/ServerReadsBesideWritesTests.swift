import Foundation
import Testing
@testable import StorefrontServer
import StoreEngine
import TestSupport

/// `serve`'s reads beside its writes: a write that waits for the store's lock (held by another
/// process) holds up no read.
@Suite("AppStoreServer: reads beside a waiting write")
struct ServerReadsBesideWritesTests {
    /// Another process holds the write lock; a test notification's request waits for it. Reads
    /// answer meanwhile, while the lock is still held (on one connection they queued behind the
    /// waiting write: 13.5 s for a history read), and the write succeeds once the lock is let go.
    @Test("a write waiting for another process's lock holds up no read; it succeeds after")
    func readsDoNotQueueBehindAWaitingWrite() async throws {
        // Off Swift's shared pool: in a full parallel run the pool's two threads can be held for
        // tens of seconds by other tests' work, and a read starved that long ends after the
        // write's 30 s busy timeout, as if it had queued behind it (CI, 2026-12-07).
        try await withTaskExecutorPreference(OffPoolExecutor.shared) { try await readsBesideAWaitingWrite() }
    }

    private func readsBesideAWaitingWrite() async throws {
        let fixture = try await ServerAPITests.Fixture()
        let bought = try await fixture.buy("coins")
        let token = try fixture.token()
        let holder = try SQLiteDatabase(path: fixture.store.path, create: false)
        try holder.execute("BEGIN IMMEDIATE")
        let write = Task(executorPreference: OffPoolExecutor.shared) {
            await fixture.server.respond(to: HTTPRequest(method: "POST", path: "/inApps/v1/notifications/test",
                                                         headers: ["Authorization": "Bearer \(token)"]))
        }
        try await Task.sleep(for: .milliseconds(300))  // the write is waiting for the lock now
        // The reads must end while the lock is still held: behind the waiting write they would
        // end only when it gave up (its busy timeout), and then the write below fails.
        var statuses: [Int] = []
        for path in ["/inApps/v1/transactions/\(bought.id)", "/inApps/v2/history/\(bought.id)",
                     "/inApps/v1/subscriptions/\(bought.id)"] {
            statuses.append(await fixture.server.respond(to: HTTPRequest(method: "GET", path: path,
                                                                          headers: ["Authorization": "Bearer \(token)"])).status)
        }
        try holder.execute("ROLLBACK")
        // Transaction info and history: 200; statuses of a consumable's id: Apple's 4040005-style refusal, not a hang.
        #expect(statuses[0] == 200 && statuses[1] == 200, "\(statuses)")
        #expect(await write.value.status == 200, "the write gave up waiting: the reads were behind it")
    }
}
