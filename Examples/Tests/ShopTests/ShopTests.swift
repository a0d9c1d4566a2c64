import Foundation
import Shop
import StorefrontKit
import StorefrontKitTest
import Testing

/// The demo catalog of the repository (a `.storekit` file works the same).
let catalog = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("products.json")

let goPro = "com.CephalopodStudio.PurchasePro.GoPro"
let shopping = "com.razeware.razefaces.swiftshopping"
let monthly = "barcode_month_subscription"

/// Waits up to `seconds` for `condition`.
func eventually(within seconds: Double = 10, _ condition: () async throws -> Bool) async rethrows -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if try await condition() { return true }
        try? await Task.sleep(for: .milliseconds(50))
    }
    return try await condition()
}

extension Examples {
/// Each test has a session of its own and runs the shop inside `session.run`, so its
/// purchases stay apart from any other session's (`twoSessionsInParallelStayApart`).
@Suite struct ShopTests {
    @Test func askToBuyApprovedArrivesAsAnUpdate() async throws {
        let session = try SKTestSession(contentsOf: catalog)
        session.askToBuyEnabled = true
        try await session.run {
            let shop = Shop(productIDs: [goPro])
            await shop.start()
            try await shop.requestProducts()
            #expect(try await shop.purchase(goPro) == .pending)
            #expect(await !shop.purchasedIdentifiers.contains(goPro))
            let request = try #require(session.allTransactions().first { $0.pendingAskToBuyConfirmation })
            try session.approveAskToBuyTransaction(identifier: request.identifier)
            #expect(await eventually { await shop.purchasedIdentifiers.contains(goPro) })
            #expect(try await shop.isPurchased(goPro))
        }
    }

    @Test func aRefundArrivesAsAnUpdate() async throws {
        let session = try SKTestSession(contentsOf: catalog)
        try await session.run {
            let shop = Shop(productIDs: [goPro, shopping])
            await shop.start()
            try await shop.requestProducts()
            #expect(try await shop.purchase(goPro) == .purchased(productID: goPro))
            // A canary bought outside the app proves the listener has taken its first look.
            try await session.buyProduct(identifier: shopping)
            #expect(await eventually(within: 20) { await shop.purchasedIdentifiers.contains(shopping) })
            let bought = try #require(session.allTransactions().first { $0.productIdentifier == goPro })
            try session.refundTransaction(identifier: bought.identifier)
            #expect(await eventually(within: 20) { await !shop.purchasedIdentifiers.contains(goPro) })
            #expect(await shop.updates.last?.revocationDate != nil)
            #expect(try await !shop.isPurchased(goPro))
        }
    }

    @Test func aRenewalArrivesAfterTheClockMoves() async throws {
        let session = try SKTestSession(contentsOf: catalog)
        try await session.run {
            let shop = Shop(productIDs: [monthly])
            await shop.start()
            try await shop.requestProducts()
            #expect(try await shop.purchase(monthly) == .purchased(productID: monthly))
            #expect(await shop.updates.isEmpty)
            try session.advanceClock(by: "P1M1D")
            #expect(await eventually { await shop.updates.contains { $0.reason == .renewal } })
            let renewal = try #require(await shop.updates.first { $0.reason == .renewal })
            #expect(renewal.productID == monthly && renewal.originalID != renewal.id)
        }
    }

    @Test func aSimulatedPurchaseErrorIsThrown() async throws {
        let session = try SKTestSession(contentsOf: catalog)
        try await session.setSimulatedError(.purchase(.purchaseNotAllowed), forAPI: .purchase)
        try await session.run {
            let shop = Shop(productIDs: [goPro])
            try await shop.requestProducts()
            await #expect(throws: Product.PurchaseError.purchaseNotAllowed) { try await shop.purchase(goPro) }
            #expect(await shop.purchasedIdentifiers.isEmpty)
        }
    }

    @Test func twoSessionsInParallelStayApart() async throws {
        let first = try SKTestSession(contentsOf: catalog)
        let second = try SKTestSession(contentsOf: catalog)
        async let a = first.run { try await buyAndRestore(goPro) }
        async let b = second.run { try await buyAndRestore(shopping) }
        #expect(try await a == [goPro])
        #expect(try await b == [shopping])
    }
}
}

/// Buys one product in a new shop, then restores: what the bound session's account owns.
private func buyAndRestore(_ productID: String) async throws -> Set<String> {
    let shop = Shop(productIDs: [goPro, shopping])
    try await shop.requestProducts()
    _ = try await shop.purchase(productID)
    try await shop.restorePurchases()
    return await shop.purchasedIdentifiers
}
