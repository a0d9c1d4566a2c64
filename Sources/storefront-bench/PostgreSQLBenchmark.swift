import Dispatch
import Foundation
import StoreEngine
import Synchronization
import TestSupport

/// Figures 14–14c: a store in PostgreSQL (a team's sandbox), each beside PostgreSQL's own rate
/// or latency measured on the same server in the same run: durable purchases with 1 and 8
/// writers beside plain `INSERT … COMMIT`s, Get Transaction Info from two `serve` replicas beside
/// one on a file, and another connection's commit reaching `Transaction.updates`' feed beside a
/// bare `NOTIFY` reaching a `LISTEN`. The server is the
/// tests' kind: a throwaway cluster on a Unix socket (TestSupport's `PostgreSQLServer`).
enum PostgreSQLBenchmark {
    static func figures(_ catalog: Catalog, catalogPath: String, binary: String, work: String,
                        progress: (String) -> Void) async throws -> [Figure] {
        let server = try PostgreSQLServer.shared()
        guard let consumable = catalog.products.first(where: { $0.type == .consumable })?.id else {
            throw PseudoTerminal.Failure(description: "the catalog has no consumable")
        }
        progress("14. PostgreSQL: durable purchases with 1 and 8 writers, beside INSERT … COMMIT; 3 rounds of 2 s")
        var one: [Double] = [], eight: [Double] = [], inserts: [Double] = [], inserts8: [Double] = []
        for _ in 0..<3 {
            inserts.append(try insertsPerSecond(server, writers: 1, duration: .seconds(2)))
            one.append(try await purchasesPerSecond(server, catalog, consumable, writers: 1, duration: .seconds(2)))
            inserts8.append(try insertsPerSecond(server, writers: 8, duration: .seconds(2)))
            eight.append(try await purchasesPerSecond(server, catalog, consumable, writers: 8, duration: .seconds(2)))
        }
        progress("14c. PostgreSQL: another connection's purchase on the feed, beside NOTIFY → LISTEN; 50 each")
        let (feed, notify) = try await latencies(server, catalog, consumable, count: 50)
        progress("14b. PostgreSQL: Get Transaction Info with two serve replicas and with one, beside one on a file; 3 rounds of 2 s")
        let info = try await transactionInfoRates(server, catalog, catalogPath: catalogPath, binary: binary, work: work)
        let rates = (median(one), median(eight), median(inserts), median(inserts8))
        return [
            Figure(number: "14", measure: "PostgreSQL: durable purchases per second, 1 writer",
                   value: String(format: "%.0f /s", rates.0), baseline: String(format: "INSERT … COMMIT %.0f /s", rates.2),
                   ratio: rates.0 / rates.2, goal: "", met: nil),
            Figure(number: "14a", measure: "PostgreSQL: durable purchases per second, 8 writers (one store)",
                   value: String(format: "%.0f /s", rates.1), baseline: String(format: "INSERT … COMMIT, 8 connections %.0f /s", rates.3),
                   ratio: rates.1 / rates.3, goal: "", met: nil),
            Figure(number: "14b", measure: "PostgreSQL: Get Transaction Info per second, two serve replicas (\(ServerBenchmark.clients) clients)",
                   value: String(format: "%.0f /s", info.twoReplicas),
                   baseline: String(format: "one serve on a file %.0f /s (one replica on PostgreSQL %.0f /s)", info.file, info.oneReplica),
                   ratio: info.twoReplicas / info.file, goal: "", met: nil),
            Figure(number: "14c", measure: "PostgreSQL: another connection's purchase reaches the change feed (median of 50)",
                   value: String(format: "%.1f ms", feed), baseline: String(format: "NOTIFY → LISTEN %.2f ms", notify),
                   ratio: feed / max(notify, 0.001), goal: "≤ 10 ms", met: feed <= 10),
        ]
    }

    /// Consumable purchases per second on a fresh store, by `writers` stores (a connection each) at once.
    static func purchasesPerSecond(_ server: PostgreSQLServer, _ catalog: Catalog, _ product: String, writers: Int,
                                   duration: Duration) async throws -> Double {
        let uri = try server.freshSchema(named: "bench_purchases")
        let stores = try (0..<writers).map { _ in try Store(catalog: catalog, path: uri) }
        for store in stores { _ = try await store.app.purchase(product) }  // accounts made; not counted
        let start = ContinuousClock.now
        let count = try await withThrowingTaskGroup(of: Int.self) { group in
            for store in stores {
                group.addTask {
                    var made = 0
                    while ContinuousClock.now - start < duration {
                        guard case .purchased = try await store.app.purchase(product) else {
                            throw PseudoTerminal.Failure(description: "a benchmark purchase did not succeed")
                        }
                        made += 1
                    }
                    return made
                }
            }
            return try await group.reduce(0, +)
        }
        return Double(count) / (ContinuousClock.now - start).seconds
    }

