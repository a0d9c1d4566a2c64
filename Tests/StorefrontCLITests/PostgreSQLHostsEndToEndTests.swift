import Foundation
import Testing

/// A team's store seen from several machines: test hosts in network namespaces (``NetworkHosts``),
/// each reaching a cluster of its own over TCP, as testers' laptops and CI runners reach the
/// team's PostgreSQL. Needs root, as CI runs the tests.
@Suite("storefront on a PostgreSQL store, from three hosts", .enabled(if: NetworkHosts.unavailableBecause == nil))
struct PostgreSQLHostsEndToEndTests {
    /// Three hosts and a cluster they reach over TCP; a new database for the test. Made on a
    /// thread of its own: initdb blocks for seconds.
    private static func team() async throws -> (hosts: NetworkHosts, server: PostgreSQLServer, store: String) {
        try await onOwnThread {
            let hosts = try NetworkHosts(count: 3)
            let server = try PostgreSQLServer.start(tcp: hosts.serverAddress)
            try server.createDatabase("team")
            return (hosts, server, try server.uriOverTCP(database: "team"))
        }
    }

    /// Ten processes on three hosts buy one non-consumable at once: bought once, the other nine
    /// told they own it; then ten buy a consumable at once: every id unique across hosts.
    @Test("a non-consumable raced by ten processes on three hosts is bought once, the others told it is owned; ids unique across hosts")
    func tenProcessesOnThreeHostsBuyOnce() async throws {
        let (hosts, server, store) = try await Self.team()
        defer { server.stop() }
        let sandbox = try Sandbox(store: store)
        try await sandbox.storefront(["settings", "set", "includeConsumablesInHistory", "true"], on: hosts.hosts[0]).expect(exit: 0)
        typealias Race = PostgreSQLStoreEndToEndTests
        try Race.expectBoughtOnce(try await Race.race(Race.nonConsumable) { index, id in
            try await sandbox.storefront(["buy", id, "--json"], on: hosts.hosts[index % 3])
        })
        try Race.expectEachBought(try await Race.race(Race.consumable) { index, id in
            try await sandbox.storefront(["buy", id, "--json"], on: hosts.hosts[index % 3])
        })
        // Each reached the store across the network, from its host's own address.
        for host in hosts.hosts {
            #expect(server.log.contains("connection received: host=\(host.address) "), "\(host.address) never connected")
        }
        try await Race.expectStoreHolds(try await sandbox.storefront(["transactions", "--json"], on: hosts.hosts[2]))
    }

    /// A tester's paywall on one host hears another host's approval without a key pressed:
    /// LISTEN/NOTIFY across the network, as inotify for a file.
    @Test("a paywall on one host hears another host's approval live")
    func paywallHearsAnotherHost() async throws {
        let (hosts, server, store) = try await Self.team()
        defer { server.stop() }
        let sandbox = try Sandbox(store: store)
        try await sandbox.storefront(["settings", "set", "askToBuy", "true"], on: hosts.hosts[1]).expect(exit: 0)
        let title = try await PostgreSQLStoreEndToEndTests.approvalHeardLive(sandbox, paywallHost: hosts.hosts[0],
                                                                             approveHost: hosts.hosts[1])
        // The title names the database, as for a store on this machine.
        #expect(title.contains("Storefront · PostgreSQL team ·"), "\(title)")
    }
}
