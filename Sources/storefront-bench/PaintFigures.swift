import Glibc
import StoreEngine

/// Figures 1, 1a, 2, 2a and 5: the paywall's first paint and a key press beside
/// `dialog --menu`, and the paywall's peak memory on the 100,000-transaction store.
enum PaintFigures {
    /// The figures of the terminal (1, 1a, 2, 2a) and of memory (5), which the table shows apart.
    static func measure(binary: String, catalog: Catalog, catalogPath: String, history100k: String, work: String, runs: Int,
                        progress: (String) -> Void) throws -> (terminal: [Figure], memory: Figure) {
        var figures: [Figure] = []
        progress("1, 2. first paint and cursor-down on a 100×30 pseudo-terminal, storefront and dialog, \(runs) runs each")
        let paintStore = work + "/paint.sqlite"
        for suffix in ["", "-wal", "-shm"] { unlink(paintStore + suffix) }
        let paywall = PaintBenchmark.storefront(binary: binary, catalog: catalog, catalogPath: catalogPath, storePath: paintStore)
        let dialog = PaintBenchmark.dialog(catalog: catalog)
        var ours: [PaintRun] = [], theirs: [PaintRun] = []
        for _ in 0..<runs {
            // Alternating, so both see the same moments of a noisy machine.
            ours.append(try PaintBenchmark.run(paywall, home: work, presses: 5, quitKeys: Array("q".utf8)))
            theirs.append(try PaintBenchmark.run(dialog, home: work, presses: 5, quitKeys: [0x1B]))
        }
        let paintOurs = median(ours.map(\.firstPaint)), paintTheirs = median(theirs.map(\.firstPaint))
        figures.append(Figure(number: "1", measure: "First complete paint, 10,000 products, from process start",
                              value: milliseconds(paintOurs), baseline: "dialog --menu " + milliseconds(paintTheirs),
                              ratio: paintOurs / paintTheirs, goal: "≤ 1.00", met: paintOurs <= paintTheirs))
        progress("1a, 5. the paywall with 10,000 products and 100,000 transactions, \(runs) runs")
        let heavy = PaintBenchmark.storefront(binary: binary, catalog: catalog, catalogPath: catalogPath, storePath: history100k)
        var heavyRuns: [PaintRun] = []
        for _ in 0..<runs {
            heavyRuns.append(try PaintBenchmark.run(heavy, home: work, presses: 1, quitKeys: Array("q".utf8)))
        }
        let heavyPaint = median(heavyRuns.map(\.firstPaint))
        figures.append(Figure(number: "1a", measure: "First complete paint, 10,000 products + 100,000 transactions",
                              value: milliseconds(heavyPaint), baseline: "dialog --menu " + milliseconds(paintTheirs),
                              ratio: heavyPaint / paintTheirs, goal: "≤ 1.20", met: heavyPaint / paintTheirs <= 1.2))
        // CPU time, which a loaded machine moves less than wall-clock time (no goal of its own).
        let cpuTheirs = median(theirs.compactMap(\.paintCPU))
        for (number, name, runs) in [("1b", "10,000 products", ours), ("1c", "10,000 products + 100,000 transactions", heavyRuns)]
            where runs.allSatisfy({ $0.paintCPU != nil }) && theirs.allSatisfy({ $0.paintCPU != nil }) {
            let cpu = median(runs.compactMap(\.paintCPU))
            figures.append(Figure(number: number, measure: "CPU time until the first complete paint, " + name,
                                  value: milliseconds(cpu), baseline: "dialog --menu " + milliseconds(cpuTheirs),
                                  ratio: cpu / cpuTheirs, goal: ""))
        }
        let bytesOurs = median(ours.flatMap(\.keyBytes)), bytesTheirs = median(theirs.flatMap(\.keyBytes))
        figures.append(Figure(number: "2", measure: "Bytes written for one cursor-down", value: "\(bytesOurs) B",
                              baseline: "dialog \(bytesTheirs) B", ratio: Double(bytesOurs) / Double(bytesTheirs),
                              goal: "≤ 1.00", met: bytesOurs <= bytesTheirs))
        let keyOurs = median(ours.flatMap(\.keySettle)), keyTheirs = median(theirs.flatMap(\.keySettle))
        figures.append(Figure(number: "2a", measure: "Cursor-down until the screen has settled", value: milliseconds(keyOurs),
                              baseline: "dialog " + milliseconds(keyTheirs), ratio: keyOurs / keyTheirs, goal: ""))

        // 5: the runs of 1a.
        guard heavyRuns.allSatisfy({ $0.peakKilobytes != nil }) else {
            throw PseudoTerminal.Failure(description: "cannot read the paywall's peak memory from /proc")
        }
        let peak = Double(median(heavyRuns.compactMap(\.peakKilobytes))) / 1024
        let memory = Figure(number: "5", measure: "Peak resident memory, paywall, 10,000 products + 100,000 transactions",
                            value: String(format: "%.1f MB", peak), baseline: "limit 40 MB", ratio: peak / 40,
                            goal: "≤ 1.00", met: peak <= 40)
        return (figures, memory)
    }
}
