import Foundation
import Testing
@testable import StoreEngine
// Every file of the test target sees TestSupport (clock, folders, processes, tmux).
@_exported import TestSupport
@testable import StorefrontUI

/// The bundled demo catalog, as every UI test sees it.
let demoCatalog: Catalog = {
    try! Catalog.load(contentsOf: Repository.catalog)
}()

let swiftShopping = "com.razeware.razefaces.swiftshopping"
let iPhoneRage = "com.razeware.razefaces.iphonerage"
let coins = "com.example.storefront.coins100"
let seasonPass = "com.example.storefront.seasonpass"
let monthly = "barcode_month_subscription"

/// A fixed moment, so dates on screen never depend on when the test runs.
let fixedDate = Date(timeIntervalSince1970: 1_796_083_200)  // 2026-12-01T00:00:00Z

/// A purchased transaction of a demo product.
func purchase(_ productID: String, id: Int64 = 2_000_000_001, expires: Date? = nil) -> StoreEngine.Transaction {
    let type = demoCatalog.product(id: productID)!.type
    return StoreEngine.Transaction(
        id: id, originalID: id, productID: productID, productType: type, purchaseDate: fixedDate,
        originalPurchaseDate: fixedDate, expirationDate: expires, revocationDate: nil, revocationReason: nil,
        isUpgraded: false, ownershipType: .purchased, purchasedQuantity: 1, appAccountToken: nil,
        environment: .xcode, storefront: "USA", currency: "USD", price: 0.99, reason: .purchase,
        subscriptionGroupID: nil, offerType: nil, account: Store.defaultAccount, status: .purchased, isFinished: true)
}

/// A store snapshot of the demo catalog in the USA storefront.
func snapshot(owned: [StoreEngine.Transaction] = [], balances: [String: Int] = [:], canMakePayments: Bool = true,
              events: [TransactionEvent] = [], dataVersion: Int64 = 1) -> StoreSnapshot {
    StoreSnapshot(
        storefront: demoCatalog.storefront("USA")!, products: demoCatalog.products(in: demoCatalog.storefront("USA")!),
        owned: Dictionary(uniqueKeysWithValues: owned.map { ($0.productID, $0) }),
        entitled: Set(owned.map(\.productID)), balances: balances, canMakePayments: canMakePayments,
        events: events, dataVersion: dataVersion)
}

/// A paywall state of the given size with the demo catalog loaded.
func loadedState(columns: Int = 100, rows: Int = 30, snapshot: StoreSnapshot = snapshot()) -> State {
    var state = State(size: Size(columns: columns, rows: rows), account: Store.defaultAccount,
                      storePath: "/tmp/store.sqlite", paywall: demoCatalog.paywall)
    // A fresh paywall shows the first message the store holds for the app, and says so to the store.
    send(&state, .loaded(snapshot), expecting: snapshot.messages.first.map { [.displayMessage($0.id)] } ?? [])
    return state
}

/// The index of a product in the display order.
func index(of productID: String) -> Int {
    demoCatalog.products.firstIndex { $0.id == productID }!
}

let utc = TimeZone(identifier: "UTC")!

/// A transaction of a demo product in any state the Transaction Manager shows.
func transaction(_ productID: String, id: Int64, status: StoreEngine.Transaction.Status = .purchased,
                 pending: StoreEngine.Transaction.PendingReason? = nil, refunded: Bool = false,
                 finished: Bool = true, purchased date: Date = fixedDate, expires: Date? = nil) -> StoreEngine.Transaction {
    var transaction = purchase(productID, id: id, expires: expires)
    transaction.purchaseDate = date
    transaction.status = status
    transaction.pendingReason = pending
    transaction.isFinished = finished
    if refunded {
        transaction.revocationDate = date.addingTimeInterval(3600)
        transaction.revocationReason = .other
    }
    return transaction
}

/// The state of the demo paywall on another screen, with what that screen shows loaded.
func loadedState(on screen: Screen, columns: Int = 100, rows: Int = 30, snapshot: StoreSnapshot = snapshot()) -> State {
    var state = loadedState(columns: columns, rows: rows, snapshot: snapshot)
    // Each screen reads what it shows; p on the paywall stays there and reads nothing.
    switch screen {
    case .paywall: send(&state, .key(.character("p")), expecting: [])
    case .transactions: send(&state, .key(.character("t")), expecting: [.loadHistory])
    case .settings: send(&state, .key(.character("s")), expecting: [.loadSettings])
    }
    return state
}

/// A request waiting for a parent or the user, as the snapshot lists it.
func pendingRequest(_ productID: String, id: Int64 = 2_000_000_009, reason: StoreEngine.Transaction.PendingReason) -> PendingRequest {
    PendingRequest(id: id, productID: productID, reason: reason, date: fixedDate)
}

/// Renewal info that renews `productID`, for snapshots made by hand.
func renewalInfo(_ productID: String) -> RenewalInfo {
    RenewalInfo(originalTransactionID: 2_000_000_001, currentProductID: productID, autoRenewPreference: productID, willAutoRenew: true,
                renewalDate: nil, recentSubscriptionStartDate: fixedDate, environment: .xcode, currency: "USD", renewalPrice: 4.99,
                jwsRepresentation: nil)
}

/// The engine's report of a purchase of a demo product that came to `outcome`, as the paywall's Buy
/// gets it (for a scheduled change, `productID` is the plan it changes to).
func bought(_ outcome: PurchaseOutcome, _ productID: String, finished: Bool = true) -> PurchaseReport {
    .ended(.bought(AppPurchase(outcome: outcome, isFinished: finished), product: demoCatalog.product(id: productID)!.displayName,
                   quantity: 1, store: "/tmp/store.sqlite"))
}
