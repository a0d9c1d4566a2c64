import Foundation
import Testing
@testable import StoreEngine

// The finishTransactions setting in the engine.

@Suite("Store: the finishTransactions setting")
struct FinishTransactionsTests {
    @Test("finishTransactions false: bought but not finished, left at launch, delivered once it is true again")
    func notFinished() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            try await store.setSetting("finishTransactions", to: "false")
            let coins = try await store.purchaseAndFinish("coins", quantity: 2)
            #expect(coins.isFinished == false)
            #expect(coins.alreadyOwned == false)
            let bought = try transaction(of: coins.result)
            #expect(try await store.transaction(id: bought.id).isFinished == false)
            #expect(try await store.balances()["coins", default: 0] == 0)
            let pro = try await store.purchaseAndFinish("pro")
            #expect(pro.isFinished == false)
            #expect(try await store.isEntitled(to: "pro"), "the App Store charged it")
            #expect(try await store.ownedProducts().isEmpty, "the app never delivered it")

            let left = try await store.deliverUnfinished()
            #expect(left.finished.isEmpty)
            #expect(left.left.map(\.productID) == ["coins", "pro"])
            #expect(try await store.unfinished().count == 2)

            try await store.setSetting("finishTransactions", to: "true")
            let delivered = try await store.deliverUnfinished()
            #expect(delivered.finished.map(\.productID) == ["coins", "pro"])
            #expect(try await store.balances()["coins"] == 2)
            #expect(try await store.ownedProducts()["pro"]?.id == transaction(of: pro.result).id)
            #expect(try await store.unfinished().isEmpty)
        }
    }
}
