import Foundation

/// `Transaction.all` as a listing reads it: page by page, each transaction handed on as it
/// is read, so a history of a million costs what the page shown costs.
extension Store {
    /// ``appTransactions(limit:)`` streamed: transactions older than `after` (an id, exclusive),
    /// purchased at or after `since`, at most `limit`, newest first, each passed to `body` as it is read.
    func forEachAppTransaction(after: Int64?, since: Date?, limit: Int?,
                               _ body: @Sendable (Transaction) -> Void) throws -> HistoryPageEnd {
        try processRenewals()
        return try ledger.forEachAppTransaction(account: account,
                                                includeFinishedConsumables: try value(.includeConsumablesInHistory),
                                                before: after, since: since, limit: limit, body)
    }
}
