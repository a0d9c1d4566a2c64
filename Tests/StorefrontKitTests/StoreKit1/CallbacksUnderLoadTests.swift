import Foundation
import StorefrontKit
import StorefrontKitTest
import Synchronization
import Testing

/// StoreKit 1's callbacks under load. A test process runs a thousand tests at once on Swift's small
/// shared pool (one thread per core): StoreKit's own work must not queue behind theirs, or every
/// callback in the process waits with it; nor may a synchronous call on the main queue
/// (`SKPaymentQueue.canMakePayments()`, as apps make in their observers) wait behind that pool.
@Suite struct CallbacksUnderLoadTests {
    /// Stops the load: when the observer has heard every payment, or at a deadline.
    final class Load: Sendable {
        let on = Atomic<Bool>(true)
        let deadline = Date().addingTimeInterval(20)
        var running: Bool { on.load(ordering: .relaxed) && Date() < deadline }
    }

    /// An observer that notes when each payment's removal came (on the main queue), and asks
    /// `canMakePayments()` there as app code does; it ends the load once it heard `expected`.
    final class TimingObserver: NSObject, SKPaymentTransactionObserver, @unchecked Sendable {
        let removed = Mutex<[Date]>([])
        let load: Load
        let expected: Int
        init(load: Load, expected: Int) { (self.load, self.expected) = (load, expected) }

        func paymentQueue(_ queue: SKPaymentQueue, updatedTransactions transactions: [SKPaymentTransaction]) {
            _ = SKPaymentQueue.canMakePayments()
            for transaction in transactions where transaction.transactionState == .purchased {
                queue.finishTransaction(transaction)
            }
        }
        func paymentQueue(_ queue: SKPaymentQueue, removedTransactions transactions: [SKPaymentTransaction]) {
            let now = Date()
            let count = removed.withLock { $0.append(now); return $0.count }
            if count >= expected { load.on.store(false, ordering: .relaxed) }
        }
    }

    @Test func paymentsReachTheirObserversPromptlyWhileSwiftsSharedPoolIsBusy() async throws {
        let session = try SKTestSession(contentsOf: catalogURL)
        let product = try await session.run { try #require(try await loadSKProducts([ID.coins]).first) }
        let payments = 5
        let load = Load()
        await session.run {
            let queue = SKPaymentQueue.default()
            let observer = TimingObserver(load: load, expected: payments)
            queue.add(observer)
            defer { queue.remove(observer) }
            // Other tests' work: many tasks, each busy for 10 ms at a time, queued on the shared pool
            // until the payments are through (or 20 s), so it holds up the rest of the process briefly.
            let busy = Task.detached {
                await withTaskGroup(of: Void.self) { group in
                    for _ in 0..<128 {
                        group.addTask {
                            while load.running {
                                let end = Date().addingTimeInterval(0.01)
                                while Date() < end {}
                                await Task.yield()
                            }
                        }
                    }
                }
            }
            let begun = Date()
            for _ in 0..<payments { queue.add(SKPayment(product: product)) }
            await busy.value
            let removed = observer.removed.withLock { $0 }
            #expect(removed.count == payments, "\(removed.count) of \(payments) payments heard within 20 s")
            let slowest = removed.map { $0.timeIntervalSince(begun) }.max() ?? .infinity
            #expect(slowest < 1, "the payments' callbacks took \(slowest) s while the pool was busy")
        }
    }
}
