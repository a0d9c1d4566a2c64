/// A key the paywall understands, decoded from the terminal by the backend.
public enum Key: Equatable, Sendable {
    case character(Character)
    case up, down, left, right
    case pageUp, pageDown, home, end
    case enter, escape, tab, backspace
    /// Ctrl-C, read as a key (the terminal is in raw mode) so quitting restores the screen.
    case interrupt
}

/// How a purchase ended, as the alert or the checkmark reports it.
public enum PurchaseReport: Equatable, Sendable {
    /// Purchased, or for an owned product restored for free (`restored`).
    case success(transactionID: Int64, restored: Bool)
    case userCancelled
    case pending
    /// A StoreKit error: its Swift name (`paymentNotAllowed`), where Apple declares it, and a plain sentence.
    case failed(name: String, domain: String?, message: String)
}

/// Everything that can happen to the paywall: input, timers and engine results.
public enum Action: Equatable, Sendable {
    case key(Key)
    case click(ClickTarget)
    case resized(Size)
    /// A timer tick, about ten a second.
    case tick
    case loaded(StoreSnapshot)
    case loadFailed(String)
    case purchased(productID: String, PurchaseReport)
    case restored(count: Int)
    case restoreFailed(String)
    case consumed(productID: String, balance: Int)
    case consumeFailed(String)
    /// The store file's current data version, from a periodic check.
    case dataVersion(Int64)
    /// SIGTERM or SIGHUP: leave at once, restoring the terminal.
    case terminate
}

/// Work for the runtime to do: engine calls, described as values so `update` stays pure.
public enum Effect: Equatable, Sendable {
    /// Read everything the screen shows from the store.
    case load
    case purchase(productID: String)
    case restore
    case consume(productID: String)
    /// Read the store file's data version, to notice another process's writes.
    case checkForChanges
}
