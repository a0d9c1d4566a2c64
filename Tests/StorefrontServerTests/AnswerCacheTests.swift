import Foundation
import Synchronization
import Testing
@testable import StorefrontServer
import StoreEngine

/// Get Transaction Info's answer cache: never an answer older than the store once a commit is
/// visible, however the requests and the commit interleave.
@Suite("AnswerCache")
struct AnswerCacheTests {
    /// Another process refunds while a client asks for the transaction as fast as it can: once
    /// the refund has returned, the very next answer shows it, every time. (Keyed on the file's
    /// `stat`, an answer read while the commit was being made outlived it: 4–7 of 10 stayed
    /// unrefunded until the next write.)
    @Test("a refund committed by another process while a client asks: the next answer shows it, ten times of ten")
    func refundDuringRequestsIsNeverStale() async throws {
        let fixture = try await ServerAPITests.Fixture()
        let other = try Store(catalog: fixture.store.catalog, path: fixture.store.path, now: fixture.clock.closure)
        let token = try fixture.token()
        var stale: [Int64] = []
        for _ in 0..<10 {
            let bought = try await fixture.buy("coins")
            let request = HTTPRequest(method: "GET", path: "/inApps/v1/transactions/\(bought.id)",
                                      headers: ["Authorization": "Bearer \(token)"])
            let asking = Atomic(true)
            let asked = Atomic(0)
            // A client of its own thread, asking in a loop while the refund commits.
            let client = Thread { [server = fixture.server] in
                let done = DispatchSemaphore(value: 0)
                while asking.load(ordering: .relaxed) {
                    Task { _ = await server.respond(to: request); done.signal() }
                    done.wait()
                    asked.add(1, ordering: .relaxed)
                }
            }
            client.start()
            while asked.load(ordering: .relaxed) < 20 { try await Task.sleep(for: .milliseconds(1)) }
            _ = try await other.appStore.refund(bought.id)
            let answer = await fixture.server.respond(to: request)
            asking.store(false, ordering: .relaxed)
            let info = try ServerAPITests.payload(try ServerAPITests.object(answer)["signedTransactionInfo"])
            if info["revocationDate"] == nil { stale.append(bought.id) }
        }
        #expect(stale.isEmpty, "answered unrefunded after the refund: \(stale)")
    }

    /// The cache answers a repeated request without the store while nothing is committed, and
    /// stops as soon as anything is: by this process, or another.
    @Test("unchanged store: kept answers; any commit, ours or another process's: the version moves")
    func versionMovesWithEveryCommit() async throws {
        let fixture = try await ServerAPITests.Fixture()
        let cache = try #require(AnswerCache(store: .file(fixture.store.path)))
        let first = try #require(cache.state())
        #expect(cache.state() == first)
        _ = try await fixture.buy("coins")
        let afterOurs = try #require(cache.state())
        #expect(afterOurs != first)
        let other = try Store(catalog: fixture.store.catalog, path: fixture.store.path, now: fixture.clock.closure)
        _ = try await other.app.buy("coins")
        #expect(cache.state() != afterOurs)
    }
}
