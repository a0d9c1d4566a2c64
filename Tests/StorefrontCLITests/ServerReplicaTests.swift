import Foundation
import Testing

/// Two `serve` replicas on one store in PostgreSQL, one receiver: one replica sends, the other
/// answers the API and takes over when the sender is SIGKILLed; no notification is lost.
@Suite("storefront serve: replicas on a PostgreSQL store", .serverLane)
struct ServerReplicaTests: ServerHarness {
    @Test("the sending replica SIGKILLed amid purchases: the other takes over and every notification arrives")
    func senderKilled() async throws {
        let setup = try await setup(store: try PostgreSQLServer.shared().freshSchema(named: "replicas"))
        let log = setup.sandbox.path("received.jsonl")
        let receiver = try startReceiver(setup, log: log, countOnly: true)
        let receiverPort = try await receiver.wait(for: #"listening (\d+)"#)
        let notify = ["http://127.0.0.1:\(receiverPort)/"]
        let first = try startServer(setup, notify: notify)
        _ = try await port(of: first)
        let second = try startServer(setup, notify: notify)
        _ = try await port(of: second)
        // Exactly one of them sends; the other says so and serves the API only.
        let (sender, standby) = first.text.contains("not sending") ? (second, first) : (first, second)
        #expect(standby.text.contains("not sending notifications"))
        #expect(!sender.text.contains("not sending"))

        for index in 0..<4 {
            try await setup.sandbox.storefront(["buy", "coins", "--account", "tester\(index)"], catalog: setup.catalog).expect(exit: 0)
        }
        _ = try await received(log, count: 4, seconds: 30)
        kill(sender.pid, SIGKILL)
        _ = await Processes.exit(of: sender.pid)
        for index in 4..<8 {
            try await setup.sandbox.storefront(["buy", "coins", "--account", "tester\(index)"], catalog: setup.catalog).expect(exit: 0)
        }
        _ = try await standby.wait(for: #"(now sending) notifications"#, seconds: 30)
        let recorded = try await recorded(setup).compactMap { $0["notificationUUID"] as? String ?? $0["uuid"] as? String }
        #expect(recorded.count == 8)
        let got = try await received(log, count: recorded.count, seconds: 60)
        let uuids = got.compactMap { $0["uuid"] as? String }
        // At least once, as Apple's delivery: the killed replica may have sent one whose
        // success it had not recorded yet, which the other sends again.
        #expect(Set(uuids) == Set(recorded), "lost: \(Set(recorded).subtracting(uuids))")
        #expect(uuids.count <= recorded.count + 1)
        await standby.stop()
        await receiver.stop()
    }
}
