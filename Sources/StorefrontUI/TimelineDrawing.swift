import Foundation
import StoreEngine

// The timeline drawn in rows of the detail pane: a lane per plan (the highest level on top, so
// an upgrade climbs and a downgrade drops), a time axis with now marked, a legend of what shows,
// and the same periods in words with their dates.

/// The timeline's marks: block shades in UTF-8, letters and punctuation without it.
struct TimelineGlyphs {
    var trial, paid, offer, grace, billingRetry, next, refunded, expired, nowLine, nowAxis: String

    static let unicode = TimelineGlyphs(trial: "░", paid: "█", offer: "▓", grace: "▒", billingRetry: "╌", next: "┈",
                                        refunded: "✕", expired: "⊘", nowLine: "│", nowAxis: "┴")
    static let ascii = TimelineGlyphs(trial: ":", paid: "#", offer: "%", grace: "+", billingRetry: "~", next: ".",
                                      refunded: "R", expired: "E", nowLine: "|", nowAxis: "^")

    func bar(_ kind: SubscriptionHistory.Span.Kind) -> String {
        switch kind {
        case .trial: trial
        case .paid: paid
        case .offer: offer
        case .grace: grace
        case .billingRetry: billingRetry
        case .next: next
        }
    }

    func mark(_ kind: SubscriptionHistory.Mark.Kind) -> String { kind == .refunded ? refunded : expired }
}

extension Glyphs {
    var timeline: TimelineGlyphs { self == .ascii ? .ascii : .unicode }
}

extension SubscriptionHistory.Span.Kind {
    var word: String {
        switch self {
        case .trial: "trial"
        case .paid: "paid"
        case .offer: "offer"
        case .grace: "grace period"
        case .billingRetry: "billing retry"
        case .next: "next"
        }
    }

    /// A hint of colour; the glyphs alone tell the kinds apart (NO_COLOR, monochrome).
    var style: Style {
        switch self {
        case .trial: Style(color: .cyan)
        case .paid, .offer: Style(color: .green)
        case .grace: Style(color: .yellow)
        case .billingRetry: Style(color: .red)
        case .next: Style(dim: true)
        }
    }
}

private let nowStyle = Style(bold: true, color: .yellow)

