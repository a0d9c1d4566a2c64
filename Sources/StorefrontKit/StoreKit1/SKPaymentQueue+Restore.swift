import Foundation
import StoreEngine

extension SKPaymentQueue {
    /// Restores (``restoreCompletedTransactions(withApplicationUsername:)``): what the store restores, replayed
    /// as `restored` transactions, then the observers' `paymentQueueRestoreCompletedTransactionsFinished`.
    func restore(username: String?) {
        guard let context else {
            let error = SKError(.unknown, description: "no store: StorefrontKit found no catalog (call StorefrontKit.configure)")
            deliver { queue, observers in
                for observer in observers { observer.paymentQueue(queue, restoreCompletedTransactionsFailedWithError: error) }
            }
            return
        }
        let token = username.flatMap { UUID(uuidString: $0) }
        Task(executorPreference: executor) { [self] in
            do {
                _ = try await context.store.app.sync()  // the store's conditions, and its `restored` log
                let history = try await context.store.app.transactions()
                let now = Date()
                let restored = history.reversed().filter { transaction in
                    transaction.status == .purchased && transaction.revocationDate == nil
                        && (transaction.productType == .nonConsumable || transaction.productType == .autoRenewable)
                        && (token == nil || transaction.appAccountToken == token)
                }.map { transaction in
                    let original = SKPaymentTransaction(purchased: transaction, queue: nil)
                    return SKPaymentTransaction(payment: SKPayment(of: transaction), state: .restored, queue: self,
                                                engine: transaction, date: now, original: original)
                }
                context.changed()
                locked { pending += restored }
                deliver { queue, observers in
                    for observer in observers {
                        if !restored.isEmpty { observer.paymentQueue(queue, updatedTransactions: restored) }
                        observer.paymentQueueRestoreCompletedTransactionsFinished(queue)
                    }
                }
            } catch {
                let failure = SKError(storeError: error)
                deliver { queue, observers in
                    for observer in observers { observer.paymentQueue(queue, restoreCompletedTransactionsFailedWithError: failure) }
                }
            }
        }
    }
}
