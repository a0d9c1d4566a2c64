import Foundation
import Synchronization
import StoreEngine
import StorefrontUI

/// `storefront transactions`: the history written as it is read — a row of text, or one
/// element of the JSON array, per transaction, never the whole history held in memory —
/// page by page with `--limit`, `--since` and `--after` (the previous page's token).
extension Session {
    /// Which page of the history: at most `limit`, purchased at or after `since`, after the
    /// page whose token was `after`.
    struct Page {
        var limit: Int?
        var since: Date?
        var after: Int64?
    }

    /// Streams the listing to the console (what `run` does for `transactions`).
    func listTransactions(_ page: Page) async throws {
        // One reading of the store's time for every row's state.
        let now = try await appStore.now()
        let writer = ListingWriter(json: invocation.json, account: store.account, empty: Self.noTransactions(store.account, page),
                                   now: now, refundRequests: try await refundRequestStatuses(),
                                   subscriptions: try await subscriptionsByGroup(), write: console.out)
        let end = try await app.transactions(after: page.after, since: page.since, limit: page.limit) { transaction in
            writer.add(transaction)
        }
        writer.finish(end, footer: try await footer(end, page))
    }

    /// The status of each subscription group that can be in its grace period (in billing retry):
    /// a row's state says whether its period is in a grace period.
    func subscriptionsByGroup() async throws -> [String: SubscriptionStatus] {
        Dictionary(try await appStore.billingRetryStatuses().map { ($0.groupID, $0) }) { own, _ in own }
    }

    /// The refund requests the app made, by transaction: a row's state says one while it stands.
    func refundRequestStatuses() async throws -> [Int64: RefundRequest.Status] {
        Dictionary(try await appStore.refundRequests().map { ($0.transactionID, $0.status) }) { $1 }
    }

    /// The same listing as a ``Report``, for scenarios, which read a command's lines.
    func transactionsReport(_ page: Page) async throws -> Report {
        let now = try await appStore.now()
        let requests = try await refundRequestStatuses()
        let subscriptions = try await subscriptionsByGroup()
        let collected = Mutex<[Transaction]>([])
        let end = try await app.transactions(after: page.after, since: page.since, limit: page.limit) { transaction in
            collected.withLock { $0.append(transaction) }
        }
        let transactions = collected.withLock { $0 }
        let json = JSON.object([
            "account": .string(store.account), "transactions": .array(transactions.map {
                $0.json(at: now, refundRequest: requests[$0.id], subscription: $0.subscriptionGroupID.flatMap { subscriptions[$0] })
            }),
            "hasMore": .bool(end.hasMore), "revision": .string(HistoryRevision.token(after: end.lastID)),
        ])
        let footer = try await footer(end, page)
        guard !transactions.isEmpty else { return Report(json: json, [Self.noTransactions(store.account, page)] + footer) }
        var table = Table(Self.headers)
        for transaction in transactions {
            table.rows.append(Self.cells(transaction, price: transaction.displayPrice, at: now, refundRequest: requests[transaction.id],
                                         subscription: transaction.subscriptionGroupID.flatMap { subscriptions[$0] }))
        }
        return Report(json: json, [table.rendered] + footer)
    }

    static let headers = ["ID", "PURCHASED", "PRODUCT ID", "QTY", "PRICE", "STATUS", "EXPIRES", "NOTES"]

    /// One transaction's row of the text table: its state as the engine words it at the store's
    /// time `now`, and in the notes what the state word does not say.
    static func cells(_ transaction: Transaction, price: String, at now: Date, refundRequest: RefundRequest.Status?,
                      subscription: SubscriptionStatus? = nil) -> [String] {
        let state = TransactionState(of: transaction, at: now, subscription: subscription)
        var notes: [String] = []
        if transaction.ownershipType == .familyShared { notes.append("familyShared") }
        if let reason = transaction.revocationReason { notes.append("reason: \(reason.rawValue)") }
        if let offer = transaction.offerType { notes.append("\(offer.rawValue) offer") }
        // The state names the first that applies; an unfinished refund is still unfinished.
        if !transaction.isFinished, state != .unfinished { notes.append("unfinished") }
        if case .unverified(let reason) = transaction.verification { notes.append("UNVERIFIED: \(reason)") }
        return [String(transaction.id), transaction.purchaseDate.iso8601, transaction.productID,
                String(transaction.purchasedQuantity), price, state.text(refundRequest: refundRequest),
                transaction.expirationDate?.iso8601 ?? "", notes.joined(separator: ", ")]
    }

    static func noTransactions(_ account: String, _ page: Page) -> String {
        "No \(page.after == nil ? "" : "more ")transactions for \(TerminalText.sanitized(account))."
    }

