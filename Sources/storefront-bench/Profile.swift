import Foundation
import Glibc
import StoreEngine
import StorefrontUI

/// One part of the benchmark, run once and small enough for `valgrind --tool=callgrind`,
/// which counts instructions repeatably where wall-clock times are noisy.
enum Profile {
    static func run(_ part: String, binary: String, work: String, runs: Int) async throws {
        let catalogPath = work + "/profile-catalog.json"
        let catalog = try SyntheticData.writeCatalog(products: 10_000, to: catalogPath)
        let storePath = work + "/profile.sqlite"
        switch part {
        case "load":
            _ = try Catalog.load(contentsOf: catalogPath)
        case "load-times":
            // Figure 6a alone: the median of ten loads in this process.
            let times = try EngineBenchmarks.catalogLoad(catalogPath, runs: 10).sorted()
            print("catalog load, 10,000 products: median " + milliseconds(times[times.count / 2])
                  + ", fastest " + milliseconds(times[0]))
        case "seed":
            // STOREFRONT_BENCH_SEED=N seeds N (the growth section's sizes, timed), 2,000 by default.
            let count = ProcessInfo.processInfo.environment["STOREFRONT_BENCH_SEED"].flatMap { Int($0) } ?? 2_000
            let start = ContinuousClock.now
            let added = try await SyntheticData.seedStore(catalog, transactions: count, at: storePath)
            print("seeded \(added) in " + String(format: "%.1f s", (ContinuousClock.now - start).seconds))
        case "restore":
            // Seeded first if missing, so a second run under valgrind measures the restore alone.
            if !FileManager.default.fileExists(atPath: storePath) {
                _ = try await SyntheticData.seedStore(catalog, transactions: 10_000, at: storePath)
            }
            let before = cpuSeconds()
            let times = try await EngineBenchmarks.restore(catalog, storePath: storePath, runs: 5).times
            print("restore + current entitlements: " + times.map(milliseconds).joined(separator: ", ")
                  + String(format: "; CPU %.1f ms a run (the opening of the store included)", (cpuSeconds() - before) * 200))
        case "purchase":
            // About 200 durable purchases on a fresh store file.
            let before = cpuSeconds()
            let rate = try await DurabilityBenchmark.purchasesPerSecond(catalog, folder: work, duration: .milliseconds(600))
            print(String(format: "%.0f purchases a second; CPU %.0f µs a purchase", rate, (cpuSeconds() - before) / (rate * 0.6) * 1e6))
        case "buy":
            // As purchase, each delivered and finished in its commit (figure 3a's Buy).
            let before = cpuSeconds()
            let rate = try await DurabilityBenchmark.purchasesPerSecond(catalog, folder: work, duration: .milliseconds(600),
                                                                        finish: true)
            print(String(format: "%.0f purchases delivered and finished a second; CPU %.0f µs each", rate,
                         (cpuSeconds() - before) / (rate * 0.6) * 1e6))
        case "session":
            // Twenty SKTestSession tests one by one on products.json (in the current folder), each timed.
            let url = URL(fileURLWithPath: FileManager.default.currentDirectoryPath + "/products.json")
            guard let productID = EngineBenchmarks.firstNonConsumable(catalogPath: url.path) else {
                throw PseudoTerminal.Failure(description: "no products.json with a non-consumable in the current folder")
            }
            let before = cpuSeconds()
            var times: [Duration] = []
            for _ in 0..<20 {
                let start = ContinuousClock.now
                try await TestSessionBenchmark.oneTest(catalog: url, productID: productID)
                times.append(ContinuousClock.now - start)
            }
            print("20 SKTestSession tests: median " + milliseconds(median(times)) + ", fastest " + milliseconds(times.min()!)
                  + String(format: "; CPU %.2f ms a test", (cpuSeconds() - before) / 20 * 1000))
        case "kit":
            // Figure 9's StorefrontKit launch beside its baseline, restore, on 10,000 transactions (seeded if missing).
            if !FileManager.default.fileExists(atPath: storePath) {
                _ = try await SyntheticData.seedStore(catalog, transactions: 10_000, at: storePath)
            }
            let kit = try await KitBenchmark.launch(catalogPath: catalogPath, productIDs: catalog.products.map(\.id),
                                                    storePath: storePath, runs: runs)
            let restore = try await EngineBenchmarks.restore(catalog, storePath: storePath, runs: runs).times
            print("products(for:) (\(kit.products)) + currentEntitlements (\(kit.entitlements)): median " + milliseconds(median(kit.times))
                  + "; restore: median " + milliseconds(median(restore)))
        case "snapshot":
            // What the paywall reads for its first screen, on a store of 10,000 transactions (seeded if missing).
            if !FileManager.default.fileExists(atPath: storePath) {
                _ = try await SyntheticData.seedStore(catalog, transactions: 10_000, at: storePath)
            }
            for _ in 0..<5 {
                let start = ContinuousClock.now
                let store = try Store(catalog: catalog, path: storePath)
                let opened = ContinuousClock.now
                _ = try await store.app.snapshot()
                print("open " + milliseconds(opened - start) + ", snapshot " + milliseconds(ContinuousClock.now - opened))
            }
        case "paint":
            // What the paywall computes for its first screen and five cursor-down presses, without a terminal.
            let storefront = catalog.storefront(catalog.defaultStorefront) ?? .unitedStates
            let snapshot = StoreSnapshot(storefront: storefront, products: catalog.products(in: storefront), owned: [:],
                                         entitled: [], balances: [:], canMakePayments: true, events: [], dataVersion: 0)
            var state = State(size: Size(columns: 100, rows: 30), account: "tester@local", storePath: storePath,
                              paywall: catalog.paywall)
            _ = update(&state, .loaded(snapshot))
            _ = render(state)
            for _ in 0..<5 {
                _ = update(&state, .key(.down))
                _ = render(state)
            }
        case "keypress":
            // Figures 1, 2 and 2a alone (the release binary on a pseudo-terminal, beside dialog), and what one
            // cursor-down wrote, escapes shown: where a key press's bytes go.
            for suffix in ["", "-wal", "-shm"] { unlink(storePath + suffix) }
            let paywall = PaintBenchmark.storefront(binary: binary, catalog: catalog, catalogPath: catalogPath, storePath: storePath)
            let paint = try PaintBenchmark.compare(paywall, PaintBenchmark.dialog(catalog: catalog), home: work, runs: runs)
            for (name, runs) in [("storefront", paint.ours), ("dialog", paint.theirs)] {
                print("\(name), bytes of each cursor-down: " + runs.map { $0.keyBytes.map(String.init).joined(separator: " ") }
                    .joined(separator: ", "))
                print("  the second: " + PaintBenchmark.readable(runs[0].keyOutputs[1]))
            }
            print(Report.table(paint.figures))
        default:
            throw PseudoTerminal.Failure(description: "unknown part \(part); known: load, load-times, seed, restore, purchase, buy, session, snapshot, paint, keypress")
        }
    }
}

/// This process's CPU time so far, user and system, in seconds.
func cpuSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}
