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
    /// Stops the load.
    final class Switch: Sendable {
        let on = Atomic<Bool>(true)
    }

    /// An observer that notes when each callback came (on the main queue), and asks
    /// `canMakePayments()` there as app code does.
    final class TimingObserver: NSObject, SKPaymentTransactionObserver, @unchecked Sendable {
        let removed = Mutex<[Date]>([])
        func paymentQueue(_ queue: SKPaymentQueue, updatedTransactions transactions: [SKPaymentTransaction]) {
            _ = SKPaymentQueue.canMakePayments()
            for transaction in transactions where transaction.transactionState == .purchased {
                queue.finishTransaction(transaction)
            }
        }
        func paymentQueue(_ queue: SKPaymentQueue, removedTransactions transactions: [SKPaymentTransaction]) {
            let now = Date()
            removed.withLock { $0.append(now) }
        }
    }

    @Test func paymentsReachTheirObserversPromptlyWhileSwiftsSharedPoolIsBusy() async throws {
        let session = try SKTestSession(contentsOf: catalogURL)
        let product = try await session.run { try #require(try await loadSKProducts([ID.coins]).first) }
        let load = Switch()
        // Other tests' work: many tasks, each busy for 20 ms at a time, queued on the shared pool.
        let busy = Task.detached {
            await withTaskGroup(of: Void.self) { group in
                for _ in 0..<128 {
                    group.addTask {
                        while load.on.load(ordering: .relaxed) {
                            let end = Date().addingTimeInterval(0.02)
                            while Date() < end {}
                            await Task.yield()
                        }
                    }
                }
            }
        }
        defer { load.on.store(false, ordering: .relaxed) }
        try await Task.sleep(for: .milliseconds(200))
        var slowest = 0.0
        try await session.run {
            let queue = SKPaymentQueue.default()
            let observer = TimingObserver()
            queue.add(observer)
            defer { queue.remove(observer) }
            for round in 1...5 {
                let begun = Date()
                queue.add(SKPayment(product: product))
                let deadline = Date().addingTimeInterval(120)
                while Date() < deadline, observer.removed.withLock({ $0.count }) < round {
                    try await Task.sleep(for: .milliseconds(10))
                }
                let removed = try #require(observer.removed.withLock { $0.count == round ? $0.last : nil })
                slowest = max(slowest, removed.timeIntervalSince(begun))
            }
        }
        load.on.store(false, ordering: .relaxed)
        await busy.value
        print("slowest payment under load: \(slowest) s")
        #expect(slowest < 1, "a payment's callbacks took \(slowest) s while the pool was busy")
    }
}
