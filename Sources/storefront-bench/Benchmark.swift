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
            // Figures 7 and 8 alone, with the storefront binary given (for a look without the whole run).
            let path = work + "/catalog-1000.json"
            let catalog = try SyntheticData.writeCatalog(products: 1_000, to: path)
            print(Report.table(try await ServerBenchmark.run(
                binary: binary, benchBinary: Bundle.main.executablePath ?? CommandLine.arguments[0], catalog: catalog,
                catalogPath: path, work: work, rounds: 1, progress: progress)))
            return
        }
        if !settings.profile.isEmpty {
            try await Profile.run(settings.profile, work: work)
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
        progress("seeding store files with 10,000 and 100,000 signed transactions")
        let history10k = work + "/history-10000.sqlite", history100k = work + "/history-100000.sqlite"
        _ = try await SyntheticData.seedStore(large, transactions: 10_000, at: history10k)
        let seeded = try await SyntheticData.seedStore(large, transactions: 100_000, at: history100k)
        progress("seeded \(seeded) transactions")
        var figures: [Figure] = []

        // MARK: 1. Catalog load
        progress("1. catalog load")
        let load1k = median(try EngineBenchmarks.catalogLoad(smallPath, runs: 10))
        let load10k = median(try EngineBenchmarks.catalogLoad(largePath, runs: 10))
        figures.append(Figure(number: "1", measure: "Catalog load and validation, 10,000 products", value: milliseconds(load10k),
                              baseline: "limit 150 ms", ratio: load10k.milliseconds / 150, goal: "≤ 1.00",
                              met: load10k.milliseconds < 150))
        figures.append(Figure(number: "1a", measure: "Catalog load and validation, 1,000 products", value: milliseconds(load1k),
                              baseline: "", goal: ""))

        // MARK: 2, 3. First paint and a key press, beside dialog
        progress("2, 3. first paint and cursor-down on a 100×30 pseudo-terminal, storefront and dialog, \(runs) runs each")
        let paintStore = work + "/paint.sqlite"
        for suffix in ["", "-wal", "-shm"] { unlink(paintStore + suffix) }
        let paywall = PaintBenchmark.storefront(binary: binary, catalog: large, catalogPath: largePath, storePath: paintStore)
        let dialog = PaintBenchmark.dialog(catalog: large)
        var ours: [PaintRun] = [], theirs: [PaintRun] = []
        for _ in 0..<runs {
            // Alternating, so both see the same moments of a noisy machine.
            ours.append(try PaintBenchmark.run(paywall, home: work, presses: 5, quitKeys: Array("q".utf8)))
            theirs.append(try PaintBenchmark.run(dialog, home: work, presses: 5, quitKeys: [0x1B]))
        }
        let paintOurs = median(ours.map(\.firstPaint)), paintTheirs = median(theirs.map(\.firstPaint))
        figures.append(Figure(number: "2", measure: "First complete paint, 10,000 products, from process start",
                              value: milliseconds(paintOurs), baseline: "dialog --menu " + milliseconds(paintTheirs),
                              ratio: paintOurs / paintTheirs, goal: "≤ 1.00", met: paintOurs <= paintTheirs))
        let bytesOurs = median(ours.flatMap(\.keyBytes)), bytesTheirs = median(theirs.flatMap(\.keyBytes))
        figures.append(Figure(number: "3", measure: "Bytes written for one cursor-down", value: "\(bytesOurs) B",
                              baseline: "dialog \(bytesTheirs) B", ratio: Double(bytesOurs) / Double(bytesTheirs),
                              goal: "≤ 1.00", met: bytesOurs <= bytesTheirs))
        let keyOurs = median(ours.flatMap(\.keySettle)), keyTheirs = median(theirs.flatMap(\.keySettle))
        figures.append(Figure(number: "3a", measure: "Cursor-down until the screen has settled", value: milliseconds(keyOurs),
                              baseline: "dialog " + milliseconds(keyTheirs), ratio: keyOurs / keyTheirs, goal: ""))

        // MARK: 4. Durable purchases
        progress("4. durable purchases against fdatasync, 3 rounds of 2 s each")
        var purchases: [Double] = [], syncs: [Double] = [], finished: [Double] = []
        for _ in 0..<3 {
            syncs.append(try DurabilityBenchmark.fdatasyncPerSecond(folder: work, duration: .seconds(2)))
            purchases.append(try await DurabilityBenchmark.purchasesPerSecond(small, folder: work, duration: .seconds(2)))
            finished.append(try await DurabilityBenchmark.purchasesPerSecond(small, folder: work, duration: .seconds(2),
                                                                             finish: true))
        }
        let purchaseRate = median(purchases), syncRate = median(syncs), finishedRate = median(finished)
        figures.append(Figure(number: "4", measure: "Durable purchases per second (synchronous=FULL)",
                              value: String(format: "%.0f /s", purchaseRate),
                              baseline: String(format: "fdatasync %.0f /s", syncRate), ratio: purchaseRate / syncRate,
                              goal: "≥ 0.50", met: purchaseRate / syncRate >= 0.5))
        figures.append(Figure(number: "4a", measure: "Purchases delivered and finished per second (Buy in the paywall)",
                              value: String(format: "%.0f /s", finishedRate),
                              baseline: String(format: "fdatasync %.0f /s", syncRate), ratio: finishedRate / syncRate, goal: ""))

        // MARK: 5. Restore
        progress("5. restore and current entitlements over 10,000 and 100,000 transactions")
        let (restore100k, entitlements) = try await EngineBenchmarks.restore(large, storePath: history100k, runs: runs)
        let (restore10k, _) = try await EngineBenchmarks.restore(large, storePath: history10k, runs: runs)
        let restoreTime = median(restore100k)
        figures.append(Figure(number: "5", measure: "Restore + current entitlements, 100,000 transactions (\(entitlements) owned)",
                              value: milliseconds(restoreTime), baseline: "limit 100 ms",
                              ratio: restoreTime.milliseconds / 100, goal: "≤ 1.00", met: restoreTime.milliseconds < 100))
        figures.append(Figure(number: "5a", measure: "Restore + current entitlements, 10,000 transactions",
                              value: milliseconds(median(restore10k)), baseline: "", goal: ""))

        // MARK: 6. Peak memory
        progress("6. the paywall with 10,000 products and 100,000 transactions, \(runs) runs")
        let heavy = PaintBenchmark.storefront(binary: binary, catalog: large, catalogPath: largePath, storePath: history100k)
        var heavyRuns: [PaintRun] = []
        for _ in 0..<runs {
            heavyRuns.append(try PaintBenchmark.run(heavy, home: work, presses: 1, quitKeys: Array("q".utf8)))
        }
        guard heavyRuns.allSatisfy({ $0.peakKilobytes != nil }) else {
            throw PseudoTerminal.Failure(description: "cannot read the paywall's peak memory from /proc")
        }
        let peak = Double(median(heavyRuns.compactMap(\.peakKilobytes))) / 1024
        figures.append(Figure(number: "6", measure: "Peak resident memory, paywall, 10,000 products + 100,000 transactions",
                              value: String(format: "%.1f MB", peak), baseline: "limit 50 MB", ratio: peak / 50,
                              goal: "≤ 1.00", met: peak < 50))
        figures.append(Figure(number: "6a", measure: "First complete paint, 10,000 products + 100,000 transactions",
                              value: milliseconds(median(heavyRuns.map(\.firstPaint))),
                              baseline: "dialog --menu " + milliseconds(paintTheirs),
                              ratio: median(heavyRuns.map(\.firstPaint)) / paintTheirs, goal: ""))

        // MARK: 7, 8. storefront serve
        figures += try await ServerBenchmark.run(
            binary: binary, benchBinary: Bundle.main.executablePath ?? CommandLine.arguments[0], catalog: small,
            catalogPath: smallPath, work: work, rounds: 3, progress: progress)

        progress("done")
        print("Storefront benchmarks: \(ProcessInfo.processInfo.activeProcessorCount) cores, "
              + String(format: "%.0f GiB", Double(ProcessInfo.processInfo.physicalMemory) / 1_073_741_824)
              + ", TERM=\(PaintBenchmark.term) \(PaintBenchmark.columns)×\(PaintBenchmark.rows), medians of \(runs) runs"
              + String(format: ", %.0f s in all", (ContinuousClock.now - began).seconds))
        print()
        print(Report.table(figures))
    }
}
