import Foundation
import Synchronization

/// Which store StoreKit code uses when it is not inside a test session's scope, and how what it
/// read there (products, listeners) follows that choice when a test session is made or goes.
///
/// The rule, for every static call (`Product.products(for:)`, `Transaction.updates`, `AppStore.sync()`, …):
/// 1. inside `SKTestSession.run { }` (and the tasks it creates, not `Task.detached`): that session;
/// 2. else the most recently created test session still alive, unless `StorefrontKit.configure`
///    was called after it was made;
/// 3. else the store `StorefrontKit.configure` opened, or the default one (the CLI's rules).
///
/// What is read inside a session's scope stays with that session. What is read outside one is
/// not pinned: a `Product` buys in the store chosen when `purchase()` is called, and a
/// `Transaction.updates` or `Status.updates` sequence moves to each new test session, so code
/// that loads products or starts its listener before the test makes its `SKTestSession` still
/// buys and listens there, never in the developer's store. Once a process has made a test
/// session, such a listener waits for the next session rather than going back to the default
/// store, unless `StorefrontKit.configure` chose a store since: an explicit configuration wins,
/// over the sessions made before it too, until the next session is made. A transaction always
/// acts on the store it came from: its id means nothing elsewhere.
extension StoreContext {
    /// The test sessions alive and the listeners that follow the choice.
    struct Sessions {
        /// The stores of the sessions alive, oldest first.
        var alive: [StoreContext] = []
        /// Whether this process has made a test session.
        var everStarted = false
        /// `StorefrontKit.configure` was called after the newest session was made: the configured
        /// store is chosen over the sessions alive, until the next one is made.
        var configuredSinceLastSession = false
        /// Told each time the choice may have changed.
        var watchers: [UUID: AsyncStream<Void>.Continuation] = [:]
    }

    /// The store of the newest test session still alive, unless `StorefrontKit.configure` chose a
    /// store since it was made; nil when none is.
    package static var latestSession: StoreContext? {
        sessions.withLock { $0.configuredSinceLastSession ? nil : $0.alive.last }
    }

    /// A test session's store was made: code outside any scope uses it from now on.
    package static func sessionStarted(_ context: StoreContext) {
        let watchers = sessions.withLock { sessions in
            sessions.alive.append(context)
            sessions.everStarted = true
            sessions.configuredSinceLastSession = false
            return Array(sessions.watchers.values)
        }
        for watcher in watchers { watcher.yield() }
    }

    /// `StorefrontKit.configure` opened `context`: it is the configured store, and code outside any
    /// scope uses it from now on, listeners too, until the next test session is made.
    static func configure(_ context: StoreContext) {
        configured.withLock { $0 = context }
        let watchers = sessions.withLock { sessions in
            sessions.configuredSinceLastSession = true
            return Array(sessions.watchers.values)
        }
        for watcher in watchers { watcher.yield() }
    }

    /// A test session is gone: the one made before it (still alive), if any, is chosen again.
    package static func sessionEnded(_ context: StoreContext) {
        let watchers = sessions.withLock { sessions in
            sessions.alive.removeAll { $0 === context }
            return Array(sessions.watchers.values)
        }
        SKPaymentQueue.storeEnded(context)
        for watcher in watchers { watcher.yield() }
    }

    /// Whether code here runs inside a test session's scope, so what it reads stays with that session.
    static var isScoped: Bool { current != nil }

    /// The store a value read from this one acts on now: this one when it was read inside a
    /// session's scope (`follows` false), else the store the rule chooses now.
    func storeNow(follows: Bool) -> StoreContext {
        guard follows else { return self }
        return (try? StoreContext.resolve()) ?? self
    }

    /// The elements of `make`'s stream on the store the rule chooses: with the `scope` of a
    /// session (``current`` where the sequence was read), that session's for good; outside one,
    /// the store chosen now and then, each time the choice changes, the new one's (nothing while
    /// no store can be chosen).
    package static func following<Element: Sendable>(
        scope: StoreContext?, _ make: @escaping @Sendable (StoreContext) -> AsyncStream<Element>
    ) -> AsyncStream<Element> {
        if let scope { return make(scope) }
        return AsyncStream { continuation in
            let task = Task(executorPreference: StoreKitExecutor.monitors) {
                var active: StoreContext?
                var inner: Task<Void, Never>?
                for await _ in choiceChanges() {
                    let chosen = followedStore()
                    guard chosen !== active else { continue }
                    inner?.cancel()
                    active = chosen
                    inner = chosen.map { store in
                        Task(executorPreference: StoreKitExecutor.monitors) { for await element in make(store) { continuation.yield(element) } }
                    }
                }
                inner?.cancel()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// The store a listener outside any scope watches now: the newest session's; the store
    /// `StorefrontKit.configure` chose since that session was made; the default store only while
    /// this process has made no test session.
    static func followedStore() -> StoreContext? {
        let (latest, everStarted, configuredSince) = sessions.withLock {
            ($0.alive.last, $0.everStarted, $0.configuredSinceLastSession)
        }
        if configuredSince { return configured.withLock { $0 } }
        if let latest { return latest }
        if everStarted { return nil }
        return try? resolve()
    }

    /// One value now, then one each time a test session is made or goes.
    static func choiceChanges() -> AsyncStream<Void> {
        AsyncStream(bufferingPolicy: .bufferingNewest(1)) { continuation in
            let id = UUID()
            sessions.withLock { $0.watchers[id] = continuation }
            continuation.yield()
            continuation.onTermination = { _ in _ = sessions.withLock { $0.watchers.removeValue(forKey: id) } }
        }
    }
}
