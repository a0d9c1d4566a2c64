import Glibc
import StoreEngine

/// A full-screen program showing a list, as the paint benchmarks drive it.
struct ListProgram {
    var name: String
    var path: String
    var arguments: [String]
    /// Texts that are all on the screen once the first paint is complete: the
    /// first and the last list row that fit, and something drawn after the list.
    var paintedWhenShowing: [String]
    /// The texts of the first rows of the list, top down: the highlight moves along them.
    var rows: [String]
}

/// What one run of a program on the pseudo-terminal measured.
struct PaintRun {
    var firstPaint: Duration
    /// What the program wrote to the terminal for each cursor-down key press.
    var keyOutputs: [[UInt8]]
    var keyBytes: [Int] { keyOutputs.map(\.count) }
    /// From each key press to the screen showing the moved highlight.
    var keySettle: [Duration]
    /// Peak resident memory in kilobytes, after the first paint and the key presses.
    var peakKilobytes: Int?
    /// CPU time the program used until its first complete paint.
    var paintCPU: Duration?
}

/// Time to first complete paint, and the cost of a key press, on a pseudo-terminal.
enum PaintBenchmark {
    static let columns = 100
    static let rows = 30
    static let term = "xterm-256color"

    /// Runs the program once: waits for its first complete paint, presses the
    /// down arrow `presses` times (each time until the highlight has moved and
    /// the output has gone quiet), reads its peak memory, and quits it with `quitKeys`.
    static func run(_ program: ListProgram, home: String, presses: Int, quitKeys: [UInt8]) throws -> PaintRun {
        let environment = ["TERM": term, "LANG": "C.UTF-8", "HOME": home, "PATH": "/usr/bin:/bin"]
        let session = try TerminalSession(program.path, program.arguments, environment: environment,
                                          columns: columns, rows: rows)
        defer { session.terminal.kill() }
        let painted = try session.wait(for: "\(program.name)'s first complete paint") { screen in
            program.paintedWhenShowing.allSatisfy(screen.contains)
        }
        var run = PaintRun(firstPaint: painted - session.terminal.started, keyOutputs: [], keySettle: [],
                           paintCPU: session.terminal.cpuTime())
        session.settle()
        for press in 0..<presses {
            let (from, to) = (program.rows[press] + " ", program.rows[press + 1] + " ")
            guard let fromCell = session.screen.find(from), let toCell = session.screen.find(to) else {
                throw TerminalSession.Timeout(what: "rows \(from) and \(to) on screen", screen: session.screen.lines)
            }
            let selected = session.screen.rendition(row: fromCell.row, column: fromCell.column)
            let unselected = session.screen.rendition(row: toCell.row, column: toCell.column)
            guard selected != unselected else {
                throw TerminalSession.Timeout(what: "a highlighted row", screen: session.screen.lines)
            }
            let before = session.bytesRead
            let pressed = session.terminal.type(session.downArrow)
            // Settled: the highlight has left the old row and is on the new one.
            let moved = try session.wait(for: "the highlight to move to \(to)", timeout: .seconds(10)) { screen in
                screen.rendition(row: toCell.row, column: toCell.column) == selected
                    && screen.rendition(row: fromCell.row, column: fromCell.column) == unselected
            }
            session.settle()
            run.keySettle.append(moved - pressed)
            run.keyOutputs.append(Array(session.transcript[before...]))
        }
        run.peakKilobytes = session.terminal.peakResidentKilobytes()
        session.terminal.type(quitKeys)
        guard session.terminal.waitForExit(timeout: .seconds(10)) != nil else {
            throw TerminalSession.Timeout(what: "\(program.name) to quit", screen: session.screen.lines)
        }
        return run
    }

