import Foundation
import Testing
@testable import StoreEngine

/// StoreKit's rules where Storefront used to differ (issue 14): non-renewing subscriptions,
/// `Transaction.all`, refunds as updates, error names, deleting a transaction.
@Suite("StoreKit's rules: transactions")
struct StoreKitRulesTests {
    @Test("a non-renewing subscription carries no expiresDate and stays in currentEntitlements, the latest one, finished or not")
    func nonRenewingSubscription() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            let first = try #require(try await store.app.buy("pass").outcome.transaction)
            #expect(first.expirationDate == nil)
            let (_, payload) = try await store.app.verify(jws: try #require(first.jwsRepresentation))
            #expect(payload["type"] == .string("Non-Renewing Subscription"))
            #expect(payload["expiresDate"] == nil, "Apple sets expiresDate on auto-renewable subscriptions only")

            // Long past the catalog's three months it is still an entitlement: the app decides when access ends.
            fixture.clock.advance(ISODuration(years: 2))
            #expect(try await store.app.currentEntitlements().map(\.id) == [first.id])
            #expect(try await store.app.snapshot().owned["pass"]?.id == first.id)

            // Bought again, and left unfinished: that latest one is the entitlement; nothing is extended.
            try await store.testSession.set(.finishTransactions, to: false)
            let second = try #require(try await store.app.buy("pass").outcome.transaction)
            #expect(!second.isFinished)
            #expect(second.purchaseDate == fixture.clock.now)
            #expect(second.expirationDate == nil)
            #expect(try await store.app.currentEntitlements().map(\.id) == [second.id])
            #expect(try await store.app.sync().map(\.id) == [second.id])
        }
    }

    @Test("Transaction.all: purchased transactions only, finished consumables left out, requests never listed")
    func transactionAll() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            let pro = try #require(try await store.app.buy("pro").outcome.transaction)
            let coins = try #require(try await store.app.buy("coins").outcome.transaction)
            try await store.testSession.set(.askToBuy, to: true)
            guard case .pending(let asked) = try await store.app.purchase("faces"),
                  case .pending(let declined) = try await store.app.purchase("pass") else {
                Issue.record("expected two pending requests")
                return
            }
            try await store.appStore.decline(declined.id)
            try await store.testSession.set(.askToBuy, to: false)
            try await store.testSession.set(.finishTransactions, to: false)
            let unfinishedCoins = try #require(try await store.app.buy("coins").outcome.transaction)

            let all = try await store.app.transactions()
            #expect(all.map(\.id) == [unfinishedCoins.id, pro.id], "an unfinished consumable stays until the app finishes it")
            #expect(all.allSatisfy { $0.status == .purchased })
            #expect(try await store.app.transactions(limit: 1).map(\.id) == [unfinishedCoins.id])

            // The App Store keeps everything (the Transaction Manager); the requests are requests.
            let kept = try await store.appStore.transactions().map(\.id)
            #expect(Set(kept) == [pro.id, coins.id, asked.id, declined.id, unfinishedCoins.id])
            #expect(try await store.appStore.pendingRequests().map(\.id) == [asked.id])
            #expect(try await store.app.snapshot().pending.map(\.id) == [asked.id])

            // As SKIncludeConsumableInAppPurchaseHistory asks.
            try await store.testSession.set(.includeConsumablesInHistory, to: true)
            #expect(try await store.app.transactions().map(\.id) == [unfinishedCoins.id, coins.id, pro.id])
        }
    }

    @Test("the catalog can ask for finished consumables in Transaction.all (startingSettings.includeConsumablesInHistory)")
    func catalogIncludesConsumables() async throws {
        let text = fixtureCatalogText.replacingOccurrences(
            of: #""storefront": "USA","#, with: #""storefront": "USA", "startingSettings": { "includeConsumablesInHistory": true },"#)
        let catalog = try Catalog.parse(Array(text.utf8), file: "history.json")
        #expect(catalog.settingDefaults["includeConsumablesInHistory"] == "true")
        try await withTemporaryFolder { folder in
            let store = try Store(catalog: catalog, path: folder + "/store.sqlite", now: TestClock(fixtureStart).closure)
            #expect(try await store.testSession.value(.includeConsumablesInHistory))
            let coins = try #require(try await store.app.buy("coins").outcome.transaction)
            #expect(try await store.app.transactions().map(\.id) == [coins.id])
        }
    }

    @Test("a refunded consumable the app had finished is in Transaction.all and latest(for:) (Apple: finished consumables 'that are refunded or revoked'), not in unfinished or currentEntitlements")
    func refundedConsumableStaysInHistory() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            let refunded = try #require(try await store.app.buy("coins").outcome.transaction)
            let kept = try #require(try await store.app.buy("coins").outcome.transaction)
            #expect(try await store.app.transactions().isEmpty, "finished consumables are left out")
            try await store.appStore.refund(refunded.id)
            // The app takes the revocation as an update and finishes it again.
            #expect(try await store.app.deliverUnfinished().revoked.map(\.id) == [refunded.id])
            #expect(try await store.app.unfinished().isEmpty)
            #expect(try await store.app.transactions().map(\.id) == [refunded.id], "the refunded one stays; \(kept.id) does not")
            #expect(try await store.app.latestTransaction(for: "coins")?.id == refunded.id)
            #expect(try await store.app.currentEntitlements().isEmpty, "a consumable is never an entitlement")
            let page = try await store.app.transactions(limit: 10) { _ in }
            #expect(page.count == 1 && page.lastID == refunded.id, "the streamed listing (transactions --limit) says the same")
            // The receipt keeps a consumable only until the app finishes it, refunded or not.
            #expect(try await store.appReceipt().inAppPurchases.isEmpty)
        }
    }

    @Test("a refund reaches the app as an update: delivered, finished, and out of the app's owned products")
    func refundArrivesAsUpdate() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            let pro = try #require(try await store.app.buy("pro").outcome.transaction)
            let coins = try #require(try await store.app.buy("coins", quantity: 2).outcome.transaction)
            _ = try await store.app.buy("coins", quantity: 3)
            #expect(try await store.app.balances()["coins"] == 5)

            let refunded = try await store.appStore.refund(pro.id, reason: .developerIssue)
            try await store.appStore.refund(coins.id)
            #expect(refunded.revocationDate == fixture.clock.now)
            // Waiting for the app, as Transaction.updates brings it.
            #expect(try await store.app.unfinished().map(\.id) == [pro.id, coins.id])

            let delivery = try await store.app.deliverUnfinished()
            #expect(delivery.revoked.map(\.id) == [pro.id, coins.id])
            #expect(delivery.revoked.first?.revocationReason == .developerIssue)
            #expect(delivery.finished.isEmpty && delivery.left.isEmpty)
            #expect(try await store.app.unfinished().isEmpty)
            #expect(try await store.app.ownedProducts()["pro"] == nil)
            #expect(try await store.app.balances()["coins"] == 3, "the refund took 2; the update takes nothing more")
            #expect(try await store.app.deliverUnfinished().revoked.isEmpty, "delivered once")

            // The paywall's snapshot shows it arrive.
            let faces = try #require(try await store.app.buy("faces").outcome.transaction)
            #expect(try await store.app.snapshot().owned["faces"] != nil)
            try await store.appStore.refund(faces.id)
            let snapshot = try await store.app.snapshot()
            #expect(snapshot.revoked == ["faces"])
            #expect(snapshot.arrived.isEmpty)
            #expect(snapshot.owned["faces"] == nil)
            #expect(try await store.app.snapshot().revoked.isEmpty)
        }
    }

    @Test("errors in StoreKit 2's words: purchaseNotAllowed, StoreKitError.unsupported, Transaction.Reason.renewal")
    func errorNames() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            try await store.testSession.set(.canMakePayments, to: false)
            await #expect(throws: StoreError.purchaseNotAllowed) { try await store.app.purchase("pro") }
            #expect(StoreError.purchaseNotAllowed.domain == "Product.PurchaseError")
            #expect(try await store.appStore.events().last?.detail == "purchaseNotAllowed (SKError.paymentNotAllowed, code 4)")

            #expect(SimulatedError.unsupported.domain == .storeKitError)
            #expect(SimulatedError.unsupported.skErrorCode == 19)
            try await store.testSession.set(.canMakePayments, to: true)
            #expect(try await store.testSession.setSetting("purchaseError", to: "unsupported", once: true) == "unsupported")
            await #expect(throws: StoreError.simulated(.unsupported, cause: "purchaseError is unsupported, once")) {
                try await store.app.purchase("pro")
            }
            // Xcode's generic error 6 is StoreKitError.unsupported.
            let errors = #"[{"current": {"index": 6, "type": "generic"}, "enabled": true, "name": "Purchase"}]"#
            #expect(StoreKitConfiguration.settingDefaults(from: ["storeKitErrors": errors]).defaults["purchaseError"] == "unsupported")

            // A renewal is StoreKit 2's `renewal`, signed as RENEWAL and verified when read back.
            _ = try await buy(store, "sub.yearly")
            fixture.clock.advance(ISODuration(years: 1, days: 1))
            let renewal = try #require(try await store.app.transactions().first)
            #expect(renewal.reason == .renewal)
            #expect(Transaction.Reason.renewal.rawValue == "renewal")
            #expect(renewal.verification == .verified)
            let (_, payload) = try await store.app.verify(jws: try #require(renewal.jwsRepresentation))
            #expect(payload["transactionReason"] == .string("RENEWAL"))
        }
    }

    @Test("deleting a subscription's newest transaction charges nothing; deleting its last one forgets it")
    func deletingChargesNothing() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            let yearly = try await buy(store, "sub.yearly")
            fixture.clock.advance(ISODuration(years: 1, days: 10))
            let history = try await store.appStore.transactions()
            #expect(history.count == 2)
            let renewal = try #require(history.first)

            try await store.appStore.deleteTransaction(renewal.id)
            fixture.clock.advance(by: 60)
            #expect(try await store.appStore.transactions().map(\.id) == [yearly.id], "no new, charged renewal")
            let status = try #require(try await store.app.subscriptionStatuses().first)
            #expect(status.state == .expired)
            #expect(status.transaction.id == yearly.id)
            #expect(try await store.app.currentEntitlements().isEmpty)
            fixture.clock.advance(ISODuration(years: 1))
            #expect(try await store.appStore.transactions().map(\.id) == [yearly.id])

            try await store.appStore.deleteTransaction(yearly.id)
            #expect(try await store.app.subscriptionStatuses().isEmpty)
            #expect(try await store.appStore.transactions().isEmpty)
        }
    }
}
