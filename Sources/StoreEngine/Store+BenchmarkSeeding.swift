import Dispatch
import Foundation

/// Histories of a million transactions for the benchmarks, made in seconds rather than
/// the hour the purchase path would take: not for apps, not for the tests' flows.
extension Store {
    /// For benchmarks and tools, never the app: buys each product of `productIDs` in
    /// turn, `interval` seconds apart from `start`, and finishes it, all in one SQLite
    /// transaction (one sync, not one per purchase). Returns how many transactions were added.
    ///
    /// Every product but a consumable goes through the purchase rules
    /// (``commitPurchase(_:quantity:appAccountToken:offerID:pending:outside:at:)``: subscription
    /// groups, upgrades, the app's records, notifications). A consumable is written as that
    /// path leaves it — the row priced in the storefront, signed with the store's key (on every
    /// core), sealed, finished, its balance delivered — without its event-log lines and
    /// ONE_TIME_CHARGE notification, which a history of a million would otherwise be mostly.
    package func seedPurchasesForBenchmarks(_ productIDs: [String], from start: Date, interval: TimeInterval) throws -> Int {
        try ledger.beginBulkLoad()
        defer { ledger.endBulkLoad() }
        return try ledger.write {
            try ledger.ensureAccount(account, at: start)
            let environment = try ledger.environment()
            let signedDate = try currentTime()
            var templates: [String: Transaction] = [:]
            var seals = SealAccumulator()
            var balances: [String: Int] = [:]
            var added = 0
            var offset = 0
            while offset < productIDs.count {
                let productID = productIDs[offset]
                guard let item = catalog.product(id: productID) else { throw StoreError.productUnavailable(productID: productID) }
                let date = start.addingTimeInterval(interval * Double(offset))
                guard item.type == .consumable else {
                    let outcome = try commitPurchase(item, quantity: 1, appAccountToken: nil, offerID: nil, pending: nil, at: date)
                    if case .purchased(let transaction, _) = outcome {
                        _ = try ledger.markFinished(transaction.id)
                        try deliver(transaction)
                        added += 1
                    }
                    offset += 1
                    continue
                }
                // A run of consumables, up to the next other product: drafted, signed in parallel, inserted in order.
                var run: [Transaction] = []
                var nextID = try ledger.nextSequencedTransactionID()
                while offset < productIDs.count, run.count < 20_000,
                      let item = catalog.product(id: productIDs[offset]), item.type == .consumable {
                    let date = start.addingTimeInterval(interval * Double(offset))
                    if templates[item.id] == nil {
                        templates[item.id] = try draftTransaction(item, quantity: 1, appAccountToken: nil, at: date)
                    }
                    var transaction = templates[item.id]!
                    (transaction.id, transaction.originalID) = (nextID, nextID)
                    (transaction.purchaseDate, transaction.originalPurchaseDate) = (date, date)
                    (transaction.environment, transaction.isFinished) = (environment, true)
                    run.append(transaction)
                    nextID += 1
                    offset += 1
                }
                let signatures = try ledger.signInParallel(run, signedDate: signedDate)
                for (transaction, jws) in zip(run, signatures) {
                    let seal = try ledger.insertRow(transaction, jws: jws, seals: &seals)
                    try ledger.saveMark(id: transaction.id, seal: seal)  // signed here, for this bundle id
                    balances[transaction.productID, default: 0] += transaction.purchasedQuantity
                    added += 1
                }
            }
            for (productID, amount) in balances.sorted(by: { $0.key < $1.key }) {
                try ledger.addToBalance(account: account, productID: productID, amount: amount)
            }
            try ledger.foldIntoHead(seals)
            return added
        }
    }
}
