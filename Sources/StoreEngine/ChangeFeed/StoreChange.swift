import Foundation

/// What changed in a store file, as ``StoreChangeFeed`` hands it to every subscriber.
///
/// One value per change: the renewals it made are made once, by the feed, whatever the
/// number of subscribers; each subscriber reads what else it shows (a snapshot, messages,
/// notifications) when it gets one.
public struct StoreChange: Sendable, Hashable {
    /// Why the feed looked at the store file.
    public enum Cause: String, Sendable, Hashable {
        /// The first value a new subscriber gets: the store as it is now.
        case subscribed
        /// A commit to the store file, by this store's connection or another one (another process).
        case written
        /// A renewal, billing step or expiry fell due on the store's clock (or a subscriber's
        /// ``StoreChangeFeed/wake(atStoreTime:)`` came).
        case clock
        /// The store file was replaced (deleted and made again, or renamed over).
        case replaced
    }

    /// Counts the feed's changes: each subscriber sees them in this order (the snapshot generation).
    public var sequence: Int
    public var cause: Cause
    /// `PRAGMA data_version` of the store's connection after the change.
    public var dataVersion: Int64
    /// The store's time when the feed looked.
    public var storeTime: Date
    /// Renewals (and billing steps and expiries that renew) the feed made for this change, every account.
    public var renewalsMade: Int
    /// Whether the feed itself wrote for this change: renewals, billing steps or expiries the
    /// clock made due. Made on the store's own connection, they do not move ``dataVersion``.
    public var madeDueChanges: Bool
    /// The account's purchased transactions the app has not finished, after the change: what
    /// `Transaction.updates` delivers (new purchases, approvals, renewals, refunds handed back).
    /// Read while a subscriber asks for it (``StoreChangeFeed/changes(includingUnfinished:)``,
    /// the default) and for ``StoreChangeFeed/refresh()``; empty, unread, while none does.
    public var unfinished: [Transaction]
}
