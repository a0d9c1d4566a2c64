/// A failure of the store's backend, whichever it is, as a front end tells the user: busy
/// (another process held the store past the wait; nothing is wrong, try again) or not.
///
/// Front ends catch this, never a backend's own error type, so they do not know which backend
/// a store is on.
public protocol LedgerError: Error, Sendable, CustomStringConvertible {
    /// Another process held the store for longer than the ledger waits: try again.
    var isBusy: Bool { get }
    /// The backend's own words for what went wrong (never a password).
    var message: String { get }
}