    /// Figures 1 and 2: `runs` alternating runs of the paywall and of `dialog`, five key presses each.
    static func compare(_ paywall: ListProgram, _ dialog: ListProgram, home: String,
                        runs: Int) throws -> (ours: [PaintRun], theirs: [PaintRun], figures: [Figure]) {
        var ours: [PaintRun] = [], theirs: [PaintRun] = []
        for _ in 0..<runs {
            // Alternating, so both see the same moments of a noisy machine.
            ours.append(try run(paywall, home: home, presses: 5, quitKeys: Array("q".utf8)))
            theirs.append(try run(dialog, home: home, presses: 5, quitKeys: [0x1B]))
        }
        let paintOurs = median(ours.map(\.firstPaint)), paintTheirs = median(theirs.map(\.firstPaint))
        let bytesOurs = median(ours.flatMap(\.keyBytes)), bytesTheirs = median(theirs.flatMap(\.keyBytes))
        let keyOurs = median(ours.flatMap(\.keySettle)), keyTheirs = median(theirs.flatMap(\.keySettle))
        let figures = [
            Figure(number: "1", measure: "First complete paint, 10,000 products, from process start",
                   value: milliseconds(paintOurs), baseline: "dialog --menu " + milliseconds(paintTheirs),
                   ratio: paintOurs / paintTheirs, goal: "≤ 0.75", met: paintOurs / paintTheirs <= 0.75),
            Figure(number: "2", measure: "Bytes written for one cursor-down", value: "\(bytesOurs) B",
                   baseline: "dialog \(bytesTheirs) B", ratio: Double(bytesOurs) / Double(bytesTheirs),
                   goal: "≤ 1.00", met: bytesOurs <= bytesTheirs),
            Figure(number: "2a", measure: "Cursor-down until the screen has settled", value: milliseconds(keyOurs),
                   baseline: "dialog " + milliseconds(keyTheirs), ratio: keyOurs / keyTheirs, goal: ""),
        ]
        return (ours, theirs, figures)
    }

    /// A key press's output with its escapes readable: ESC as `␛`, other controls as `^X`.
    static func readable(_ bytes: [UInt8]) -> String {
        String(decoding: bytes, as: UTF8.self).unicodeScalars.map { scalar in
            scalar == "\u{1B}" ? "␛" : scalar.value < 0x20 ? "^" + String(UnicodeScalar(scalar.value + 0x40)!) : String(scalar)
        }.joined()
    }

    /// The paywall on a catalog and store file.
    static func storefront(binary: String, catalog: Catalog, catalogPath: String, storePath: String) -> ListProgram {
        let lines = tableLines(catalog)
        let visible = Array(lines.prefix(paywallTableHeight))
        return ListProgram(
            name: "storefront", path: binary,
            arguments: ["--catalog", catalogPath, "--store", storePath, "--latency", "0"],
            paintedWhenShowing: [visible.first { $0.isProduct }!.text + " ", visible.last { $0.isProduct }!.text + " ",
                                 "[ Restore Purchases ]"],
            rows: lines.filter(\.isProduct).prefix(12).map(\.text))
    }

    /// `dialog --menu` with the same products: the name as the tag, kind and price as the item.
    static func dialog(catalog: Catalog) -> ListProgram {
        let products = catalog.products(in: catalog.storefront(catalog.defaultStorefront) ?? .unitedStates)
        var arguments = ["--no-shadow", "--menu", "Products", String(rows), String(columns), String(dialogListHeight)]
        for product in products {
            arguments += [product.displayName, "\(product.kindLabel)  \(product.displayPrice)"]
        }
        return ListProgram(
            name: "dialog", path: "/usr/bin/dialog", arguments: arguments,
            paintedWhenShowing: [products[0].displayName + " ", products[dialogListHeight - 1].displayName + " ", "Cancel"],
            rows: products.prefix(12).map(\.displayName))
    }

    /// Table lines the paywall shows at 100×30 with the event log open: 30 rows less
    /// four of header, a rule, column titles, the action row, two rules, four of log and the footer.
    static let paywallTableHeight = 16
    /// The menu rows `dialog` shows in a 30-row box: 30 less borders, the prompt and the buttons.
    static let dialogListHeight = 23

    private struct Line {
        var text: String
        var isProduct: Bool
    }

    /// The paywall's table in display order: a heading whenever the kind or subscription group changes.
    private static func tableLines(_ catalog: Catalog) -> [Line] {
        var lines: [Line] = []
        var heading: String?
        for product in catalog.products {
            let current = "\(product.type)-\(product.subscription?.groupID ?? "")"
            if current != heading {
                lines.append(Line(text: current, isProduct: false))
                heading = current
            }
            lines.append(Line(text: product.localization(for: "en_US").displayName, isProduct: true))
        }
        return lines
    }
}
