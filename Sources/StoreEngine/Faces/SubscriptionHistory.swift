import Foundation

// A subscription group's life as typed spans and marks, for a timeline: its periods (trial, paid,
// offer), the changes of plan between them, billing trouble (grace period, billing retry), how it
// ended (expiry, refund) and what comes next, against the store's time. Built from the ledger's
// records — transactions, the billing failures the App Store recorded (its DID_FAIL_TO_RENEW and
// GRACE_PERIOD_EXPIRED notifications), the log's expiry states — never from the log's words.

/// One subscription group's history.
public struct SubscriptionHistory: Sendable, Hashable {
    /// A stretch of time.
    public struct Span: Sendable, Hashable {
        public enum Kind: String, Sendable, Hashable, CaseIterable {
            case trial, paid, offer, grace, billingRetry
            /// The period that auto-renewal starts at the current one's end (a downgrade's new plan).
            case next
        }

        /// How a period's plan was reached from the one before it.
        public enum PlanChange: String, Sendable, Hashable {
            case upgrade, downgrade, crossgrade
        }

        public var kind: Kind
        public var productID: String
        public var start: Date
        public var end: Date
        /// Back-to-back periods of the same kind and plan, as one (a year of renewals).
        public var periods = 1
        public var change: PlanChange?
        /// The transactions whose periods these are (none for grace, retry, next).
        public var transactionIDs: [Int64] = []
        /// Still going on at the store's time, with no end known (billing retry).
        public var isOpen = false

        public init(kind: Kind, productID: String, start: Date, end: Date, periods: Int = 1, change: PlanChange? = nil,
                    transactionIDs: [Int64] = [], isOpen: Bool = false) {
            (self.kind, self.productID, self.start, self.end, self.periods) = (kind, productID, start, end, periods)
            (self.change, self.transactionIDs, self.isOpen) = (change, transactionIDs, isOpen)
        }
    }

    /// A moment: how the subscription ended.
    public struct Mark: Sendable, Hashable {
        public enum Kind: String, Sendable, Hashable { case expired, refunded }
        public var kind: Kind
        public var productID: String
        public var date: Date

        public init(kind: Kind, productID: String, date: Date) { (self.kind, self.productID, self.date) = (kind, productID, date) }
    }

    /// A renewal the App Store failed to bill, as it recorded it.
    public struct BillingFailure: Sendable, Hashable {
        /// The transaction whose period's renewal failed.
        public var transactionID: Int64
        /// When: that period's end.
        public var date: Date
        /// The end of the billing grace period it started; nil when it went straight to billing retry.
        public var gracePeriodEnd: Date?

        public init(transactionID: Int64, date: Date, gracePeriodEnd: Date?) {
            (self.transactionID, self.date, self.gracePeriodEnd) = (transactionID, date, gracePeriodEnd)
        }
    }

    public var groupID: String
    /// The group's plans that appear, the highest level first: an upgrade climbs, a downgrade drops.
    public var lanes: [String]
    public var spans: [Span]
    public var marks: [Mark]
    /// The store's time.
    public var now: Date
    public var start: Date
    public var end: Date

    /// Back-to-back means within this: a renewal starts where the period before it ends.
    public static let slack: TimeInterval = 60

