import Foundation

extension AppFace {
    /// The account's history as the app sees it (`Transaction.all`, as ``transactions(limit:)``),
    /// handed to `body` one by one as the store file is read, newest first: older than `after`
    /// (a transaction id, exclusive: where the previous page ended), purchased at or after `since`,
    /// at most `limit`. Returns where it stopped, for the next page.
    public func transactions(after: Int64? = nil, since: Date? = nil, limit: Int? = nil,
                             each body: @escaping @Sendable (Transaction) -> Void) async throws -> HistoryPageEnd {
        try await store.forEachAppTransaction(after: after, since: since, limit: limit, body)
    }
}
