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

    @Test("a refunded consumable the app had finished is in Transaction.all and latest(for:), as Apple's StoreKit lists it")
    func aRefundedFinishedConsumableStaysInTheHistory() async throws {
        let session = try SKTestSession(contentsOf: catalogURL)
        try await session.run {
            let coins = try #require(try await Product.products(for: [ID.coins]).first)
            guard case .success(.verified(let transaction)) = try await coins.purchase() else {
                Issue.record("expected a verified purchase"); return
            }
            await transaction.finish()
            try session.refundTransaction(identifier: Int(transaction.id))
            // The app finishes the revocation it is handed.
            for await result in Transaction.unfinished { await result.unsafePayloadValue.finish() }
            var all: [UInt64] = []
            for await result in Transaction.all { all.append(result.unsafePayloadValue.id) }
            #expect(all == [transaction.id])
            let latest = await Transaction.latest(for: ID.coins)?.unsafePayloadValue
            #expect(latest?.id == transaction.id && latest?.revocationDate != nil)
        }
    }
}
