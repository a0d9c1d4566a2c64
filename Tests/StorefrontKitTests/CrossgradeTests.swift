import Foundation
import StorefrontKit
import StorefrontKitTest
import Testing

/// A crossgrade through the StoreKit-shaped API, on the bundled catalog: Monthly and 3-Month share
/// `groupLevel` 2, and their periods differ, so the change waits for the renewal (Apple's rule).
@Suite("StorefrontKit: a crossgrade in the bundled catalog")
struct CrossgradeTests {
    @Test("on Monthly, purchase() of 3-Month succeeds with the monthly transaction kept; the renewal is for 3-Month")
    func crossgradeWaitsForTheRenewal() async throws {
        let session = try SKTestSession(contentsOf: catalogURL)
        try await session.run {
            let products = try await Product.products(for: [ID.monthly, ID.quarterly, ID.yearly])
            let level = { (id: String) in products.first { $0.id == id }?.subscription?.groupLevel }
            #expect(level(ID.monthly) == 2 && level(ID.quarterly) == 2 && level(ID.yearly) == 1)
            let monthly = try #require(products.first { $0.id == ID.monthly })
            let quarterly = try #require(products.first { $0.id == ID.quarterly })
            #expect(quarterly.subscription?.subscriptionPeriod.unit == .month && quarterly.subscription?.subscriptionPeriod.value == 3)
            guard case .success(let trial) = try await monthly.purchase() else { Issue.record("expected success"); return }
            try session.advanceClock(by: "P1W")  // a paid month
            let month = try #require(try await Product.SubscriptionInfo.status(for: "premium").first).transaction
            guard case .success(let kept) = try await quarterly.purchase() else { Issue.record("expected success"); return }
            // As StoreKit: the purchase succeeds and hands back the subscription that runs until the renewal.
            let (keptID, keptProduct, monthID) = (try kept.payloadValue.id, try kept.payloadValue.productID, try month.payloadValue.id)
            #expect(keptID == monthID && keptProduct == ID.monthly)
            #expect(await Array(Transaction.currentEntitlements).map(\.unsafePayloadValue.productID) == [ID.monthly])
            let info = try #require(try await Product.SubscriptionInfo.status(for: "premium").first).renewalInfo.payloadValue
            #expect(info.currentProductID == ID.monthly && info.autoRenewPreference == ID.quarterly && info.willAutoRenew)
            try session.advanceClock(by: "P1M")
            let renewed = try #require(try await Product.SubscriptionInfo.status(for: "premium").first).transaction.payloadValue
            let original = try trial.payloadValue.originalID
            #expect(renewed.productID == ID.quarterly && renewed.originalID == original)
            #expect(renewed.price == Decimal(string: "12.99"))
        }
    }
}