/// The timeline's rows for a pane `width` columns wide; the transaction `selected` is pointed at.
func timelineRows(_ timeline: SubscriptionHistory, selected: Int64, _ state: State, width: Int,
                  timeZone: TimeZone) -> [PaneRow] {
    let g = state.glyphs
    let marks = g.timeline
    let name = { (id: String) in state.products.first { $0.id == id }?.displayName ?? id }
    let group = state.products.first { $0.subscription?.subscriptionGroupID == timeline.groupID }?.subscription?.groupDisplayName
        ?? timeline.groupID
    let day = { (date: Date) in String(shortDate(date, timeZone).prefix(10)) }
    var rows = [PaneRow(runs: [PaneRun(x: 0, text: "Subscription timeline \(g.dot) \(group) \(g.dot) store clock", style: bold)])]

    // Lanes: the plan's name, then its bar.
    let labelWidth = min(22, max(10, (timeline.lanes.map { TerminalText.width(name($0)) }.max() ?? 0) + 1), width / 3)
    let barWidth = max(10, width - labelWidth)
    let scale = TimelineScale(timeline, width: barWidth)
    let nowColumn = scale.cell(timeline.now)
    for lane in timeline.lanes {
        var cells = [PaneRun?](repeating: nil, count: barWidth)
        for span in timeline.spans where span.productID == lane {
            let first = scale.cell(span.start)
            let last = max(first, min(barWidth, Int(scale.column(span.end).rounded(.up))) - 1)
            for index in first...last { cells[index] = PaneRun(x: 0, text: marks.bar(span.kind), style: span.kind.style) }
        }
        for mark in timeline.marks where mark.productID == lane {
            cells[scale.cell(mark.date)] = PaneRun(x: 0, text: marks.mark(mark.kind), style: Style(bold: true, color: .red))
        }
        if cells[nowColumn] == nil { cells[nowColumn] = PaneRun(x: 0, text: marks.nowLine, style: nowStyle) }
        var runs = [PaneRun(x: 0, text: TerminalText.truncated(name(lane), to: labelWidth - 1), style: dim)]
        // Neighbouring cells of one look go out as one run.
        for (index, run) in cells.enumerated() {
            guard let run else { continue }
            if let last = runs.last, last.style == run.style, last.x + TerminalText.width(last.text) == labelWidth + index {
                runs[runs.count - 1].text += run.text
            } else {
                runs.append(PaneRun(x: labelWidth + index, text: run.text, style: run.style))
            }
        }
        rows.append(PaneRow(runs: runs))
    }

    // The axis, now on it, and the dates under it: the first, now, the last, where they do not collide.
    let axis = String(repeating: g.horizontal, count: nowColumn) + marks.nowAxis
        + String(repeating: g.horizontal, count: max(0, barWidth - nowColumn - 1))
    // The first date heads the axis, in the lanes' label column; now and the last go under it.
    let first = day(timeline.start), last = day(timeline.end)
    rows.append(PaneRow(runs: [PaneRun(x: max(0, labelWidth - 1 - TerminalText.width(first)), text: first, style: dim),
                               PaneRun(x: labelWidth, text: axis, style: dim),
                               PaneRun(x: labelWidth + nowColumn, text: marks.nowAxis, style: nowStyle)]))
    let nowText = "now \(day(timeline.now))"
    let nowX = nowColumn + TerminalText.width(nowText) <= barWidth ? nowColumn : max(0, nowColumn - TerminalText.width(nowText) + 1)
    var dates = [PaneRun(x: labelWidth + nowX, text: nowText, style: nowStyle)]
    if nowX + TerminalText.width(nowText) + 1 < barWidth - TerminalText.width(last) {
        dates.append(PaneRun(x: labelWidth + barWidth - TerminalText.width(last), text: last, style: dim))
    }
    rows.append(PaneRow(runs: dates))

    // The legend: only what shows, wrapped.
    var legend: [(String, Style)] = SubscriptionHistory.Span.Kind.allCases.filter { kind in timeline.spans.contains { $0.kind == kind } }
        .map { ("\(marks.bar($0)) \($0.word)", $0.style) }
    for kind in [SubscriptionHistory.Mark.Kind.refunded, .expired] where timeline.marks.contains(where: { $0.kind == kind }) {
        legend.append(("\(marks.mark(kind)) \(kind == .refunded ? "refunded" : "expired")", Style(color: .red)))
    }
    legend.append(("\(marks.nowLine) now", nowStyle))
    var row = PaneRow(), x = 0
    for (text, style) in legend {
        let w = TerminalText.width(text)
        if x > 0, x + w > width {
            rows.append(row)
            (row, x) = (PaneRow(), 0)
        }
        row.runs.append(PaneRun(x: x, text: text, style: style))
        x += w + 2
    }
    rows.append(row)

    // In words: kind, plan, dates; the selected transaction's period pointed at.
    let kindWord = { (span: SubscriptionHistory.Span) in span.kind.word + (span.periods > 1 ? " ×\(span.periods)" : "") }
    let kindWidth = (timeline.spans.map { TerminalText.width(kindWord($0)) } + [8]).max()! + 2
    let nameWidth = min(34, max(8, width - 4 - kindWidth - 24))
    var entries: [(date: Date, runs: [PaneRun])] = timeline.spans.map { span in
        let pointer = span.transactionIDs.contains(selected) ? g.pointer : " "
        let kind = kindWord(span)
        let plan = name(span.productID) + (span.change.map { " (\($0.rawValue))" } ?? "")
        let dates = span.kind == .next ? "from \(day(span.start))"
            : span.isOpen ? "\(day(span.start)) to now" : "\(day(span.start)) to \(day(span.end))"
        return (span.start, [PaneRun(x: 0, text: pointer, style: nowStyle),
                             PaneRun(x: 2, text: TerminalText.truncated(kind, to: kindWidth - 1), style: span.kind.style),
                             PaneRun(x: 2 + kindWidth, text: TerminalText.truncated(plan, to: nameWidth)),
                             PaneRun(x: 4 + kindWidth + nameWidth, text: dates, style: dim)])
    }
    entries += timeline.marks.map { mark in
        (mark.date, [PaneRun(x: 2, text: mark.kind == .refunded ? "refunded" : "expired", style: Style(color: .red)),
                     PaneRun(x: 2 + kindWidth, text: TerminalText.truncated(name(mark.productID), to: nameWidth)),
                     PaneRun(x: 4 + kindWidth + nameWidth, text: day(mark.date), style: dim)])
    }
    // Stable: a period and the mark at its end keep the period first.
    rows += entries.enumerated().sorted { ($0.element.date, $0.offset) < ($1.element.date, $1.offset) }
        .map { PaneRow(runs: $0.element.runs) }
    return rows
}
