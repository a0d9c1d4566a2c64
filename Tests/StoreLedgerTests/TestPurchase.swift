import Foundation
@testable import StoreLedger

extension Ledger {
    /// A signed, sealed, auto-renewable purchase of `com.example.monthly` by `account` (made if
    /// new), as the engine inserts one: the ledger's tests' one purchase.
    func insertTestPurchase(account: String, appAccountToken: UUID? = nil) throws -> Transaction {
        let date = Date(milliseconds: 1_750_000_000_000)
        try ensureAccount(account, at: date)
        return try insert(Transaction(
            id: 0, originalID: 0, productID: "com.example.monthly", productType: .autoRenewable, purchaseDate: date,
            originalPurchaseDate: date, expirationDate: date.addingTimeInterval(30 * 86_400), revocationDate: nil,
            revocationReason: nil, isUpgraded: false, ownershipType: .purchased, purchasedQuantity: 1,
            appAccountToken: appAccountToken, environment: .xcode, storefront: "USA", currency: "USD",
            price: Decimal(string: "4.99")!, reason: .purchase, subscriptionGroupID: "group", offerType: nil,
            account: account, status: .purchased, isFinished: false, offerID: nil, offerPaymentMode: nil, offerPeriod: nil))
    }
}
