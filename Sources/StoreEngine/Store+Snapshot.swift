import Foundation

extension Store {
    /// Everything a screen shows, read in one SQLite read transaction so no other
    /// process's commit lands halfway through, after delivering what arrived as an
    /// update (as an app's `Transaction.updates` listener does). Renewals due are made
    /// once, first; loading the products' conditions (latency, offline, loadProductsError) apply.
    /// `held`: transactions this run of the app left unfinished already; they wait for the next launch.
    func snapshot(holding held: Set<Int64> = []) async throws -> StoreSnapshot {
        // Read first: a commit by another process while the rest is read then counts as a
        // change still to load, rather than being taken for part of this snapshot and missed.
        let version = try dataVersion()
        let delivery = try deliverUnfinished(holding: held)
        try await simulateConditions(errorSetting: .loadProductsError)
        // The app reads its messages with everything else: a win-back offer it became eligible for is queued now.
        try queueWinBackMessages(at: try currentTime())
        return try ledger.read {
            let date = try currentTime()
            let storefront = try storefront()
            let rate = try value(.timeRate)
            var snapshot = StoreSnapshot(
                storefront: storefront, products: try pricedProducts(in: storefront), owned: try ownedProducts(at: date),
                entitled: Set(try entitlements(at: date).map(\.productID)), balances: try balances(),
                unverified: try unverifiedProducts(), canMakePayments: try value(.canMakePayments),
                events: try events(limit: 200), dataVersion: version, arrived: delivery.finished.map(\.productID))
            let statuses = try statuses(at: date, signed: false)
            // The account's own subscription of a group before one its family shares (statuses lists it first).
            snapshot.subscriptions = Dictionary(statuses.map { ($0.groupID, $0) }, uniquingKeysWith: { own, _ in own })
            snapshot.plannedChanges = plannedChanges(statuses)
            snapshot.conditions = try purchaseConditions()
            snapshot.environment = try value(.environment)
            snapshot.introEligibleGroups = try introOfferEligibleGroups()
            snapshot.pending = try pendingTransactions().map(PendingRequest.init)
            snapshot.left = delivery.left
            snapshot.currentAccount = try ledger.setting(Self.currentAccountSetting, account: "")
            snapshot.revoked = delivery.revoked.map(\.productID)
            snapshot.messages = try ledger.messages(account: account).filter { $0.state != .displayed }
            snapshot.refundRequests = Dictionary(try ledger.refundRequests(account: account).map { ($0.transactionID, $0) },
                                                 uniquingKeysWith: { _, newer in newer })
            snapshot.priceIncreases = try waitingIncreases()
            // Shown only once the store's time is its own: running fast, or moved ahead.
            snapshot.timeRate = rate
            snapshot.storeTime = date
            snapshot.clock = rate != .realTime || abs(date.timeIntervalSinceNow) > 60 ? date : nil
            return snapshot
        }
    }
}
