import Foundation

/// One line of the results table: a figure beside its baseline or limit.
struct Figure {
    var number: String
    var measure: String
    var value: String
    var baseline: String
    /// storefront / baseline, oriented so that lower is better unless `higherIsBetter`.
    var ratio: Double?
    /// The goal on the ratio, e.g. "≤ 1.00"; empty when the figure is for information.
    var goal: String
    var met: Bool?
}

/// The median, which one slow run on a noisy machine does not move.
func median<T: Comparable>(_ values: [T]) -> T {
    let sorted = values.sorted()
    return sorted[sorted.count / 2]
}

enum Report {
    /// The table, in Markdown so the README can take it as printed.
    static func table(_ figures: [Figure]) -> String {
        let header = ["#", "measure", "storefront", "baseline", "ratio", "goal", "met"]
        let rows = figures.map { figure in
            [figure.number, figure.measure, figure.value, figure.baseline,
             figure.ratio.map { String(format: "%.2f", $0) } ?? "–", figure.goal,
             figure.met.map { $0 ? "yes" : "**no**" } ?? ""]
        }
        return markdown(header: header, rows: rows)
    }

    /// A Markdown table with its columns padded to line up as plain text too.
    static func markdown(header: [String], rows: [[String]]) -> String {
        let widths = header.indices.map { column in ([header] + rows).map { $0[column].count }.max() ?? 0 }
        func line(_ cells: [String]) -> String {
            "| " + cells.enumerated().map { $1.padding(toLength: widths[$0], withPad: " ", startingAt: 0) }
                .joined(separator: " | ") + " |"
        }
        return ([line(header), "|" + widths.map { String(repeating: "-", count: $0 + 2) }.joined(separator: "|") + "|"]
                + rows.map(line)).joined(separator: "\n")
    }
}

func milliseconds(_ duration: Duration) -> String { String(format: "%.1f ms", duration.milliseconds) }
