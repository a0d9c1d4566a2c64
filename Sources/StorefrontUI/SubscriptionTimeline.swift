import Foundation
import StoreEngine

// A subscription group's life on a time axis, for the manager's detail pane: its periods
// (trial, paid, offer), the changes of plan between them, billing trouble (grace period,
// billing retry), how it ended (expiry, refund), what comes next, and now on the store's clock.
// Built from what the screen has read already: the history, the group's status and the log.

/// A stretch of time on the timeline.
struct TimelineSpan: Equatable {
    enum Kind: Equatable, CaseIterable {
        case trial, paid, offer, grace, billingRetry
        /// The period that auto-renewal starts at the current one's end (a downgrade's new plan).
        case next
    }

    /// How a period's plan was reached from the one before it.
    enum PlanChange: String, Equatable {
        case upgrade, downgrade, crossgrade
    }

    var kind: Kind
    var productID: String
    var start: Date
    var end: Date
    /// Back-to-back periods of the same kind and plan drawn as one (a year of renewals).
    var periods = 1
    var change: PlanChange?
    /// The transactions whose periods these are (none for grace, retry, next).
    var transactionIDs: [Int64] = []
    /// Still going on at the store's time now, with no end known (billing retry).
    var isOpen = false
}

/// A moment on the timeline: how the subscription ended.
struct TimelineMark: Equatable {
    enum Kind: Equatable { case expired, refunded }
    var kind: Kind
    var productID: String
    var date: Date
}

/// One subscription group's timeline.
struct SubscriptionTimeline: Equatable {
    var groupID: String
    /// The group's plans that appear, the highest level first: an upgrade climbs, a downgrade drops.
    var lanes: [String]
    var spans: [TimelineSpan]
    var marks: [TimelineMark]
    /// The store's time now.
    var now: Date
    var start: Date
    var end: Date

    /// Back-to-back means within this: a renewal starts where the period before it ends.
    static let slack: TimeInterval = 60

    /// The timeline of `groupID` from the account's history (any order), the group's status and the log;
    /// nil when the history holds no period of it.
    init?(groupID: String, transactions: [Transaction], status: SubscriptionStatus?, events: [TransactionEvent],
          products: [Product], now: Date) {
        let history = transactions
            .filter { $0.subscriptionGroupID == groupID && $0.productType == .autoRenewable && $0.status == .purchased }
            .sorted { ($0.purchaseDate, $0.id) < ($1.purchaseDate, $1.id) }
        guard !history.isEmpty else { return nil }
        let levels = Dictionary(products.compactMap { product in product.subscription.map { (product.id, $0.groupLevel) } },
                                uniquingKeysWith: { first, _ in first })
        var spans: [TimelineSpan] = []
        var marks: [TimelineMark] = []
        var previous: (transaction: Transaction, end: Date)?
        for (index, transaction) in history.enumerated() {
            var end = transaction.expirationDate ?? transaction.purchaseDate
            // An upgraded period stops where the upgrade starts; a refunded one where the refund came.
            if transaction.isUpgraded, index + 1 < history.count { end = min(end, history[index + 1].purchaseDate) }
            if let revoked = transaction.revocationDate {
                end = min(end, revoked)
                marks.append(TimelineMark(kind: .refunded, productID: transaction.productID, date: revoked))
            }
            // A gap: billing trouble the App Store logged, or the subscription had ended (and this one is a new start).
            var lapsed = false
            if let previous, transaction.purchaseDate.timeIntervalSince(previous.end) > Self.slack {
                let trouble = Self.billingTrouble(after: previous.transaction, from: previous.end, to: transaction.purchaseDate,
                                                  events: events)
                spans += trouble
                lapsed = trouble.isEmpty
                if lapsed, let ended = events.last(where: { $0.state == .expired && $0.transactionID == previous.transaction.id }) {
                    marks.append(TimelineMark(kind: .expired, productID: previous.transaction.productID, date: ended.date))
                }
            }
            var span = TimelineSpan(kind: Self.kind(of: transaction), productID: transaction.productID,
                                    start: transaction.purchaseDate, end: max(end, transaction.purchaseDate),
                                    transactionIDs: [transaction.id])
            if let previous, !lapsed, previous.transaction.productID != transaction.productID {
                span.change = Self.change(from: levels[previous.transaction.productID], to: levels[transaction.productID],
                                          upgraded: previous.transaction.isUpgraded)
            }
            if let last = spans.last, last.kind == span.kind, last.productID == span.productID, span.change == nil,
               abs(span.start.timeIntervalSince(last.end)) <= Self.slack {
                spans[spans.count - 1].end = span.end
                spans[spans.count - 1].periods += 1
                spans[spans.count - 1].transactionIDs.append(transaction.id)
            } else {
                spans.append(span)
            }
            previous = (transaction, end)
        }
        if let (latest, latestEnd) = previous, latest.revocationDate == nil {
            let tail = Self.tail(after: latest, end: latestEnd, status: status, events: events, products: products,
                                 levels: levels, now: now)
            spans += tail.spans
            marks += tail.marks
        }
        self.groupID = groupID
        self.spans = spans
        self.marks = marks.sorted { $0.date < $1.date }
        self.now = now
        start = min(spans.map(\.start).min() ?? now, now)
        end = ([now] + spans.map(\.end) + marks.map(\.date)).max() ?? now
        // A day at least, so a trial bought a minute ago is a bar, not a dot.
        if end.timeIntervalSince(start) < 86_400 { end = start.addingTimeInterval(86_400) }
        let used = spans.map(\.productID) + marks.map(\.productID)
        var lanes: [String] = []
        for id in used where !lanes.contains(id) { lanes.append(id) }
        self.lanes = lanes.enumerated().sorted { (levels[$0.element] ?? .max, $0.offset) < (levels[$1.element] ?? .max, $1.offset) }
            .map(\.element)
    }

