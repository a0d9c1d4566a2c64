import Foundation
import Synchronization
import Testing
@testable import StorefrontServer
import StoreEngine

/// `serve`'s reads beside its writes: a write that waits for the store's lock (held by another
/// process) holds up no read.
@Suite("AppStoreServer: reads beside a waiting write")
struct ServerReadsBesideWritesTests {
    /// Another process holds the write lock; a test notification's request waits for it. Reads
    /// answer meanwhile, while the lock is still held (on one connection they queued behind the
    /// waiting write: 13.5 s for a history read), and the write succeeds once the lock is let go.
    @Test("a write waiting for another process's lock holds up no read; it succeeds after")
    func readsDoNotQueueBehindAWaitingWrite() async throws {
        let fixture = try await ServerAPITests.Fixture()
        let bought = try await fixture.buy("coins")
        let token = try fixture.token()
        let holder = try SQLiteDatabase(path: fixture.store.path, create: false)
        try holder.execute("BEGIN IMMEDIATE")
        let write = Task {
            await fixture.server.respond(to: HTTPRequest(method: "POST", path: "/inApps/v1/notifications/test",
                                                         headers: ["Authorization": "Bearer \(token)"]))
        }
        try await Task.sleep(for: .milliseconds(300))  // the write is waiting for the lock now
        let reads = Task {
            var statuses: [Int] = []
            for path in ["/inApps/v1/transactions/\(bought.id)", "/inApps/v2/history/\(bought.id)",
                         "/inApps/v1/subscriptions/\(bought.id)"] {
                statuses.append(await fixture.server.respond(to: HTTPRequest(method: "GET", path: path,
                                                                              headers: ["Authorization": "Bearer \(token)"])).status)
            }
            return statuses
        }
        // The reads must end while the lock is still held. No tight deadline (a loaded machine
        // may starve this task for seconds): behind the waiting write they would end only when
        // it gave up (its busy timeout), and then the write below fails.
        let deadline = ContinuousClock.now + .seconds(60)
        let answeredBeforeRelease = Atomic(false)
        let watcher = Task {
            _ = await reads.value
            answeredBeforeRelease.store(true, ordering: .sequentiallyConsistent)
        }
        while !answeredBeforeRelease.load(ordering: .sequentiallyConsistent), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        let answered = answeredBeforeRelease.load(ordering: .sequentiallyConsistent)
        try holder.execute("ROLLBACK")
        await watcher.value
        #expect(answered, "the reads waited for the lock another process held")
        // Transaction info and history: 200; statuses of a consumable's id: Apple's 4040005-style refusal, not a hang.
        let statuses = await reads.value
        #expect(statuses[0] == 200 && statuses[1] == 200, "\(statuses)")
        #expect(await write.value.status == 200, "the write gave up waiting: the reads were behind it")
    }
}
