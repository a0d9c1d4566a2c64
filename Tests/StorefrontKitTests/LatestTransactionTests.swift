import Foundation
import StorefrontKit
import StorefrontKitTest
import Testing

/// `Transaction.latest(for:)` as Apple documents it: with `SKIncludeConsumableInAppPurchaseHistory`
/// false (the default), StoreKit returns no finished consumable from it.
@Suite struct LatestTransactionTests {
    @Test func aFinishedConsumableIsNotTheLatestTransaction() async throws {
        let session = try SKTestSession(contentsOf: catalogURL)
        try await session.run {
            let coins = try #require(try await Product.products(for: [ID.coins]).first)
            guard case .success(.verified(let transaction)) = try await coins.purchase() else {
                Issue.record("expected a verified purchase"); return
            }
            #expect(await Transaction.latest(for: ID.coins)?.unsafePayloadValue.id == transaction.id, "unfinished: still there")
            await transaction.finish()
            #expect(await Transaction.latest(for: ID.coins) == nil)
            // A non-consumable stays the latest once finished.
            let goPro = try #require(try await Product.products(for: [ID.goPro]).first)
            guard case .success(.verified(let bought)) = try await goPro.purchase() else {
                Issue.record("expected a verified purchase"); return
            }
            await bought.finish()
            #expect(await Transaction.latest(for: ID.goPro)?.unsafePayloadValue.id == bought.id)
        }
    }
}
