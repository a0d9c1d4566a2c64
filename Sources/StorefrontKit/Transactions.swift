import Foundation
import StoreEngine

extension Transaction {
    /// An asynchronous sequence of transactions, used with `for await` (StoreKit's `Transaction.Transactions`).
    public struct Transactions: AsyncSequence, Sendable {
        /// Each transaction as it reached the app.
        public typealias Element = VerificationResult<Transaction>
        let makeStream: @Sendable () -> AsyncStream<Element>

        /// Starts the sequence.
        public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(base: makeStream().makeAsyncIterator()) }

        /// Iterates the sequence.
        public struct AsyncIterator: AsyncIteratorProtocol {
            var base: AsyncStream<Element>.AsyncIterator
            /// The next transaction; nil at the end (never, for `updates`).
            public mutating func next() async -> Element? { await base.next() }
        }

        /// A finite sequence of what `load` returns from the store resolved now.
        static func list(_ load: @escaping @Sendable (StoreContext) async throws -> [StoreEngine.Transaction]) -> Transactions {
            let context = try? StoreContext.resolve()
            return Transactions {
                AsyncStream { continuation in
                    let task = Task(executorPreference: StoreKitExecutor.monitors) {
                        if let context, let list = try? await load(context) {
                            for transaction in list { continuation.yield(Transaction.verification(of: transaction, context: context)) }
                        }
                        continuation.finish()
                    }
                    continuation.onTermination = { _ in task.cancel() }
                }
            }
        }
    }

    /// Transactions that reach the app other than as `purchase()`'s result: unfinished ones at
    /// launch, then — within a second — approvals, resolved purchases, renewals, refunds and
    /// purchases made outside the app, by this process or another one using the same store file.
    public static var updates: Transactions {
        // Read outside a test session's scope, it moves to each new session (StoreContext+Choice.swift).
        let scope = StoreContext.current
        return Transactions { StoreContext.following(scope: scope) { UpdatesMonitor.stream(context: $0) } }
    }

    /// Every transaction of the account, newest first: no requests, and finished consumables only
    /// when refunded or revoked or with `includeConsumablesInHistory` (the engine's `Transaction.all`).
    public static var all: Transactions { .list { try await $0.store.app.transactions() } }

    /// What the account is entitled to now.
    public static var currentEntitlements: Transactions { .list { try await $0.store.app.currentEntitlements() } }

    /// What the account is entitled to now, of one product.
    public static func currentEntitlements(for productID: String) -> Transactions {
        .list { try await $0.store.app.currentEntitlements().filter { $0.productID == productID } }
    }

    /// Purchases the app has not finished yet.
    public static var unfinished: Transactions { .list { try await $0.store.app.unfinished() } }

    /// The newest transaction of a product; nil when the account never bought it (or, as Apple's, when it
    /// is a finished consumable, not refunded, and `includeConsumablesInHistory` is off).
    public static func latest(for productID: String) async -> VerificationResult<Transaction>? {
        guard let context = try? StoreContext.resolve(),
              let latest = try? await context.store.app.latestTransaction(for: productID) else { return nil }
        return verification(of: latest, context: context)
    }

    /// The transaction that entitles the account to a product now; nil when none does.
    public static func currentEntitlement(for productID: String) async -> VerificationResult<Transaction>? {
        guard let context = try? StoreContext.resolve(),
              let list = try? await context.store.app.currentEntitlements() else { return nil }
        return list.first { $0.productID == productID }.map { verification(of: $0, context: context) }
    }
}

/// Hands the app the transactions the store's change feed says are unfinished, as updates.
enum UpdatesMonitor {
    static func stream(context: StoreContext?) -> AsyncStream<VerificationResult<Transaction>> {
        AsyncStream { continuation in
            guard let context else { return }  // no store: an update never comes
            let changes = context.store.changes.changes()
            let task = Task(executorPreference: StoreKitExecutor.monitors) { await watch(context, changes, continuation) }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// At each change (the first is the store as it is: what is unfinished at launch), yields each
    /// unfinished transaction once, and each revocation once: the engine hands a refunded
    /// transaction back to the app unfinished, as an update. The feed makes due renewals itself.
    private static func watch(_ context: StoreContext, _ changes: AsyncStream<StoreChange>,
                              _ continuation: AsyncStream<VerificationResult<Transaction>>.Continuation) async {
        var yielded = Set<Int64>()
        var revoked = Set<Int64>()
        for await change in changes {
            for transaction in change.unfinished where transaction.status == .purchased {
                if transaction.revocationDate != nil {
                    guard revoked.insert(transaction.id).inserted else { continue }
                } else {
                    guard !yielded.contains(transaction.id) else { continue }
                    // A purchase() in flight hands its transaction to the app itself: wait to know which.
                    await context.purchasesSettled()
                    guard !context.wasHandedOut(transaction.id) else { continue }
                    yielded.insert(transaction.id)
                }
                continuation.yield(Transaction.verification(of: transaction, context: context))
            }
        }
    }
}
