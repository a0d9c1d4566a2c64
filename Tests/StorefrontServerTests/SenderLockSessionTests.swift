import Foundation
import Synchronization
import Testing
@testable import StorefrontServer
import StoreEngine
import TestSupport

/// The sender lock of `serve` replicas on a store in PostgreSQL: a session advisory lock, which
/// the server drops with the session, whether or not the holding process lives on.
@Suite("AppStoreServer: the sender lock's session on PostgreSQL")
struct SenderLockSessionTests {
    /// The sending replica's lock session is ended from outside (a restarted server or a network
    /// cut would do the same) while its process lives: it stops sending and says so, and the
    /// other replica takes over. It sent on before, beside the one that took over: every
    /// notification twice.
    @Test("the sender's lock session ends while it lives: it stops sending, and the other replica takes over")
    func lostSessionHandsOver() async throws {
        let cluster = try PostgreSQLServer.shared()
        let uri = try cluster.freshSchema(named: "sender_session")
        let schema = try #require(uri.split(separator: "%3D").last.map(String.init))
        let catalog = try Catalog.parse(Array(ServerAPITests.catalogText.utf8), file: "catalog.json")
        let lines = Mutex<[String]>([])
        let first = AppStoreServer(store: try Store(catalog: catalog, path: uri), notifyURLs: [],
                                   log: { line in lines.withLock { $0.append(line) } })
        let second = AppStoreServer(store: try Store(catalog: catalog, path: uri), notifyURLs: [], log: { _ in })
        try await first.start(listen: ListenAddress("127.0.0.1:0")!)
        try await second.start(listen: ListenAddress("127.0.0.1:0")!)
        #expect(first.isSending && !second.isSending)

        // The session holding this store's sender lock, ended by the server.
        let ended = try cluster.psql("""
            SELECT count(pg_terminate_backend(pid)) FROM pg_locks
            WHERE locktype = 'advisory' AND granted AND classid = \(PostgreSQLStoreConnection.LockClass.sender.rawValue)
              AND objid = ((hashtext('\(schema)')::bigint + 4294967296) % 4294967296)::oid
            """, database: PostgreSQLServer.schemasDatabase)
        #expect(ended.trimmingCharacters(in: .whitespacesAndNewlines) == "1")
        _ = await eventually { !first.isSending && second.isSending }
        #expect(!first.isSending && second.isSending, "one sender after the session ended")
        #expect(lines.withLock { $0 }.contains { $0.hasPrefix("stopped sending notifications: the sender lock was lost") })
        await first.stop()
        await second.stop()
    }
}