    /// The lines after the table: where the next page starts, and the requests waiting.
    func footer(_ end: HistoryPageEnd, _ page: Page) async throws -> [String] {
        var lines: [String] = []
        if end.hasMore {
            var next = ["storefront", "transactions", "--after", HistoryRevision.token(after: end.lastID)]
            if let limit = page.limit { next += ["--limit", String(limit)] }
            if let since = page.since { next += ["--since", since.iso8601] }
            lines.append("More: \(next.joined(separator: " "))")
        }
        let waiting = try await appStore.pendingRequests().count
        if waiting > 0 {
            lines.append("\(waiting) request\(waiting == 1 ? "" : "s") pending (Ask to Buy, interrupted), not transactions yet: storefront transactions --pending")
        }
        return lines
    }
}

/// Writes the listing as the store reads it. The store's executor calls ``add(_:)`` for
/// each transaction in turn (never two at once), then the session calls ``finish(_:footer:)``.
/// Output goes out in blocks of about 64 KB, the first at once.
final class ListingWriter: @unchecked Sendable {
    private let json: Bool
    private let account: String
    /// The line that says there is nothing to list.
    private let empty: String
    private let write: @Sendable (String) -> Void
    /// The store's time the rows' states are at.
    private let now: Date
    /// The app's refund requests, by transaction: a row's state says one while it stands.
    private let refundRequests: [Int64: RefundRequest.Status]
    /// Each subscription group's status: whether a row's period is in its grace period.
    private let subscriptions: [String: SubscriptionStatus]
    /// A transaction's price as shown, made once for each storefront, currency and amount
    /// (formatting a currency was a tenth of a listing's time).
    private var prices: [String: [Decimal: String]] = [:]
    private var block: [String] = []
    private var blockBytes = 0
    private var count = 0
    /// Text: the rows read before the columns' widths are known (the first 100 set them).
    private var waiting: [[String]] = []
    private var widths: [Int]?
    /// JSON: the element before this one, written once it is known whether a comma follows.
    private var previous: String?
    static let widthRows = 100

    init(json: Bool, account: String, empty: String, now: Date, refundRequests: [Int64: RefundRequest.Status] = [:],
         subscriptions: [String: SubscriptionStatus] = [:], write: @escaping @Sendable (String) -> Void) {
        self.now = now
        self.refundRequests = refundRequests
        self.subscriptions = subscriptions
        self.json = json
        self.account = account
        self.empty = empty
        self.write = write
    }

    func add(_ transaction: Transaction) {
        count += 1
        if json {
            if count == 1 {
                line("{")
                line("  \"account\": " + JSON.string(account).serialized() + ",")
                line("  \"transactions\": [")
            }
            if let previous { line("    " + previous + ",") }
            let subscription = transaction.subscriptionGroupID.flatMap { subscriptions[$0] }
            previous = transaction.json(at: now, refundRequest: refundRequests[transaction.id], subscription: subscription)
                .serialized(nestedAt: 4)
        } else {
            let key = transaction.storefront + " " + transaction.currency
            let shown = prices[key]?[transaction.price] ?? transaction.displayPrice
            prices[key, default: [:]][transaction.price] = shown
            let cells = Session.cells(transaction, price: shown, at: now, refundRequest: refundRequests[transaction.id],
                                      subscription: transaction.subscriptionGroupID.flatMap { subscriptions[$0] })
                .map(TerminalText.sanitized)
            if widths == nil {
                waiting.append(cells)
                if waiting.count == Self.widthRows {
                    flushWaiting()
                    flush()  // the first lines at once
                }
            } else {
                row(cells)
            }
        }
        if json, count == 16 { flush() }  // the first lines at once
    }

    func finish(_ end: HistoryPageEnd, footer: [String]) {
        if json {
            if count == 0 {
                line("{")
                line("  \"account\": " + JSON.string(account).serialized() + ",")
                line("  \"transactions\": [],")
            } else {
                if let previous { line("    " + previous) }
                line("  ],")
            }
            line("  \"hasMore\": \(end.hasMore),")
            line("  \"revision\": " + JSON.string(HistoryRevision.token(after: end.lastID)).serialized())
            line("}")
        } else {
            if count == 0 {
                line(empty)
            } else if widths == nil {
                flushWaiting()
            }
            footer.forEach(line)
        }
        flush()
    }

    /// The header and the rows held so far, now that the widths are known.
    private func flushWaiting() {
        let header = Session.headers
        widths = header.indices.map { column in
            ([header] + waiting).map { TerminalText.width($0[column]) }.max() ?? 0
        }
        row(header)
        waiting.forEach(row)
        waiting = []
    }

    /// A row padded to the widths (a wider cell later widens its own row only, as it must be written now).
    private func row(_ cells: [String]) {
        let text = cells.enumerated().map { column, cell in
            column == cells.count - 1 ? cell : TerminalText.padded(cell, to: widths![column])
        }.joined(separator: "  ")
        line(text.trimmingTrailingSpaces)
    }

    private func line(_ text: String) {
        block.append(text)
        blockBytes += text.utf8.count + 1
        if blockBytes >= 65_536 { flush() }
    }

    private func flush() {
        guard !block.isEmpty else { return }
        write(block.joined(separator: "\n"))
        block.removeAll(keepingCapacity: true)
        blockBytes = 0
    }
}
