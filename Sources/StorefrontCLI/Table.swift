import StorefrontUI

/// An aligned text table for human output. Cells are sanitized (catalog text is
/// data) and measured in terminal columns, so wide characters keep columns straight.
struct Table {
    var headers: [String]
    var rows: [[String]] = []

    init(_ headers: String...) { self.headers = headers }
    init(_ headers: [String]) { self.headers = headers }

    mutating func add(_ cells: String...) { rows.append(cells) }

    var rendered: String {
        let all = ([headers] + rows).map { $0.map(TerminalText.sanitized) }
        var widths = Array(repeating: 0, count: headers.count)
        for row in all {
            for (column, cell) in row.enumerated() { widths[column] = max(widths[column], TerminalText.width(cell)) }
        }
        return all.map { row in
            row.enumerated().map { column, cell in
                column == row.count - 1 ? cell : TerminalText.padded(cell, to: widths[column])
            }.joined(separator: "  ").trimmingTrailingSpaces
        }.joined(separator: "\n")
    }
}

extension String {
    var trimmingTrailingSpaces: String {
        var text = self
        while text.last == " " { text.removeLast() }
        return text
    }
}
