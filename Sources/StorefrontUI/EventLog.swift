import Foundation
import StoreEngine

// The event log under the paywall: the account's StoreKit 1 transaction states, dated by the
// store's clock, in the order they happened, in the rows the table leaves free; [ ] scroll it.

/// Scrolls the log: `[` a line back, `]` a line on, `{` `}` a page; never past its ends.
func scrollLog(_ state: inout State, _ key: Key) {
    let height = Layout(state).logHeight
    let count = state.snapshot?.events.count ?? 0
    let page = max(1, height - 1)
    let step = switch key {
    case .character("["): 1
    case .character("]"): -1
    case .character("{"): page
    default: -page
    }
    state.logScroll = max(0, min(state.logScroll + step, max(0, count - height)))
}

/// "2026-12-01 14:02:11": an event's date and time on the store's clock, in the screen's time zone.
func logDate(_ date: Date, _ timeZone: TimeZone) -> String {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = timeZone
    let second = calendar.component(.second, from: date)
    return shortDate(date, timeZone) + ":" + (second < 10 ? "0\(second)" : "\(second)")
}

/// One line of the log, whole: the caller cuts it to the width with "…".
func logLine(_ event: TransactionEvent, _ timeZone: TimeZone) -> String {
    var text = "\(logDate(event.date, timeZone)) \(event.state.rawValue.padding(toLength: 10, withPad: " ", startingAt: 0)) \(event.productID)"
    if let id = event.transactionID { text += "  tx \(id)" }
    if !event.detail.isEmpty { text += "  (\(event.detail))" }
    return text
}

func drawLog(_ state: State, _ layout: Layout, timeZone: TimeZone, into canvas: inout Canvas) {
    let all = state.snapshot?.events ?? []
    let scroll = max(0, min(state.logScroll, all.count - layout.logHeight))
    let events = all.dropLast(scroll).suffix(layout.logHeight)
    if events.isEmpty {
        // Nothing read is not nothing there: an account with a history whose load failed has no events on screen.
        let empty = state.snapshot != nil ? "No transactions yet. Press \(state.glyphs.enter) to buy, r to restore."
            : state.loadError != nil ? "The event log is not loaded: the store could not be read (r retries)."
            : "Loading the event log…"
        canvas.put(TerminalText.truncated(empty, to: max(0, canvas.width - 2)), x: 1, y: layout.logTop, style: dim)
    }
    // The right column is kept for the scroll marks, so they never cover a line's text.
    let room = canvas.width - 4
    for (offset, event) in events.enumerated() {
        let color: Style.Color? = switch event.state {
        case .purchased, .restored: .green
        case .failed, .revoked: .red
        case .deferred, .expired: .yellow
        case .purchasing: nil
        }
        canvas.put(TerminalText.truncated(logLine(event, timeZone), to: room), x: 1, y: layout.logTop + offset,
                   style: Style(color: color))
    }
    let g = state.glyphs
    let hidden = all.count - scroll - events.count
    if hidden > 0 { canvas.put(g.up, x: canvas.width - 2, y: layout.logTop, style: dim) }
    if scroll > 0 { canvas.put(g.down, x: canvas.width - 2, y: layout.logTop + layout.logHeight - 1, style: dim) }
    rule(layout.footerRow - 1, state, into: &canvas)
    if hidden > 0 || scroll > 0 {
        // On the rule above: where the view is and the keys that move it.
        let label = " \(scroll > 0 ? "\(scroll) newer " : "")[ ] scroll "
        canvas.put(label, x: max(0, canvas.width - TerminalText.width(label) - 2), y: layout.logTop - 1, style: dim)
    }
}
