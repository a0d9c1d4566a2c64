import Foundation
import Glibc
import StoreEngine
// Only what StoreEngine does not name too (its Transaction would clash with StoreKit's).
import struct StorefrontKit.Transaction
import enum StorefrontKit.StorefrontKit

/// Figures 11 and 11a: another process commits a purchase, and this side timestamps the moment a
/// program sees it — `Transaction.updates` in this process, or the paywall's row redrawn in a
/// real `storefront` on a pseudo-terminal. Both clocks are CLOCK_MONOTONIC, one for the machine.
/// The baseline is the committer's own answer down a pipe, sent as the purchase returns: the
/// soonest another process can hear of anything, measured on the same rounds.
enum LatencyBenchmark {
    /// Products the latency runs buy, one a round: non-consumables, so each is a new row shown owned.
    static let rounds = 15

    /// A catalog of `rounds` + 5 non-consumables, all on one screen of the paywall.
    static func writeCatalog(to path: String) throws -> Catalog {
        let products = (0..<(rounds + 5)).map { index in
            #"{"id":"com.bench.latency\#(index)","type":"nonConsumable","displayName":"Latency Item \#(index + 1)","#
                + #""description":"Bought from another process","price":"0.99"}"#
        }
        let json = #"{"paywall":{"title":"Latency","subtitle":"rows bought elsewhere"},"products":[\#(products.joined(separator: ","))]}"#
        try json.write(toFile: path, atomically: true, encoding: .utf8)
        return try Catalog.load(contentsOf: path)
    }

    static func run(binary: String, benchBinary: String, work: String,
                    progress: (String) -> Void) async throws -> [Figure] {
        let catalogPath = work + "/latency-catalog.json"
        let catalog = try writeCatalog(to: catalogPath)
        let ids = catalog.products.map(\.id)

        progress("11. another process's commit → Transaction.updates in this process, \(rounds) rounds")
        let updates = try await withStore(work + "/latency-updates.sqlite", catalog: catalog) { path in
            try StorefrontKit.configure(catalog: catalogPath, store: path)
            let committer = try Committer(bench: benchBinary, catalog: catalogPath, store: path)
            defer { committer.stop() }
            let seen = Seen()
            let listener = Task {
                for await update in Transaction.updates {
                    seen.arrived(update.unsafePayloadValue.productID, at: Monotonic.now())
                }
            }
            defer { listener.cancel() }
            // The listener's first look (the store as it is) before the first commit.
            try await Task.sleep(for: .milliseconds(300))
            var times: [(seen: Duration, pipe: Duration)] = []
            for id in ids.prefix(rounds) {
                let committed = try committer.buy(id)
                let deadline = ContinuousClock.now + .seconds(10)
                while seen.time(of: id) == nil, ContinuousClock.now < deadline { try await Task.sleep(for: .microseconds(200)) }
                guard let at = seen.time(of: id) else { throw PseudoTerminal.Failure(description: "no update for \(id) in 10 s") }
                times.append((at - committed.after, committed.answered - committed.after))
                try await Task.sleep(for: .milliseconds(50))
            }
            return times
        }

        progress("11a. another terminal's commit → the paywall's row redrawn, \(rounds) rounds")
        let paywall = try await withStore(work + "/latency-paywall.sqlite", catalog: catalog) { path in
            try paywallRounds(binary: binary, bench: benchBinary, catalog: catalog, catalogPath: catalogPath,
                              store: path, home: work)
        }
        for (name, times) in [("11 updates", updates.map(\.seen)), ("11a paywall", paywall.map(\.seen))] {
            progress(name + ": " + times.sorted().map { String(format: "%.1f", $0.milliseconds) }.joined(separator: " ") + " ms")
        }
        let (updateTime, paintTime) = (median(updates.map(\.seen)), median(paywall.map(\.seen)))
        let floorTime = median(updates.map(\.pipe) + paywall.map(\.pipe))
        return [
            Figure(number: "11", measure: "Another process's commit → `Transaction.updates` in a program, median of \(rounds)",
                   value: milliseconds(updateTime), baseline: "pipe message " + milliseconds(floorTime),
                   ratio: updateTime / floorTime, goal: "value ≤ 10 ms", met: updateTime.milliseconds <= 10),
            Figure(number: "11a", measure: "Another terminal's commit → the paywall's row redrawn, median of \(rounds)",
                   value: milliseconds(paintTime), baseline: "pipe message " + milliseconds(floorTime),
                   ratio: paintTime / floorTime, goal: "value ≤ 50 ms", met: paintTime.milliseconds <= 50),
        ]
    }

    /// The paywall on a pseudo-terminal tall enough for every product: each round, a second process
    /// buys one, and the time is when the screen line with that product's name first differs.
    private static func paywallRounds(binary: String, bench: String, catalog: Catalog, catalogPath: String,
                                      store: String, home: String) throws -> [(seen: Duration, pipe: Duration)] {
        let environment = ["TERM": PaintBenchmark.term, "LANG": "C.UTF-8", "HOME": home, "PATH": "/usr/bin:/bin"]
        let session = try TerminalSession(binary, ["--catalog", catalogPath, "--store", store, "--latency", "0"],
                                          environment: environment, columns: PaintBenchmark.columns, rows: 48)
        defer { session.terminal.kill() }
        let names = catalog.products.prefix(rounds).map { $0.localization(for: "en_US").displayName + " " }
        _ = try session.wait(for: "every latency product on screen") { screen in names.allSatisfy(screen.contains) }
        session.settle()
        let committer = try Committer(bench: bench, catalog: catalogPath, store: store)
        defer { committer.stop() }
        var times: [(seen: Duration, pipe: Duration)] = []
        for (product, name) in zip(catalog.products.prefix(rounds), names) {
            guard let cell = session.screen.find(name) else {
                throw TerminalSession.Timeout(what: "\(name) on screen", screen: session.screen.lines)
            }
            let before = session.screen.lines[cell.row]
            let committed = try committer.buy(product.id)
            let redrawn = try session.wait(for: "the row of \(name) redrawn", timeout: .seconds(10)) { screen in
                screen.lines[cell.row] != before
            }
            times.append((Monotonic.at(redrawn) - committed.after, committed.answered - committed.after))
            session.settle(quiet: .milliseconds(150))
        }
        return times
    }