    /// The history of `groupID` from the account's transactions (any order), the group's status, the
    /// billing failures recorded and the expiries logged (by transaction id); nil when no period of it exists.
    /// `products`: the catalog's, for the plans' levels and periods.
    public init?(groupID: String, transactions: [Transaction], status: SubscriptionStatus?, failures: [BillingFailure],
                 expiries: [Int64: Date], products: [Product], now: Date) {
        let history = transactions
            .filter { $0.subscriptionGroupID == groupID && $0.productType == .autoRenewable && $0.status == .purchased }
            .sorted { ($0.purchaseDate, $0.id) < ($1.purchaseDate, $1.id) }
        guard !history.isEmpty else { return nil }
        let levels = Dictionary(products.compactMap { product in product.subscription.map { (product.id, $0.groupLevel) } },
                                uniquingKeysWith: { first, _ in first })
        var spans: [Span] = []
        var marks: [Mark] = []
        var previous: (transaction: Transaction, end: Date)?
        for (index, transaction) in history.enumerated() {
            var end = transaction.expirationDate ?? transaction.purchaseDate
            // An upgraded period stops where the upgrade starts; a refunded one where the refund came.
            if transaction.isUpgraded, index + 1 < history.count { end = min(end, history[index + 1].purchaseDate) }
            if let revoked = transaction.revocationDate {
                end = min(end, revoked)
                marks.append(Mark(kind: .refunded, productID: transaction.productID, date: revoked))
            }
            // A gap: billing trouble the App Store recorded, or the subscription had ended (and this one is a new start).
            var lapsed = false
            if let previous, transaction.purchaseDate.timeIntervalSince(previous.end) > Self.slack {
                let trouble = Self.billingTrouble(after: previous.transaction, from: previous.end, to: transaction.purchaseDate,
                                                  failures: failures)
                spans += trouble
                lapsed = trouble.isEmpty
                if lapsed, let ended = expiries[previous.transaction.id] {
                    marks.append(Mark(kind: .expired, productID: previous.transaction.productID, date: ended))
                }
            }
            var span = Span(kind: Self.kind(of: transaction), productID: transaction.productID,
                            start: transaction.purchaseDate, end: max(end, transaction.purchaseDate), transactionIDs: [transaction.id])
            if let previous, !lapsed, previous.transaction.productID != transaction.productID {
                span.change = Self.change(from: levels[previous.transaction.productID], to: levels[transaction.productID])
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
            let tail = Self.tail(after: latest, end: latestEnd, status: status, failures: failures, expiries: expiries,
                                 products: products, levels: levels, now: now)
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

    /// A period's kind: a free trial (``TransactionFacts/isFreeTrial(_:)``), another offer, or paid.
    private static func kind(of transaction: Transaction) -> Span.Kind {
        if TransactionFacts.isFreeTrial(transaction) { return .trial }
        return transaction.offerType == nil ? .paid : .offer
    }

    /// Level 1 is the group's highest: a lower number is an upgrade.
    private static func change(from old: Int?, to new: Int?) -> Span.PlanChange {
        guard let old, let new, old != new else { return .crossgrade }
        return new < old ? .upgrade : .downgrade
    }

    /// What lay between a period's end and the next one's start: billing retry (after a grace period)
    /// when the App Store failed to bill the renewal, else nothing (the subscription had lapsed).
    private static func billingTrouble(after transaction: Transaction, from start: Date, to end: Date,
                                       failures: [BillingFailure]) -> [Span] {
        guard let failure = failures.last(where: { $0.transactionID == transaction.id }) else { return [] }
        var spans: [Span] = []
        var retryStart = start
        if let grace = failure.gracePeriodEnd, grace > start {
            retryStart = min(grace, end)
            spans.append(Span(kind: .grace, productID: transaction.productID, start: start, end: retryStart))
        }
        if end > retryStart {
            spans.append(Span(kind: .billingRetry, productID: transaction.productID, start: retryStart, end: end))
        }
        return spans
    }

    /// After the newest period: billing trouble now, how it ended, or the period auto-renewal starts next.
    private static func tail(after latest: Transaction, end: Date, status: SubscriptionStatus?, failures: [BillingFailure],
                             expiries: [Int64: Date], products: [Product], levels: [String: Int],
                             now: Date) -> (spans: [Span], marks: [Mark]) {
        guard let status, status.transaction.id == latest.id else { return ([], []) }
        let info = status.renewalInfo
        switch status.state {
        case .inGracePeriod, .inBillingRetryPeriod:
            var spans: [Span] = []
            var retryStart = end
            // The grace period's end as the renewal info says it, or as the failure recorded it (once in billing retry).
            let graceEnd = info.gracePeriodExpirationDate ?? failures.last { $0.transactionID == latest.id }?.gracePeriodEnd
            if let grace = graceEnd, grace > end {
                spans.append(Span(kind: .grace, productID: latest.productID, start: end, end: grace))
                retryStart = grace
            }
            if status.state == .inBillingRetryPeriod {
                // Retried until paid or given up: no end is known yet.
                spans.append(Span(kind: .billingRetry, productID: latest.productID, start: retryStart,
                                  end: max(now, retryStart), isOpen: true))
            }
            return (spans, [])
        case .expired:
            let ended = expiries[latest.id] ?? end
            let trouble = ended.timeIntervalSince(end) > slack ? billingTrouble(after: latest, from: end, to: ended, failures: failures) : []
            return (trouble, [Mark(kind: .expired, productID: latest.productID, date: max(ended, end))])
        case .revoked:
            return ([], [])
        case .subscribed:
            guard info.willAutoRenew, let next = products.first(where: { $0.id == info.autoRenewPreference }),
                  let period = next.subscription?.subscriptionPeriod else { return ([], []) }
            var span = Span(kind: .next, productID: next.id, start: end, end: period.after(end))
            if next.id != latest.productID { span.change = change(from: levels[latest.productID], to: levels[next.id]) }
            return ([span], [])
        }
    }
}

extension AppStoreFace {
    /// The history of one subscription group of this account, at the store's time; nil when it has no period.
    public func subscriptionHistory(groupID: String) async throws -> SubscriptionHistory? {
        try await store.subscriptionHistories(groupID: groupID).first
    }

    /// The history of every subscription group the account has had, in the groups' id order.
    public func subscriptionHistories() async throws -> [SubscriptionHistory] {
        try await store.subscriptionHistories()
    }
}

extension Store {
    /// The account's subscription histories (of `groupID` only, when given), from the ledger's records.
    func subscriptionHistories(groupID: String? = nil) throws -> [SubscriptionHistory] {
        try processRenewals()
        let now = try currentTime()
        let transactions = try ledger.transactions(account: account)
            .filter { $0.productType == .autoRenewable && (groupID == nil || $0.subscriptionGroupID == groupID) }
        let groups = Set(transactions.compactMap(\.subscriptionGroupID)).sorted()
        guard !groups.isEmpty else { return [] }
        let statuses = try statuses(at: now, signed: false)
        let products = try pricedProducts(in: try storefront())
        let ids = Set(transactions.map(\.id))
        var failures: [SubscriptionHistory.BillingFailure] = []
        // Only the two kinds of record that say where billing failed (each notification read brings its attempts).
        func recorded(_ type: NotificationType) throws -> [ServerNotification] {
            var filter = NotificationFilter(type: type.rawValue)
            filter.account = account
            return try ledger.notifications(filter, after: nil, limit: Int.max).filter { $0.transactionID.map(ids.contains) ?? false }
        }
        let graceExpired = Dictionary(try recorded(.gracePeriodExpired).map { ($0.transactionID!, $0.signedDate) },
                                      uniquingKeysWith: { _, newer in newer })
        for notification in try recorded(.didFailToRenew) {
            let id = notification.transactionID!
            var graceEnd: Date?
            if notification.notificationSubtype == .gracePeriod {
                // Its end as recorded when it ran out; else as the App Store set it (the same rule).
                let lapsed = transactions.first { $0.id == id }
                let period = lapsed.flatMap { catalog.product(id: $0.productID)?.subscription?.period }
                let rule = try gracePeriodRule()
                graceEnd = graceExpired[id] ?? lapsed.flatMap { lapsed in
                    period.flatMap { rule.gracePeriod(for: $0, after: lapsed) }?.after(notification.signedDate)
                }
            }
            failures.append(.init(transactionID: id, date: notification.signedDate, gracePeriodEnd: graceEnd))
        }
        var expiries: [Int64: Date] = [:]
        for event in try ledger.events(account: account, limit: Int.max) where event.state == .expired {
            if let id = event.transactionID, ids.contains(id) { expiries[id] = event.date }
        }
        return groups.compactMap { group in
            let status = statuses.first { $0.groupID == group }
            return SubscriptionHistory(groupID: group, transactions: transactions, status: status, failures: failures,
                                       expiries: expiries, products: products, now: now)
        }
    }
}
