import Foundation
import StoreEngine

// A subscription group's timeline on a bar, for the manager's detail pane. What it shows is the
// engine's SubscriptionHistory (its spans and marks, read from the ledger's records by the face);
// this file only places its dates on columns.

/// Where dates fall on a bar `width` columns wide. Linear between the timeline's moments (period
/// starts and ends, marks, now), except that every stretch between two of them gets two columns at
/// least (or an equal share of the bar, when it is too short for two each), so a week's trial before
/// a year's plan still shows; the period auto-renewal starts next
/// is a short stub at the right, not a second year of axis.
struct TimelineScale {
    private var points: [Date] = []
    private var columns: [Double] = []
    let width: Int

    init(_ timeline: SubscriptionHistory, width: Int) {
        self.width = max(1, width)
        let next = timeline.spans.first { $0.kind == .next }
        let moments = timeline.spans.filter { $0.kind != .next }.flatMap { [$0.start, $0.end] }
            + timeline.marks.map(\.date) + [timeline.now, timeline.start] + (next.map { [$0.start] } ?? [])
        points = Array(Set(moments)).sorted()
        let stub = next == nil ? 0 : min(8, self.width / 6)
        let stretches = zip(points, points.dropFirst()).map { $1.timeIntervalSince($0) }
        let room = Double(self.width - stub)
        // Two columns each, or as much as the bar has when that is too much: a long life's day of
        // grace, of billing retry, or an expiry then still gets a column (issue 40: it got none).
        let least = stretches.isEmpty ? 0 : min(2, room / Double(stretches.count))
        let total = max(1, stretches.reduce(0, +))
        let spare = room - least * Double(stretches.count)
        columns = [0]
        for stretch in stretches { columns.append(columns.last! + least + spare * stretch / total) }
        if let next {
            points.append(next.end)
            columns.append(columns.last! + Double(stub))
        }
        if points.count == 1 {
            points.append(timeline.end)
            columns.append(Double(self.width))
        }
    }

    /// The column (fractional) where `date` falls.
    func column(_ date: Date) -> Double {
        guard let last = points.last, date < last else { return columns.last ?? 0 }
        guard let upper = points.firstIndex(where: { $0 > date }), upper > 0 else { return 0 }
        let (from, to) = (points[upper - 1], points[upper])
        let fraction = date.timeIntervalSince(from) / max(1, to.timeIntervalSince(from))
        return columns[upper - 1] + (columns[upper] - columns[upper - 1]) * fraction
    }

    /// The cell `date` falls in.
    func cell(_ date: Date) -> Int { min(width - 1, max(0, Int(column(date).rounded(.down)))) }
}
