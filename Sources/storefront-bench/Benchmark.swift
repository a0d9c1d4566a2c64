import Foundation
import Glibc
import StoreEngine

/// The whole benchmark: synthetic data, each measurement beside its baseline, the table.
enum Benchmark {
    struct Settings: Sendable {
        var binary: String
        var work: String
        var runs: Int
        /// One part to run alone for a profiler, or empty for the whole benchmark.
        var profile: String
    }

    static func run(_ settings: Settings) async throws {
        let (binary, work, runs) = (settings.binary, settings.work, settings.runs)
        let began = ContinuousClock.now
        func progress(_ text: String) {
            FileHandle.standardError.write(Data(String(format: "[%5.1f s] %@\n", (ContinuousClock.now - began).seconds, text).utf8))
        }
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        if settings.profile == "serve" {
            // Figures 10, 10a, 10b and 10c alone, with the storefront binary given (for a look without the whole run).
            let path = work + "/catalog-1000.json"
            let catalog = try SyntheticData.writeCatalog(products: 1_000, to: path)
            print(Report.table(try await ServerBenchmark.run(
                binary: binary, benchBinary: Bundle.main.executablePath ?? CommandLine.arguments[0], catalog: catalog,
                catalogPath: path, work: work, rounds: 1, progress: progress)))
            return
        }
        if settings.profile == "first-paint" {
            // Figures 1, 1a, 2, 2a and 5 alone (the 100,000-transaction store is seeded once and kept in the work folder).
            let path = work + "/catalog-10000.json", history = work + "/first-paint-100000.sqlite"
            let catalog = try SyntheticData.writeCatalog(products: 10_000, to: path)
            if !FileManager.default.fileExists(atPath: history) {
                _ = try await SyntheticData.seedStore(catalog, transactions: 100_000, at: history)
            }
            let paint = try PaintFigures.measure(binary: binary, catalog: catalog, catalogPath: path, history100k: history,
                                                 work: work, runs: settings.runs, progress: progress)
            print(Report.table(paint.terminal + [paint.memory]))
            return
        }
        if settings.profile == "latency" || settings.profile == "test-loop" {
            // Figures 11 and 11a (a second process commits), or 12 (read from the last `make test`), alone.
            let figures = settings.profile == "test-loop" ? TestLoopFigures.read() : try await LatencyBenchmark.run(
                binary: binary, benchBinary: Bundle.main.executablePath ?? CommandLine.arguments[0], work: work, progress: progress)
            print(Report.table(figures))
            return
        }
        if settings.profile == "postgresql" {
            // Figures 14 to 14c alone (a store in PostgreSQL, on a throwaway cluster).
            let catalog = try SyntheticData.writeCatalog(products: 1_000, to: work + "/catalog-1000.json")
            print(Report.table(try await PostgreSQLBenchmark.figures(catalog, catalogPath: work + "/catalog-1000.json", binary: binary,
                                                                     work: work, progress: progress)))
            return
        }
        if settings.profile == "test-session" {
            // Figures 13 and 13a alone (SKTestSession tests, beside the engine).
            print(Report.table(try await TestSessionBenchmark.figures(progress: progress)))
            return
        }
        if !settings.profile.isEmpty {
            try await Profile.run(settings.profile, binary: binary, work: work, runs: runs)
            return
        }
        guard FileManager.default.isExecutableFile(atPath: binary) else {
            throw PseudoTerminal.Failure(description: "no storefront binary at \(binary); build it with swift build -c release")
        }

        // MARK: Synthetic data
        progress("writing catalogs of 1,000 and 10,000 products")
        let smallPath = work + "/catalog-1000.json", largePath = work + "/catalog-10000.json"
        let small = try SyntheticData.writeCatalog(products: 1_000, to: smallPath)
        let large = try SyntheticData.writeCatalog(products: 10_000, to: largePath)
        let sizes = [10_000, 100_000, 1_000_000]
        var stores: [(size: Int, path: String)] = []
        for size in sizes {
            let path = work + "/history-\(size).sqlite"
            let seeding = ContinuousClock.now
            let seeded = try await SyntheticData.seedStore(large, transactions: size, at: path)
            progress("seeded \(seeded.formatted()) signed transactions in " + String(format: "%.1f s", (ContinuousClock.now - seeding).seconds))
            stores.append((size, path))
        }
        // The 1,000,000-transaction file is about 3.5 GB: removed when the run ends.
        defer { for suffix in ["", "-wal", "-shm", "-journal"] { unlink(stores.last!.path + suffix) } }
        let (history10k, history100k) = (stores[0].path, stores[1].path)

        // MARK: 1, 2. First paint and a key press, beside dialog; 5, the paywall's peak memory (shown after 4)
        let paint = try PaintFigures.measure(binary: binary, catalog: large, catalogPath: largePath, history100k: history100k,
                                            work: work, runs: runs, progress: progress)
        var figures = paint.terminal

        // MARK: 3. Durable purchases
        progress("3. durable purchases against fdatasync, 3 rounds of 2 s each")
        var purchases: [Double] = [], syncs: [Double] = [], finished: [Double] = []
        for _ in 0..<3 {
            syncs.append(try DurabilityBenchmark.fdatasyncPerSecond(folder: work, duration: .seconds(2)))
            purchases.append(try await DurabilityBenchmark.purchasesPerSecond(small, folder: work, duration: .seconds(2)))
            finished.append(try await DurabilityBenchmark.purchasesPerSecond(small, folder: work, duration: .seconds(2),
                                                                             finish: true))
        }
        let purchaseRate = median(purchases), syncRate = median(syncs), finishedRate = median(finished)
        figures.append(Figure(number: "3", measure: "Durable purchases per second (synchronous=FULL)",
                              value: String(format: "%.0f /s", purchaseRate),
                              baseline: String(format: "fdatasync %.0f /s", syncRate), ratio: purchaseRate / syncRate,
                              goal: "≥ 0.50", met: purchaseRate / syncRate >= 0.5))
        figures.append(Figure(number: "3a", measure: "Purchases delivered and finished per second (Buy in the paywall)",
                              value: String(format: "%.0f /s", finishedRate),
                              baseline: String(format: "fdatasync %.0f /s", syncRate), ratio: finishedRate / syncRate,
                              goal: "≥ 0.45", met: finishedRate / syncRate >= 0.45))

        // MARK: 4. Restore
        progress("4. restore and current entitlements over 10,000 and 100,000 transactions")
        let (restore100k, entitlements) = try await EngineBenchmarks.restore(large, storePath: history100k, runs: runs)
        let (restore10k, _) = try await EngineBenchmarks.restore(large, storePath: history10k, runs: runs)
        let restoreTime = median(restore100k)
        figures.append(Figure(number: "4", measure: "Restore + current entitlements, 100,000 transactions (\(entitlements) owned)",
                              value: milliseconds(restoreTime), baseline: "limit 20 ms",
                              ratio: restoreTime.milliseconds / 20, goal: "≤ 1.00", met: restoreTime.milliseconds <= 20))
        figures.append(Figure(number: "4a", measure: "Restore + current entitlements, 10,000 transactions",
                              value: milliseconds(median(restore10k)), baseline: "", goal: ""))

        figures.append(paint.memory)

        // MARK: 6. Catalog check beside jq
        progress("6. catalog check of 10,000 products beside jq empty, \(runs * 2) runs each")
        var checks: [Duration] = [], jqs: [Duration] = []
        for _ in 0..<(runs * 2) {
            checks.append(try ProcessRun.run(binary, ["catalog", "check", largePath], work: work).elapsed)
            jqs.append(try ProcessRun.run("/usr/bin/jq", ["empty", largePath], work: work).elapsed)
        }
        let check = median(checks), jq = median(jqs)
        figures.append(Figure(number: "6", measure: "`catalog check`, 10,000 products, whole process",
                              value: milliseconds(check), baseline: "jq empty " + milliseconds(jq), ratio: check / jq,
                              goal: "≤ 1.00", met: check <= jq))
        let load10k = median(try EngineBenchmarks.catalogLoad(largePath, runs: 10))
        figures.append(Figure(number: "6a", measure: "Catalog load and validation, 10,000 products, in process",
                              value: milliseconds(load10k), baseline: "", goal: ""))

        // MARK: 7. Growth
        let growth = try await GrowthBenchmark.run(binary: binary, catalog: large, catalogPath: largePath, stores: stores,
                                                   work: work, runs: runs, progress: progress)
        figures += GrowthBenchmark.figures(growth, sizes: sizes)

        // MARK: 8. Listing streams
        let listing = try ListingBenchmark.run(binary: binary, stores: [stores[0], stores[2]], work: work, progress: progress)
        for (letter, kind, peaks) in [("", "text", listing.peakText), ("a", "--json", listing.peakJSON)] {
            let ratio = Double(peaks[1]) / Double(peaks[0])
            figures.append(Figure(number: "8" + letter,
                                  measure: "Peak memory, `transactions` \(kind) of all 1,000,000 (consumables included)",
                                  value: String(format: "%.1f MB", Double(peaks[1]) / 1024),
                                  baseline: String(format: "10,000: %.1f MB", Double(peaks[0]) / 1024), ratio: ratio,
                                  goal: "≤ 1.20", met: ratio <= 1.2))
        }
        let firstLine = listing.firstLines.max() ?? .zero
        figures.append(Figure(number: "8b", measure: "`transactions`: first line of output, slowest of every size and form",
                              value: milliseconds(firstLine), baseline: "limit 50 ms", ratio: firstLine.milliseconds / 50,
                              goal: "≤ 1.00", met: firstLine.milliseconds <= 50))
        figures.append(Figure(number: "8c", measure: "`transactions`, all 1,000,000 as text, whole process",
                              value: String(format: "%.1f s", listing.elapsedText[1].seconds),
                              baseline: String(format: "10,000: %.2f s", listing.elapsedText[0].seconds), goal: ""))

        // MARK: 9. StorefrontKit
        progress("9. StorefrontKit: Product.products(for:) and Transaction.currentEntitlements over 100,000, \(runs) runs")
        let kit = try await KitBenchmark.launch(catalogPath: largePath, productIDs: large.products.map(\.id),
                                                storePath: history100k, runs: runs)
        let kitTime = median(kit.times)
        figures.append(Figure(number: "9", measure: "StorefrontKit: products(for:) (\(kit.products.formatted())) + currentEntitlements loop (\(kit.entitlements)), 100,000",
                              value: milliseconds(kitTime), baseline: "restore (4) " + milliseconds(restoreTime),
                              ratio: kitTime / restoreTime, goal: "≤ 1.50", met: kitTime / restoreTime <= 1.5))

        // MARK: 10. storefront serve
        figures += try await ServerBenchmark.run(
            binary: binary, benchBinary: Bundle.main.executablePath ?? CommandLine.arguments[0], catalog: small,
            catalogPath: smallPath, work: work, rounds: 3, progress: progress)

        // MARK: 11. Live: another process's commit, seen; 12. the test loop
        figures += try await LatencyBenchmark.run(binary: binary, benchBinary: Bundle.main.executablePath ?? CommandLine.arguments[0],
                                                  work: work, progress: progress)
        figures += TestLoopFigures.read()

        // MARK: 13. An SKTestSession test, and 200 at once
        figures += try await TestSessionBenchmark.figures(progress: progress)

        // MARK: 14. A store in PostgreSQL
        figures += try await PostgreSQLBenchmark.figures(small, catalogPath: smallPath, binary: binary, work: work, progress: progress)

        progress("done")
        print("Storefront benchmarks: \(ProcessInfo.processInfo.activeProcessorCount) cores, "
              + String(format: "%.0f GiB", Double(ProcessInfo.processInfo.physicalMemory) / 1_073_741_824)
              + ", TERM=\(PaintBenchmark.term) \(PaintBenchmark.columns)×\(PaintBenchmark.rows), medians of \(runs) runs"
              + String(format: ", %.0f s in all", (ContinuousClock.now - began).seconds))
        print()
        print(Report.table(figures))
        print()
        print("Growth (7): each measure at each history size, and its factor per decade")
        print()
        print(GrowthBenchmark.table(growth, sizes: sizes))
    }
}
