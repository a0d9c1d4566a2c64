import Foundation
import Glibc
import StoreEngine

/// Goal 7: what the user waits for must follow what is shown, not the history's size. The same
/// four measures on store files of 10,000, 100,000 and 1,000,000 transactions, and the growth
/// from each size to the next (a decade).
enum GrowthBenchmark {
    /// One measure at each size, smallest first.
    struct Series {
        var measure: String
        var unit: Unit
        var values: [Double]

        enum Unit { case milliseconds, megabytes }

        /// The growth factor of each decade: value at 10n / value at n.
        var factors: [Double] { zip(values, values.dropFirst()).map { $1 / $0 } }
        var worst: Double { factors.max() ?? 1 }

        func text(_ value: Double) -> String {
            switch unit {
            case .milliseconds: String(format: "%.1f ms", value)
            case .megabytes: String(format: "%.1f MB", value)
            }
        }
    }

    static let limit = 1.5

    /// The store files by size: paint, restore, `transactions --limit 50` and a purchase at each.
    static func run(binary: String, catalog: Catalog, catalogPath: String, stores: [(size: Int, path: String)],
                    work: String, runs: Int, progress: (String) -> Void) async throws -> [Series] {
        var paint = Series(measure: "First complete paint (10,000 products)", unit: .milliseconds, values: [])
        var restore = Series(measure: "Restore + current entitlements", unit: .milliseconds, values: [])
        var listing = Series(measure: "`transactions --limit 50`, whole process", unit: .milliseconds, values: [])
        var purchase = Series(measure: "A durable purchase (consumable)", unit: .milliseconds, values: [])
        for (size, path) in stores {
            progress("7. growth at \(size.formatted()) transactions: paint, restore, transactions --limit 50")
            let program = PaintBenchmark.storefront(binary: binary, catalog: catalog, catalogPath: catalogPath, storePath: path)
            var paints: [Duration] = []
            for _ in 0..<runs {
                paints.append(try PaintBenchmark.run(program, home: work, presses: 0, quitKeys: Array("q".utf8)).firstPaint)
            }
            paint.values.append(median(paints).milliseconds)
            restore.values.append(median(try await EngineBenchmarks.restore(catalog, storePath: path, runs: runs).times).milliseconds)
            var lists: [Duration] = []
            for _ in 0..<runs {
                lists.append(try ProcessRun.run(binary, ["--store", path, "transactions", "--limit", "50"], work: work).elapsed)
            }
            listing.values.append(median(lists).milliseconds)
        }
        progress("7. growth: purchases on the three store files in turn, 41 each")
        purchase.values = try await purchaseTimes(catalog, storePaths: stores.map(\.path), count: 41).map(\.milliseconds)
        return [paint, restore, listing, purchase]
    }

    /// The median time of `count` consumable purchases on each store file, each durable: one on
    /// each file in turn, so that all of them see the same moments of a shared disk.
    static func purchaseTimes(_ catalog: Catalog, storePaths: [String], count: Int) async throws -> [Duration] {
        let stores = try storePaths.map { try Store(catalog: catalog, path: $0) }
        guard let consumable = catalog.products.first(where: { $0.type == .consumable })?.id else {
            throw PseudoTerminal.Failure(description: "the catalog has no consumable")
        }
        var times = [[Duration]](repeating: [], count: stores.count)
        for _ in 0..<count {
            for (index, store) in stores.enumerated() {
                let start = ContinuousClock.now
                guard case .purchased = try await store.app.purchase(consumable) else {
                    throw PseudoTerminal.Failure(description: "a benchmark purchase did not succeed")
                }
                times[index].append(ContinuousClock.now - start)
            }
        }
        return times.map(median)
    }

    /// The growth table: each measure at each size, the factor of each decade, the goal.
    static func table(_ series: [Series], sizes: [Int]) -> String {
        let header = ["measure"] + sizes.map { "\($0.formatted()) transactions" }
            + ["growth per decade", "goal", "met"]
        let rows = series.map { item in
            [item.measure] + item.values.map(item.text)
                + [item.factors.map { String(format: "×%.2f", $0) }.joined(separator: ", "),
                   String(format: "≤ ×%.1f", limit), item.worst <= limit ? "yes" : "**no**"]
        }
        return Report.markdown(header: header, rows: rows)
    }

    /// The rows of the main table: the largest size beside the smallest, the worst decade as the ratio.
    static func figures(_ series: [Series], sizes: [Int]) -> [Figure] {
        series.enumerated().map { index, item in
            Figure(number: "7" + String(UnicodeScalar(UInt8(ascii: "a") + UInt8(index))),
                   measure: "Growth: \(item.measure), \(sizes.last!.formatted()) transactions",
                   value: item.text(item.values.last!),
                   baseline: "\(sizes.first!.formatted()): " + item.text(item.values.first!),
                   ratio: item.worst, goal: String(format: "≤ %.2f a decade", limit), met: item.worst <= limit)
        }
    }
}

/// Goal 8: `storefront transactions` writes as it reads. Its peak memory listing every
/// transaction of a 1,000,000-transaction history beside a 10,000 one (consumables
/// included, so every row is listed), and its first line at every size.
enum ListingBenchmark {
    struct Result {
        var peakText: [Int]
        var peakJSON: [Int]
        var firstLines: [Duration]
        var elapsedText: [Duration]
        var rows: [Int]
    }

    static func run(binary: String, stores: [(size: Int, path: String)], work: String,
                    progress: (String) -> Void) throws -> Result {
        var result = Result(peakText: [], peakJSON: [], firstLines: [], elapsedText: [], rows: [])
        for (size, path) in stores {
            progress("8. every transaction of \(size.formatted()), as text and as JSON")
            // Finished consumables are left out of Transaction.all unless the setting says otherwise.
            _ = try ProcessRun.run(binary, ["--store", path, "settings", "set", "includeConsumablesInHistory", "true"], work: work)
            defer { _ = try? ProcessRun.run(binary, ["--store", path, "settings", "set", "includeConsumablesInHistory", "false"], work: work) }
            let text = try ProcessRun.run(binary, ["--store", path, "transactions"], work: work)
            let json = try ProcessRun.run(binary, ["--store", path, "transactions", "--json"], work: work)
            result.peakText.append(text.peakKilobytes)
            result.peakJSON.append(json.peakKilobytes)
            result.firstLines += [text.firstOutput, json.firstOutput].compactMap { $0 }
            result.elapsedText.append(text.elapsed)
            result.rows.append(text.outputBytes)
        }
        return result
    }
}
