import Foundation
import StoreEngine

// The detail pane's rows for a width: a subscription's timeline across the whole pane, then the
// facts and notifications (left) beside the signed payload (right), or one column below 96
// columns. `update` scrolls by these rows and `render` draws them, so both count alike.

/// Text at a column of a pane row.
struct PaneRun: Equatable {
    var x: Int
    var text: String
    var style: Style = .plain
}

/// One row of the pane.
struct PaneRow: Equatable {
    var runs: [PaneRun] = []
}

/// The pane's width inside the screen: two columns of margin left, three right for the scroll marks.
func detailPaneWidth(_ size: Size) -> Int { max(20, size.columns - 5) }

/// Every row of the open pane, top to bottom.
func detailPaneRows(_ state: State, timeZone: TimeZone) -> [PaneRow] {
    guard let tx = state.manager.detailTransaction, let detail = state.manager.detail else { return [] }
    let width = detailPaneWidth(state.size)
    var rows: [PaneRow] = []
    if let timeline = subscriptionTimeline(for: tx, state) {
        rows = timelineRows(timeline, selected: tx.id, state, width: width, timeZone: timeZone) + [PaneRow()]
    }
    let lines = detailLines(state, timeZone: timeZone)
    let split = lines.firstIndex { $0.label == "Signed payload" } ?? lines.count
    guard state.size.columns >= 96 else {
        return rows + columnRows(lines, width: width, wraps: detail.wrapsValues).map { PaneRow(runs: $0) }
    }
    // The facts take about half and never less than 50 columns; the payload the rest.
    let leftWidth = min(60, max(50, state.size.columns * 54 / 100))
    let left = columnRows(Array(lines[..<split]), width: leftWidth, wraps: detail.wrapsValues)
    let right = columnRows(Array(lines[split...]), width: width - leftWidth - 2, wraps: detail.wrapsValues)
    for index in 0..<max(left.count, right.count) {
        let shifted = (index < right.count ? right[index] : []).map { PaneRun(x: $0.x + leftWidth + 2, text: $0.text, style: $0.style) }
        rows.append(PaneRow(runs: (index < left.count ? left[index] : []) + shifted))
    }
    return rows
}

/// The history of the group a subscription transaction belongs to, as the engine read it for the pane.
func subscriptionTimeline(for transaction: Transaction, _ state: State) -> SubscriptionHistory? {
    guard transaction.productType == .autoRenewable, let group = transaction.subscriptionGroupID else { return nil }
    return state.manager.histories[group]
}

/// Labels and values in a column `width` wide: a label wider than its column gets a row of its own;
/// a long value is cut with "…", or with `wraps` continued on the rows below.
func columnRows(_ lines: [DetailLine], width: Int, wraps: Bool) -> [[PaneRun]] {
    let labelWidth = min(22, max(10, (lines.map { $0.value.isEmpty ? 0 : TerminalText.width($0.label) }.max() ?? 0) + 1))
    let valueWidth = max(4, width - labelWidth)
    var rows: [[PaneRun]] = []
    for line in lines {
        if line.value.isEmpty {
            rows.append([PaneRun(x: 0, text: TerminalText.truncated(line.label, to: width), style: line.style)])
            continue
        }
        var label: PaneRun? = line.label.isEmpty ? nil : PaneRun(x: 0, text: line.label, style: dim)
        if TerminalText.width(line.label) > labelWidth - 1 {
            // subscriptionGroupIdentifier: whole on its own row, never cut to a name that is not the field's.
            rows.append([PaneRun(x: 0, text: TerminalText.truncated(line.label, to: width), style: dim)])
            label = nil
        }
        let pieces = wraps ? wrapValue(line.value, valueWidth) : [TerminalText.truncated(line.value, to: valueWidth)]
        for (index, piece) in pieces.enumerated() {
            rows.append((index == 0 ? [label].compactMap { $0 } : []) + [PaneRun(x: labelWidth, text: piece, style: line.style)])
        }
    }
    return rows
}

/// A value in pieces no wider than `width`, broken at spaces where it has them, else at the width
/// (an id, a base64 string): every character shown, none lost.
func wrapValue(_ value: String, _ width: Int) -> [String] {
    let text = TerminalText.sanitized(value)
    guard TerminalText.width(text) > width else { return [text] }
    var pieces: [String] = []
    for part in wrap(text, width) {
        var rest = Substring(part)
        while TerminalText.width(String(rest)) > width {
            var taken = "", used = 0
            for character in rest {
                let w = TerminalText.width(of: character)
                if used + w > width { break }
                taken.append(character)
                used += w
            }
            pieces.append(taken)
            rest = rest.dropFirst(taken.count)
        }
        if !rest.isEmpty { pieces.append(String(rest)) }
    }
    return pieces
}

// MARK: - Drawing

/// Draws the pane over the list: its title, then the rows from its scroll.
func drawDetail(_ state: State, timeZone: TimeZone, into canvas: inout Canvas) {
    guard let tx = state.manager.detailTransaction, let detail = state.manager.detail else { return }
    let layout = ManagerLayout(state.size)
    let name = state.products.first { $0.id == tx.productID }?.displayName ?? tx.productID
    let rows = detailPaneRows(state, timeZone: timeZone)
    canvas.put(TerminalText.truncated("\(tx.status == .pending ? "Request" : "Transaction") \(tx.id) \(state.glyphs.dot) \(name)  (Esc closes)",
                                      to: canvas.width - 4), x: 2, y: 3, style: Style(bold: true))
    let scroll = min(detail.scroll, max(0, rows.count - layout.listHeight))
    let width = detailPaneWidth(state.size)
    for (offset, row) in rows.dropFirst(scroll).prefix(layout.listHeight).enumerated() {
        for run in row.runs {
            canvas.put(run.text, x: 2 + run.x, y: layout.listTop + offset, limit: max(0, width - run.x), style: run.style)
        }
    }
    if scroll > 0 { canvas.put(state.glyphs.up, x: canvas.width - 2, y: layout.listTop, style: dim) }
    if scroll + layout.listHeight < rows.count {
        canvas.put(state.glyphs.down, x: canvas.width - 2, y: layout.listTop + layout.listHeight - 1, style: dim)
    }
}