    private static func withStore<T>(_ path: String, catalog: Catalog, _ body: (String) async throws -> T) async throws -> T {
        let remove = { for suffix in ["", "-wal", "-shm"] { unlink(path + suffix) } }
        remove()
        defer { remove() }
        // Made (the account too) before the rounds, so no round pays for a new file.
        _ = try Store(catalog: catalog, path: path)
        return try await body(path)
    }

    /// The updates the listener saw: product id → when.
    private final class Seen: @unchecked Sendable {
        // Behind the lock.
        private var times: [String: Duration] = [:]
        private let lock = NSLock()
        func arrived(_ id: String, at time: Duration) { lock.withLock { if times[id] == nil { times[id] = time } } }
        func time(of id: String) -> Duration? { lock.withLock { times[id] } }
    }

    // MARK: - The second process

    /// `storefront-bench --committer CATALOG STORE`: reads product ids on standard input, buys each
    /// on its own store connection, and answers each with CLOCK_MONOTONIC nanoseconds before and
    /// after the purchase (committed, synchronous=FULL, when it returns).
    static func committerMain(catalogPath: String, storePath: String) -> Never {
        let finished = DispatchSemaphore(value: 0)
        Task.detached {
            do {
                let store = try Store(catalog: try Catalog.load(contentsOf: catalogPath), path: storePath)
                while let line = readLine() {
                    let before = Monotonic.nanoseconds()
                    _ = try await store.app.purchase(line)
                    let after = Monotonic.nanoseconds()
                    FileHandle.standardOutput.write(Data("\(before) \(after)\n".utf8))
                }
            } catch {
                FileHandle.standardError.write(Data("committer: \(error)\n".utf8))
                exit(1)
            }
            finished.signal()
        }
        finished.wait()
        exit(0)
    }

    /// The committer process, driven line by line over two pipes.
    final class Committer {
        private let pid: pid_t
        private let input: Int32
        private let output: UnsafeMutablePointer<FILE>

        init(bench: String, catalog: String, store: String) throws {
            var toChild: [Int32] = [0, 0], fromChild: [Int32] = [0, 0]
            guard pipe(&toChild) == 0, pipe(&fromChild) == 0 else { throw PseudoTerminal.Failure(description: "pipe: errno \(errno)") }
            var actions = posix_spawn_file_actions_t()
            posix_spawn_file_actions_init(&actions)
            defer { posix_spawn_file_actions_destroy(&actions) }
            posix_spawn_file_actions_adddup2(&actions, toChild[0], 0)
            posix_spawn_file_actions_adddup2(&actions, fromChild[1], 1)
            for end in toChild + fromChild { posix_spawn_file_actions_addclose(&actions, end) }
            let words: [String] = [bench, "--committer", catalog, store]
            let argv = words.map { strdup($0) } + [nil]
            defer { argv.forEach { free($0) } }
            var child: pid_t = 0
            let status = posix_spawn(&child, bench, &actions, nil, argv, environ)
            close(toChild[0])
            close(fromChild[1])
            guard status == 0, let stream = fdopen(fromChild[0], "r") else {
                throw PseudoTerminal.Failure(description: "cannot start the committer: \(String(cString: strerror(status)))")
            }
            pid = child
            input = toChild[1]
            output = stream
        }

        /// Buys `productID` in the other process: when the purchase began and when it had committed
        /// (its clock), and when its answer was read here.
        func buy(_ productID: String) throws -> (before: Duration, after: Duration, answered: Duration) {
            let line = Array((productID + "\n").utf8)
            guard write(input, line, line.count) == line.count else { throw PseudoTerminal.Failure(description: "the committer is gone") }
            var buffer = [CChar](repeating: 0, count: 128)
            guard fgets(&buffer, Int32(buffer.count), output) != nil else {
                throw PseudoTerminal.Failure(description: "the committer did not answer")
            }
            let answered = Monotonic.now()
            let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            let fields = text.split(separator: " ").compactMap { Int64($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
            guard fields.count == 2 else { throw PseudoTerminal.Failure(description: "the committer answered \(text)") }
            return (.nanoseconds(fields[0]), .nanoseconds(fields[1]), answered)
        }

        func stop() {
            close(input)
            fclose(output)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
        }
    }
}

/// CLOCK_MONOTONIC, the clock both processes read.
enum Monotonic {
    static func nanoseconds() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
    }

    static func now() -> Duration { .nanoseconds(nanoseconds()) }

    /// A ContinuousClock instant of this process (a terminal read's time) on CLOCK_MONOTONIC.
    static func at(_ instant: ContinuousClock.Instant) -> Duration {
        let (continuous, monotonic) = (ContinuousClock.now, now())
        return monotonic - (continuous - instant)
    }
}
