import Foundation
import Testing

/// Two `serve` replicas on one store in PostgreSQL, one receiver: one replica sends, the other
/// answers the API and takes over when the sender is SIGKILLed; no notification is lost.
@Suite("storefront serve: replicas on a PostgreSQL store", .serverLane)
struct ServerReplicaTests: ServerHarness {
    @Test("the sending replica SIGKILLed amid purchases: the other takes over and every notification arrives")
    func senderKilled() async throws {
        try await senderKilledAmidPurchases(store: try PostgreSQLServer.shared().freshSchema(named: "replicas"))
    }

    /// The same with each replica on a host of its own (``NetworkHosts``), the store and the
    /// receiver reached over the network, as a staging backend's replicas on two machines.
    @Test("replicas on two hosts: the sender SIGKILLed, the other host's replica takes over, nothing lost",
          .enabled(if: NetworkHosts.unavailableBecause == nil))
    func senderKilledOnAnotherHost() async throws {
        // On a thread of its own: initdb blocks for seconds.
        let (hosts, server) = try await onOwnThread {
            let hosts = try NetworkHosts(count: 2)
            let server = try PostgreSQLServer.start(tcp: hosts.serverAddress)
            try server.createDatabase("team")
            return (hosts, server)
        }
        defer { server.stop() }
        try await senderKilledAmidPurchases(store: try server.uriOverTCP(database: "team"), hosts: hosts)
    }

    /// Two replicas (on `hosts`' first two, when given), four purchases, the sender killed, four more.
    private func senderKilledAmidPurchases(store: String, hosts: NetworkHosts? = nil) async throws {
        let setup = try await setup(store: store)
        let log = setup.sandbox.path("received.jsonl")
        let address = hosts?.serverAddress ?? "127.0.0.1"
        let receiver = try startReceiver(setup, log: log, address: address, countOnly: true)
        let receiverPort = try await receiver.wait(for: #"listening (\d+)"#)
        let notify = ["http://\(address):\(receiverPort)/"]
        let first = try startServer(setup, notify: notify, on: hosts?.hosts[0])
        _ = try await port(of: first)
        let second = try startServer(setup, notify: notify, on: hosts?.hosts[1])
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
