import Foundation
import StorefrontKit
import Synchronization
import TestSupport

/// A test double of an app's `SKPaymentTransactionObserver`: records every callback as it
/// came (the transaction's state at that moment, and whether it came on the main thread) and,
/// like the tutorials' observers, finishes what is purchased, restored or failed.
final class RecordingObserver: NSObject, SKPaymentTransactionObserver, @unchecked Sendable {
    /// A transaction as one callback saw it.
    struct Seen: Sendable, Equatable {
        var product: String
        var state: SKPaymentTransactionState
        var identifier: String?
        var errorCode: SKError.Code?
        var originalIdentifier: String?
        var onMainQueue: Bool
    }

    enum Event: Sendable, Equatable {
        case updated([Seen])
        case removed([String])
        case restoreFailed(SKError.Code?)
        case restoreFinished
        case storefrontChanged
        case revoked([String])
    }

    private let log = Mutex<[Event]>([])
    let finishes: Bool
    /// What `shouldAddStorePayment` answers.
    let addsStorePayments: Bool

    init(finishes: Bool = true, addsStorePayments: Bool = false) {
        self.finishes = finishes
        self.addsStorePayments = addsStorePayments
    }

    var events: [Event] { log.withLock { $0 } }

    /// Every transaction seen in `updatedTransactions`, in order.
    var seen: [Seen] {
        events.flatMap { event -> [Seen] in if case .updated(let list) = event { list } else { [] } }
    }

    /// Waits up to `seconds` for `condition` to hold of the events.
    func wait(_ seconds: Double = 60, until condition: @escaping ([Event]) -> Bool) async -> Bool {
        await eventually(within: .seconds(seconds), every: .milliseconds(20)) { condition(events) }
    }

    /// Waits for a transaction of `product` in `state`.
    func waitFor(_ product: String, _ state: SKPaymentTransactionState, seconds: Double = 60) async -> Seen? {
        _ = await wait(seconds) { events in
            events.contains { if case .updated(let list) = $0 { list.contains { $0.product == product && $0.state == state } } else { false } }
        }
        return seen.first { $0.product == product && $0.state == state }
    }

    private func record(_ event: Event) { log.withLock { $0.append(event) } }

    func paymentQueue(_ queue: SKPaymentQueue, updatedTransactions transactions: [SKPaymentTransaction]) {
        record(.updated(transactions.map { transaction in
            Seen(product: transaction.payment.productIdentifier, state: transaction.transactionState,
                 identifier: transaction.transactionIdentifier, errorCode: (transaction.error as? SKError)?.code,
                 originalIdentifier: transaction.original?.transactionIdentifier, onMainQueue: isOnMainQueue())
        }))
        guard finishes else { return }
        for transaction in transactions where [.purchased, .restored, .failed].contains(transaction.transactionState) {
            SKPaymentQueue.default().finishTransaction(transaction)
        }
    }

    func paymentQueue(_ queue: SKPaymentQueue, removedTransactions transactions: [SKPaymentTransaction]) {
        record(.removed(transactions.map(\.payment.productIdentifier)))
    }

    func paymentQueue(_ queue: SKPaymentQueue, restoreCompletedTransactionsFailedWithError error: any Error) {
        record(.restoreFailed((error as? SKError)?.code))
    }

    func paymentQueueRestoreCompletedTransactionsFinished(_ queue: SKPaymentQueue) { record(.restoreFinished) }

    func paymentQueue(_ queue: SKPaymentQueue, shouldAddStorePayment payment: SKPayment, for product: SKProduct) -> Bool {
        addsStorePayments
    }

    func paymentQueueDidChangeStorefront(_ queue: SKPaymentQueue) { record(.storefrontChanged) }

    func paymentQueue(_ queue: SKPaymentQueue, didRevokeEntitlementsForProductIdentifiers productIdentifiers: [String]) {
        record(.revoked(productIdentifiers))
    }
}

/// A test double of an `SKProductsRequestDelegate`: keeps what the request said.
final class RecordingProductsDelegate: NSObject, SKProductsRequestDelegate, @unchecked Sendable {
    private let state = Mutex<(response: SKProductsResponse?, error: (any Error)?, finished: Bool, onMain: Bool)>((nil, nil, false, false))

    var response: SKProductsResponse? { state.withLock { $0.response } }
    var error: (any Error)? { state.withLock { $0.error } }
    var finished: Bool { state.withLock { $0.finished } }
    var calledOnMainQueue: Bool { state.withLock { $0.onMain } }

    func productsRequest(_ request: SKProductsRequest, didReceive response: SKProductsResponse) {
        state.withLock { $0.response = response; $0.onMain = isOnMainQueue() }
    }
    func requestDidFinish(_ request: SKRequest) { state.withLock { $0.finished = true } }
    func request(_ request: SKRequest, didFailWithError error: any Error) { state.withLock { $0.error = error } }

    /// Waits up to `seconds` for the request to finish or fail.
    func settle(within seconds: Double = 60) async -> Bool {
        await eventually(within: .seconds(seconds), every: .milliseconds(20)) { finished || error != nil }
    }
}

/// Marks the main queue, so a callback can tell it runs there (after `dispatchMain()`, Linux runs
/// the main queue on a worker thread: `Thread.isMainThread` says false there).
private let mainQueueKey: DispatchSpecificKey<Bool> = {
    let key = DispatchSpecificKey<Bool>()
    DispatchQueue.main.setSpecific(key: key, value: true)
    return key
}()

/// Whether the caller runs on the main queue.
func isOnMainQueue() -> Bool { DispatchQueue.getSpecific(key: mainQueueKey) == true }

/// The products a products request returns for `identifiers` in the bound store.
func loadSKProducts(_ identifiers: Set<String>) async throws -> [SKProduct] {
    let delegate = RecordingProductsDelegate()
    let request = SKProductsRequest(productIdentifiers: identifiers)
    request.delegate = delegate
    request.start()
    guard await delegate.settle(), let response = delegate.response else { throw SKError(.unknown, description: "no response") }
    return response.products
}