    private static func kind(of transaction: Transaction) -> TimelineSpan.Kind {
        if transaction.offerPaymentMode == .freeTrial { return .trial }
        return transaction.offerType == nil ? .paid : .offer
    }

    /// Level 1 is the group's highest: a lower number is an upgrade.
    private static func change(from old: Int?, to new: Int?, upgraded: Bool) -> TimelineSpan.PlanChange {
        guard let old, let new, old != new else { return .crossgrade }
        return new < old ? .upgrade : .downgrade
    }

    /// What lay between a period's end and the next one's start: billing retry (after a grace period)
    /// when the App Store failed to bill the renewal, else nothing (the subscription had lapsed).
    private static func billingTrouble(after transaction: Transaction, from start: Date, to end: Date,
                                       events: [TransactionEvent]) -> [TimelineSpan] {
        guard let failure = events.last(where: { $0.state == .failed && $0.transactionID == transaction.id }) else { return [] }
        var spans: [TimelineSpan] = []
        var retryStart = start
        if let grace = graceEnd(failure), grace > start {
            retryStart = min(grace, end)
            spans.append(TimelineSpan(kind: .grace, productID: transaction.productID, start: start, end: retryStart))
        }
        if end > retryStart {
            spans.append(TimelineSpan(kind: .billingRetry, productID: transaction.productID, start: retryStart, end: end))
        }
        return spans
    }

    /// The grace period's end the App Store logged with a failed renewal ("renewal failed: grace period until DATE").
    static func graceEnd(_ failure: TransactionEvent) -> Date? {
        guard let range = failure.detail.range(of: "grace period until ") else { return nil }
        return try? Date(String(failure.detail[range.upperBound...].prefix { !$0.isWhitespace }), strategy: .iso8601)
    }

    /// After the newest period: billing trouble now, how it ended, or the period auto-renewal starts next.
    private static func tail(after latest: Transaction, end: Date, status: SubscriptionStatus?, events: [TransactionEvent],
                             products: [Product], levels: [String: Int], now: Date) -> (spans: [TimelineSpan], marks: [TimelineMark]) {
        guard let status, status.transaction.id == latest.id else { return ([], []) }
        let info = status.renewalInfo
        switch status.state {
        case .inGracePeriod, .inBillingRetryPeriod:
            var spans: [TimelineSpan] = []
            var retryStart = end
            if let grace = info.gracePeriodExpirationDate, grace > end {
                spans.append(TimelineSpan(kind: .grace, productID: latest.productID, start: end, end: grace))
                retryStart = grace
            }
            if status.state == .inBillingRetryPeriod {
                // Retried until paid or given up: no end is known yet.
                spans.append(TimelineSpan(kind: .billingRetry, productID: latest.productID, start: retryStart,
                                          end: max(now, retryStart), isOpen: true))
            }
            return (spans, [])
        case .expired:
            let ended = events.last { $0.state == .expired && $0.transactionID == latest.id }?.date ?? end
            let trouble = ended.timeIntervalSince(end) > slack
                ? billingTrouble(after: latest, from: end, to: ended, events: events) : []
            return (trouble, [TimelineMark(kind: .expired, productID: latest.productID, date: max(ended, end))])
        case .revoked:
            return ([], [])
        case .subscribed:
            guard info.willAutoRenew, let next = products.first(where: { $0.id == info.autoRenewPreference }),
                  let period = next.subscription?.subscriptionPeriod else { return ([], []) }
            var span = TimelineSpan(kind: .next, productID: next.id, start: end, end: period.after(end))
            if next.id != latest.productID {
                span.change = change(from: levels[latest.productID], to: levels[next.id], upgraded: false)
            }
            return ([span], [])
        }
    }
}

/// Where dates fall on a bar `width` columns wide. Linear between the timeline's moments (period
/// starts and ends, marks, now), except that every stretch between two of them gets two columns at
/// least, so a week's trial before a year's plan still shows; the period auto-renewal starts next
/// is a short stub at the right, not a second year of axis.
struct TimelineScale {
    private var points: [Date] = []
    private var columns: [Double] = []
    let width: Int

    init(_ timeline: SubscriptionTimeline, width: Int) {
        self.width = max(1, width)
        let next = timeline.spans.first { $0.kind == .next }
        let moments = timeline.spans.filter { $0.kind != .next }.flatMap { [$0.start, $0.end] }
            + timeline.marks.map(\.date) + [timeline.now, timeline.start] + (next.map { [$0.start] } ?? [])
        points = Array(Set(moments)).sorted()
        let stub = next == nil ? 0 : min(8, self.width / 6)
        let stretches = zip(points, points.dropFirst()).map { $1.timeIntervalSince($0) }
        let room = Double(self.width - stub)
        let least = Double(stretches.count * 2) <= room ? 2.0 : 0
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
