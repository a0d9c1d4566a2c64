import Foundation
import StorefrontKit
import StorefrontKitTest
import Synchronization
import Testing
import TestSupport

/// The order of a restore's callbacks, as Apple documents it: `finishTransaction(_:)` removes a transaction
/// from the queue, which tells observers in `paymentQueue(_:removedTransactions:)`; and
/// `paymentQueueRestoreCompletedTransactionsFinished(_:)` is called "after all restorable transactions
/// have been processed by the payment queue". An observer that finishes each restored transaction in
/// `updatedTransactions` therefore still finds them in `queue.transactions` when the restore's
/// completion arrives; they leave when `removedTransactions` is delivered, after it.
@Suite struct RestoreOrderTests {
    /// Finishes each restored transaction in `updatedTransactions`, as the tutorials' observers do, and
    /// notes what `queue.transactions` holds when the restore completes and when each removal arrives.
    final class FinishingObserver: NSObject, SKPaymentTransactionObserver, @unchecked Sendable {
        struct Round: Sendable, Equatable {
            var restored = 0
            /// `queue.transactions.count` in `paymentQueueRestoreCompletedTransactionsFinished`.
            var inQueueAtCompletion: Int?
            var removedBeforeCompletion = 0
            var removed = 0
            /// `queue.transactions.count` after the last removal of the round.
            var inQueueAfterRemovals: Int?
        }
        private let rounds = Mutex<[Round]>([])

        func begin() { rounds.withLock { $0.append(Round()) } }
        var last: Round? { rounds.withLock { $0.last } }

        private func change(_ body: (inout Round) -> Void) {
            rounds.withLock { rounds in
                guard !rounds.isEmpty else { return }
                body(&rounds[rounds.count - 1])
            }
        }

        func paymentQueue(_ queue: SKPaymentQueue, updatedTransactions transactions: [SKPaymentTransaction]) {
            for transaction in transactions where transaction.transactionState == .restored {
                change { $0.restored += 1 }
                queue.finishTransaction(transaction)
            }
        }

        func paymentQueueRestoreCompletedTransactionsFinished(_ queue: SKPaymentQueue) {
            let count = queue.transactions.count
            change { $0.inQueueAtCompletion = count }
        }

        func paymentQueue(_ queue: SKPaymentQueue, removedTransactions transactions: [SKPaymentTransaction]) {
            let count = queue.transactions.count
            change { round in
                if round.inQueueAtCompletion == nil { round.removedBeforeCompletion += transactions.count }
                round.removed += transactions.count
                if round.removed == round.restored { round.inQueueAfterRemovals = count }
            }
        }
    }

    @Test func finishedRestoredTransactionsLeaveTheQueueAfterTheRestoresCompletionEveryTime() async throws {
        let session = try SKTestSession(contentsOf: catalogURL)
        for product in [ID.shopping, ID.goPro, ID.monthly] {
            await (try await session.buyProduct(identifier: product)).finish()
        }
        try await session.run {
            let queue = SKPaymentQueue.default()
            let observer = FinishingObserver()
            queue.add(observer)
            defer { queue.remove(observer) }
            var wrong: [FinishingObserver.Round] = []
            for _ in 0..<1_000 {
                observer.begin()
                queue.restoreCompletedTransactions()
                _ = await eventually(within: .seconds(60), every: .milliseconds(1)) { observer.last?.inQueueAfterRemovals != nil }
                let round = try #require(observer.last)
                if round != FinishingObserver.Round(restored: 3, inQueueAtCompletion: 3, removedBeforeCompletion: 0,
                                                    removed: 3, inQueueAfterRemovals: 0) {
                    wrong.append(round)
                }
            }
            #expect(wrong.count == 0, "restores in another order, the first: \(wrong.prefix(3))")
        }
    }
}
