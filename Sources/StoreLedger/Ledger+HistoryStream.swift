import Foundation
import StoreCatalog
import StoreSigning

/// Where a listing of the history stopped: the paging token's id, and whether there is more.
public struct HistoryPageEnd: Sendable, Equatable {
    /// The id of the last transaction listed (the next page starts after it); nil when none was.
    public var lastID: Int64?
    /// Whether `limit` cut the listing short.
    public var hasMore: Bool
    /// How many were listed.
    public var count: Int
}

/// A paging token like the App Store Server API's `revision`: opaque to the user, the id of
/// the last transaction of a page inside (base64url of `r:ID`). The CLI and `serve` share it.
public enum HistoryRevision {
    /// The token that continues after transaction `id` (nil: from the start).
    public static func token(after id: Int64?) -> String { Base64URL.encode(Array("r:\(id ?? 0)".utf8)) }

    /// The id a token continues after: `.some(nil)` for the start, nil when it is not a token.
    public static func id(_ token: String) -> Int64?? {
        guard let bytes = Base64URL.decode(token), let text = String(bytes: bytes, encoding: .utf8), text.hasPrefix("r:"),
              let id = Int64(text.dropFirst(2)), id >= 0 else { return nil }
        return .some(id == 0 ? nil : id)
    }
}

extension Ledger {
    /// The query of `Transaction.all`: its terms match the partial index `transactions_app_all`
    /// exactly, so SQLite walks the index newest first instead of every row of the history.
    static func appHistoryQuery(account: String, includeFinishedConsumables: Bool, before: Int64?, since: Date?,
                                limit: Int?) -> (sql: String, parameters: [any SQLBindable]) {
        // With consumables, nearly every row: the table newest first (`+account` keeps SQLite from
        // an index by account, through which it would sort the whole history before the first row).
        var terms = [includeFinishedConsumables ? "+account = ?" : "account = ?", "status = 'purchased'"]
        // A finished consumable only when refunded or revoked (Apple's `Transaction.all`).
        if !includeFinishedConsumables { terms.append("(product_type != 'consumable' OR finished = 0 OR revocation_date IS NOT NULL)") }
        var parameters: [any SQLBindable] = [account]
        if let before {
            terms.append("id < ?")
            parameters.append(before)
        }
        if let since {
            terms.append("purchase_date >= ?")
            parameters.append(since.milliseconds)
        }
        parameters.append(limit ?? Int.max)  // no limit, in words both backends take
        return ("SELECT \(verifiedColumns) FROM transactions WHERE \(terms.joined(separator: " AND ")) ORDER BY id DESC LIMIT ?",
                parameters)
    }

    /// `Transaction.all` newest first, handed to `body` as it is read (a SQLite cursor and
    /// chunks of rows, never the whole history in memory): transactions older than `before`
    /// (an id, exclusive), purchased at or after `since`, at most `limit`. The queries match
    /// the partial indexes exactly, so the first rows come at once at any history size.
    package func forEachAppTransaction(account: String, includeFinishedConsumables: Bool, before: Int64?, since: Date?,
                               limit: Int?, _ body: (Transaction) -> Void) throws(DatabaseError) -> HistoryPageEnd {
        // One more than asked for, so the listing knows whether there is more.
        let (sql, parameters) = Self.appHistoryQuery(account: account, includeFinishedConsumables: includeFinishedConsumables,
                                                     before: before, since: since, limit: limit.map { $0 + 1 })
        var end = HistoryPageEnd(lastID: nil, hasMore: false, count: 0)
        var chunk: [Transaction] = []
        var checks: [Check] = []
        func emit() {
            for transaction in settle(&chunk, checks, caching: false) {
                body(transaction)
                end.lastID = transaction.id
                end.count += 1
            }
            chunk.removeAll(keepingCapacity: true)
            checks.removeAll(keepingCapacity: true)
        }
        // One snapshot of the file for the whole listing, however others write meanwhile.
        do {
            try db.read {
                try db.query(sql, parameters) { row in
                    if let limit, end.count + chunk.count == limit {
                        end.hasMore = true
                        return
                    }
                    let (transaction, check) = pending(row)
                    chunk.append(transaction)
                    checks.append(check)
                    // A small first chunk, so the first line comes at once; then larger ones, checked on every core.
                    if chunk.count == (end.count == 0 ? 16 : 256) { emit() }
                }
                emit()
            }
        } catch let error as DatabaseError {
            throw error
        } catch {
            throw DatabaseError(code: 1, message: "\(error)")
        }
        return end
    }
}