    /// Get Transaction Info per second (figure 10's load) from two `serve` replicas on one store
    /// in PostgreSQL (the clients split between them), from one, and from one on a file.
    static func transactionInfoRates(_ server: PostgreSQLServer, _ catalog: Catalog, catalogPath: String, binary: String,
                                     work: String) async throws -> (twoReplicas: Double, oneReplica: Double, file: Double) {
        let uri = try server.freshSchema(named: "bench_replicas")
        let request = try await ServerBenchmark.transactionInfoRequest(store: uri, catalog: catalog)
        let file = work + "/replicas-baseline.sqlite"
        for suffix in ["", "-wal", "-shm"] { unlink(file + suffix) }
        let fileRequest = try await ServerBenchmark.transactionInfoRequest(store: file, catalog: catalog)
        let replicas = try (0..<2).map { _ in try ServerBenchmark.serve(binary, store: uri, catalogPath: catalogPath, work: work) }
        let alone = try ServerBenchmark.serve(binary, store: file, catalogPath: catalogPath, work: work)
        defer {
            for replica in replicas { replica.stop() }
            alone.stop()
        }
        var two: [Double] = [], one: [Double] = [], onFile: [Double] = []
        for _ in 0..<3 {
            onFile.append(try ServerBenchmark.load(ports: [alone.port], request: fileRequest, duration: .seconds(2)).perSecond)
            two.append(try ServerBenchmark.load(ports: replicas.map(\.port), request: request, duration: .seconds(2)).perSecond)
            one.append(try ServerBenchmark.load(ports: [replicas[0].port], request: request, duration: .seconds(2)).perSecond)
        }
        return (median(two), median(one), median(onFile))
    }

    /// One-row `INSERT`s, each its own committed transaction, per second, by `writers` connections at once.
    static func insertsPerSecond(_ server: PostgreSQLServer, writers: Int, duration: Duration) throws -> Double {
        let uri = try server.freshSchema(named: "bench_inserts")
        let setup = try PostgreSQLConnection(uri)
        try setup.execute("CREATE TABLE rows (id BIGSERIAL PRIMARY KEY, payload TEXT NOT NULL)")
        let payload = String(repeating: "x", count: 256)
        let counts = Mutex<[Int]>([])
        let errors = Mutex<[String]>([])
        let start = ContinuousClock.now
        DispatchQueue.concurrentPerform(iterations: writers) { _ in
            do {
                let connection = try PostgreSQLConnection(uri)
                var made = 0
                while ContinuousClock.now - start < duration {
                    try connection.query("INSERT INTO rows (payload) VALUES ($1)", [payload])
                    made += 1
                }
                counts.withLock { $0.append(made) }
            } catch {
                errors.withLock { $0.append("\(error)") }
            }
        }
        if let error = errors.withLock({ $0.first }) { throw PseudoTerminal.Failure(description: error) }
        return Double(counts.withLock { $0.reduce(0, +) }) / (ContinuousClock.now - start).seconds
    }

    /// Medians, in ms: a purchase by a second store, from its return to the first store's feed
    /// hearing it; and a bare `NOTIFY` from one connection to another's `LISTEN`.
    static func latencies(_ server: PostgreSQLServer, _ catalog: Catalog, _ product: String,
                          count: Int) async throws -> (feed: Double, notify: Double) {
        let uri = try server.freshSchema(named: "bench_latency")
        let watcher = try Store(catalog: catalog, path: uri)
        let buyer = try Store(catalog: catalog, path: uri)
        _ = try await buyer.app.purchase(product)
        let heard = Heard()
        let stream = watcher.changes.changes(includingUnfinished: false)
        let listening = Task { for await change in stream { heard.versions.withLock { $0.append((change.dataVersion, .now)) } } }
        defer { listening.cancel() }
        while heard.versions.withLock({ $0.isEmpty }) { try await Task.sleep(for: .milliseconds(1)) }
        var feed: [Double] = []
        for _ in 0..<count {
            let before = heard.versions.withLock { $0.last?.version ?? 0 }
            _ = try await buyer.app.purchase(product)
            let bought = ContinuousClock.now
            let deadline = bought + .seconds(5)
            while ContinuousClock.now < deadline {
                if let arrived = heard.versions.withLock({ $0.last(where: { $0.version > before })?.at }) {
                    feed.append(max(0, (arrived - bought).milliseconds))
                    break
                }
                try await Task.sleep(for: .microseconds(100))
            }
        }
        let sender = try PostgreSQLConnection(uri), listener = try PostgreSQLConnection(uri)
        try listener.listen("bench")
        var notify: [Double] = []
        for _ in 0..<count {
            let sent = ContinuousClock.now
            try sender.notify(channel: "bench", payload: "x")
            if !(try listener.notifications(timeout: .seconds(5))).isEmpty { notify.append((ContinuousClock.now - sent).milliseconds) }
        }
        guard !feed.isEmpty, !notify.isEmpty else { throw PseudoTerminal.Failure(description: "no change reached the feed") }
        return (median(feed), median(notify))
    }

    /// The data versions the watcher's feed handed out, with when.
    private final class Heard: Sendable {
        let versions = Mutex<[(version: Int64, at: ContinuousClock.Instant)]>([])
    }
}
