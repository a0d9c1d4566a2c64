import Foundation
import StoreEngine

extension Product.SubscriptionInfo.Status {
    /// An asynchronous sequence of subscription statuses, used with `for await` (StoreKit's `Statuses`).
    public struct Statuses: AsyncSequence, Sendable {
        /// A status that changed.
        public typealias Element = Product.SubscriptionInfo.Status
        let makeStream: @Sendable () -> AsyncStream<Element>

        /// Starts the sequence.
        public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(base: makeStream().makeAsyncIterator()) }

        /// Iterates the sequence.
        public struct AsyncIterator: AsyncIteratorProtocol {
            var base: AsyncStream<Element>.AsyncIterator
            /// The next status that changed; nil only once the task is cancelled.
            public mutating func next() async -> Element? { await base.next() }
        }
    }

    /// Each subscription status as it changes, from the moment the sequence starts: a purchase,
    /// renewal, expiry, refund, upgrade, auto-renew turned off or on, billing retry or grace period
    /// entered or left, whether this process or another one using the same store file made it
    /// (the store's change feed; expiries and billing steps are woken for at their date on the
    /// store's clock). Each changed status arrives once per sequence.
    public static var updates: Statuses {
        // Read outside a test session's scope, it moves to each new session (StoreContext+Choice.swift).
        let scope = StoreContext.current
        return Statuses { StoreContext.following(scope: scope) { StatusMonitor.stream(context: $0) } }
    }

    /// The statuses of every subscription group the account has subscribed to, one group each,
    /// then the end of the sequence.
    public static var all: AsyncStream<(groupID: String, statuses: [Product.SubscriptionInfo.Status])> {
        let context = try? StoreContext.resolve()
        return AsyncStream { continuation in
            let task = Task(executorPreference: StoreKitExecutor.monitors) {
                if let context, let statuses = try? await context.store.app.subscriptionStatuses() {
                    for (group, members) in StatusMonitor.grouped(statuses) {
                        continuation.yield((groupID: group, statuses: members.map { Product.SubscriptionInfo.Status($0, context: context) }))
                    }
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}

extension SubscriptionStatus {
    /// The status as two reads of the same subscription compare it: without the renewal
    /// info's signature (signed anew at each read, with its date) or whether the app has
    /// finished the transaction (not part of StoreKit's transaction).
    var comparable: SubscriptionStatus {
        var status = self
        status.renewalInfo.jwsRepresentation = nil
        status.transaction.isFinished = false
        return status
    }
}

/// Hands the app each subscription status that changed, as the store's change feed reports changes.
enum StatusMonitor {
    static func stream(context: StoreContext) -> AsyncStream<Product.SubscriptionInfo.Status> {
        AsyncStream { continuation in
            let changes = context.store.changes.changes(includingUnfinished: false)
            let task = Task(executorPreference: StoreKitExecutor.monitors) { await watch(context, changes, continuation) }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// At each change, reads the statuses (the first change is the store as it is: the baseline)
    /// and yields every status not seen before, in the store's order.
    private static func watch(_ context: StoreContext, _ changes: AsyncStream<StoreChange>,
                              _ continuation: AsyncStream<Product.SubscriptionInfo.Status>.Continuation) async {
        var seen: Set<SubscriptionStatus>?
        await StoreContext.readAfterEachChange(changes, { try await context.store.app.subscriptionStatuses() }) { statuses in
            let now = statuses.map(\.comparable)
            if let seen {
                for (status, facts) in zip(statuses, now) where !seen.contains(facts) {
                    continuation.yield(.init(status, context: context))
                }
            }
            seen = Set(now)
        }
    }

    /// Statuses by subscription group, groups in the order the store lists them.
    static func grouped(_ statuses: [SubscriptionStatus]) -> [(String, [SubscriptionStatus])] {
        var order: [String] = []
        var members: [String: [SubscriptionStatus]] = [:]
        for status in statuses {
            if members[status.groupID] == nil { order.append(status.groupID) }
            members[status.groupID, default: []].append(status)
        }
        return order.map { ($0, members[$0] ?? []) }
    }
}
