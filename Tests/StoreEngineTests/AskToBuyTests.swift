import Foundation
import Testing
@testable import StoreEngine

// Ask to Buy in the engine: a child's purchase waits for a parent's approve or decline.

@Suite("Store: Ask to Buy")
struct AskToBuyTests {
    @Test("a child's purchase waits: pending (askToBuy), unsigned, not entitled, not offered to the app, logged deferred")
    func pendingPurchase() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            try await store.setSetting("askToBuy", to: "true")
            let waiting = try await pendingTransaction(in: store, try await store.purchase("pro"))
            #expect(waiting.status == .pending)
            #expect(waiting.pendingReason == .askToBuy)
            #expect(waiting.jwsRepresentation == nil)
            #expect(waiting.verification == .verified, "an unsigned pending transaction is not a forgery")
            #expect(waiting.isFinished == false)
            #expect(waiting.productID == "pro")
            #expect(try await store.isEntitled(to: "pro") == false)
            #expect(try await store.unfinished().isEmpty)
            #expect(try await store.pendingTransactions().map(\.id) == [waiting.id])
            #expect(try await store.transactions().map(\.id) == [waiting.id])
            #expect(try await store.transaction(id: waiting.id).pendingReason == .askToBuy)
            let last = try #require(try await store.events().last)
            #expect(last.state == .deferred)
            #expect(last.transactionID == waiting.id)
            // The app's launch delivers nothing: nothing was bought yet.
            #expect(try await store.deliverUnfinished() == Delivery())
            #expect(try await store.ownedProducts().isEmpty)

            // What an app's Buy button gets: pending, not finished.
            let tap = try await store.purchaseAndFinish("faces")
            guard case .pending(let second) = tap.outcome else {
                Issue.record("expected pending, got \(tap.outcome.name)")
                return
            }
            #expect(tap.isFinished == false)
            #expect(second.reason == .askToBuy)
            #expect(try await store.pendingTransactions().map(\.id) == [waiting.id, second.id])
        }
    }

    @Test("a parent's approval: purchased, dated and priced at approval, signed, unfinished until the app delivers it")
    func approve() async throws {
        try await withStoreFixture { fixture in
            let child = try fixture.open()
            try await child.setSetting("askToBuy", to: "true")
            let waiting = try await pendingTransaction(in: child, try await child.purchase("pro"))
            #expect(waiting.purchaseDate == fixtureStart)

            // Two days later, in Japan, the parent approves (as another process would).
            fixture.clock.advance(by: 2 * 86_400)
            let parent = try fixture.open()
            try await parent.setSetting("storefront", to: "JPN")
            let approved = try await parent.approve(waiting.id)
            #expect(approved.id == waiting.id)
            #expect(approved.originalID == waiting.id)
            #expect(approved.status == .purchased)
            #expect(approved.pendingReason == nil)
            #expect(approved.purchaseDate == utc(2025, 2, 2, 12))
            #expect(approved.originalPurchaseDate == utc(2025, 2, 2, 12))
            #expect(approved.price == 160)
            #expect(approved.currency == "JPY")
            #expect(approved.storefront == "JPN")
            #expect(approved.isFinished == false)
            #expect(approved.verification == .verified)
            let payload = try await signedPayload(parent, approved)
            #expect(payload["transactionId"] == .string(String(waiting.id)))
            #expect(payload["purchaseDate"] == .integer(utc(2025, 2, 2, 12).milliseconds))
            #expect(payload["price"] == .integer(160_000))
            #expect(payload["currency"] == .string("JPY"))
            let last = try #require(try await parent.events().last)
            #expect(last.state == .purchased)
            #expect(last.transactionID == waiting.id)
            #expect(last.date == utc(2025, 2, 2, 12))

            // The App Store knows it at once; the app has it only after delivering the update.
            #expect(try await child.isEntitled(to: "pro"))
            #expect(try await child.pendingTransactions().isEmpty)
            #expect(try await child.ownedProducts().isEmpty)
            #expect(try await child.unfinished().map(\.id) == [waiting.id])
            let delivery = try await child.deliverUnfinished()
            #expect(delivery.finished.map(\.id) == [waiting.id])
            #expect(delivery.left.isEmpty)
            #expect(try await child.ownedProducts()["pro"]?.id == waiting.id)
            #expect(try await child.transaction(id: waiting.id).isFinished)
            #expect(try await child.deliverUnfinished() == Delivery(), "delivered once")
        }
    }

    @Test("a second Ask to Buy request for a non-consumable the account got meanwhile cannot be approved: no double charge")
    func approveTwice() async throws {
        try await withStoreFixture { fixture in
            let child = try fixture.open()
            try await child.setSetting("askToBuy", to: "true")
            let first = try await pendingTransaction(in: child, try await child.purchase("pro"))
            let second = try await pendingTransaction(in: child, try await child.purchase("pro"))
            try await child.approve(first.id)
            await #expect(throws: StoreError.self) { try await child.approve(second.id) }
            #expect(try await child.transaction(id: second.id).status == .pending, "still there to decline")
            try await child.decline(second.id)
            #expect(try await child.transactions().filter { $0.status == .purchased }.map(\.id) == [first.id])
        }
    }

    @Test("a catalog's starting settings (a .storekit file's Ask to Buy, billing and time rate switches) are the defaults until set")
    func startingSettings() async throws {
        try await withStoreFixture { fixture in
            var catalog = fixture.catalog
            catalog.startingSettings = ["askToBuyEnabled": "true", "billingIssuesEnabled": "true", "timeRate": "3"]
            let store = try Store(catalog: catalog, path: fixture.path, now: fixture.clock.closure)
            let settings = Dictionary(uniqueKeysWithValues: try await store.settings().map { ($0.name, $0) })
            #expect(settings["askToBuy"]?.value == "true")
            #expect(settings["askToBuy"]?.isDefault == true)
            #expect(settings["billingIssues"]?.value == "true")
            #expect(settings["gracePeriod"]?.value == "false")
            #expect(settings["timeRate"]?.value == "monthlyRenewalEveryHour", "Xcode's 3 (fiveMinutesIsOneDay) at the nearest rate")
            guard case .pending = try await store.purchase("pro") else {
                Issue.record("Ask to Buy from the catalog should make the purchase pending")
                return
            }
            try await store.setSetting("askToBuy", to: "false")
            guard case .purchased = try await store.purchase("pro") else {
                Issue.record("a set value wins over the catalog's")
                return
            }
        }
    }

    @Test("an approved consumable reaches the balance when delivered, with its quantity")
    func approveConsumable() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            try await store.setSetting("askToBuy", to: "true")
            let waiting = try await pendingTransaction(in: store, try await store.purchase("coins", quantity: 3))
            #expect(try await store.balances()["coins", default: 0] == 0)
            let approved = try await store.approve(waiting.id)
            #expect(approved.purchasedQuantity == 3)
            #expect(approved.price == decimal("2.97"))
            #expect(try await store.balances()["coins", default: 0] == 0, "not before the app delivers it")
            _ = try await store.deliverUnfinished()
            #expect(try await store.balances()["coins"] == 3)
        }
    }

    @Test("an approved subscription starts at approval: its free week ends a week after the approval")
    func approveSubscription() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            try await store.setSetting("askToBuy", to: "true")
            let waiting = try await pendingTransaction(in: store, try await store.purchase("sub.monthly"))
            #expect(waiting.expirationDate == nil)
            #expect(waiting.offerType == nil)
            fixture.clock.advance(by: 3 * 86_400)
            let approved = try await store.approve(waiting.id)
            #expect(approved.purchaseDate == utc(2025, 2, 3, 12))
            #expect(approved.expirationDate == utc(2025, 2, 10, 12))
            #expect(approved.offerType == .introductory)
            #expect(approved.price == 0)
            #expect(try await store.isEntitled(to: "sub.monthly"))
            // The free week ends a week after the approval, where the first paid renewal starts.
            fixture.clock.set(utc(2025, 2, 10, 12))
            let renewal = try #require(try await store.transactions().first)
            #expect(renewal.reason == .renewal)
            #expect(renewal.originalID == approved.originalID)
            #expect(renewal.purchaseDate == utc(2025, 2, 10, 12))
            #expect(renewal.price == decimal("4.99"))
        }
    }

    @Test("a parent's decline: declined, nothing charged, nothing delivered, and it cannot be approved afterwards")
    func decline() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            try await store.setSetting("askToBuy", to: "true")
            let waiting = try await pendingTransaction(in: store, try await store.purchase("pro"))
            fixture.clock.advance(by: 60)
            let declined = try await store.decline(waiting.id)
            #expect(declined.status == .declined)
            #expect(declined.jwsRepresentation == nil)
            #expect(try await store.transaction(id: waiting.id).status == .declined)
            #expect(try await store.pendingTransactions().isEmpty)
            #expect(try await store.unfinished().isEmpty)
            #expect(try await store.isEntitled(to: "pro") == false)
            #expect(try await store.deliverUnfinished() == Delivery())
            #expect(try await store.ownedProducts().isEmpty)
            let last = try #require(try await store.events().last)
            #expect(last.state == .failed)
            #expect(last.transactionID == waiting.id)

            await #expect(throws: StoreError.invalidTransactionState(id: waiting.id, action: "approve", state: "declined")) {
                try await store.approve(waiting.id)
            }
            await #expect(throws: StoreError.invalidTransactionState(id: waiting.id, action: "decline", state: "declined")) {
                try await store.decline(waiting.id)
            }
            await #expect(throws: StoreError.invalidTransactionState(id: waiting.id, action: "refund", state: "declined")) {
                try await store.refund(waiting.id)
            }
            #expect(try await store.transaction(id: waiting.id).status == .declined)
        }
    }

    @Test("approving or declining what does not wait for a parent is invalidTransactionState, and changes nothing")
    func wrongStates() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            let bought = try await buy(store, "pro")
            await #expect(throws: StoreError.invalidTransactionState(id: bought.id, action: "approve", state: "purchased")) {
                try await store.approve(bought.id)
            }
            await #expect(throws: StoreError.invalidTransactionState(id: bought.id, action: "decline", state: "purchased")) {
                try await store.decline(bought.id)
            }
            await #expect(throws: StoreError.invalidTransactionState(id: bought.id, action: "resolve", state: "purchased")) {
                try await store.resolve(bought.id)
            }
            #expect(try await store.transaction(id: bought.id) == bought)

            try await store.setSetting("askToBuy", to: "true")
            let waiting = try await pendingTransaction(in: store, try await store.purchase("faces"))
            await #expect(throws: StoreError.invalidTransactionState(id: waiting.id, action: "resolve",
                                                                     state: "pending (askToBuy)")) {
                try await store.resolve(waiting.id)
            }
            await #expect(throws: StoreError.invalidTransactionState(id: waiting.id, action: "refund", state: "pending")) {
                try await store.refund(waiting.id)
            }
            #expect(try await store.transaction(id: waiting.id).status == .pending)
            // Approving twice: the second finds it purchased.
            try await store.approve(waiting.id)
            await #expect(throws: StoreError.invalidTransactionState(id: waiting.id, action: "approve", state: "purchased")) {
                try await store.approve(waiting.id)
            }
        }
    }

    @Test("another account's transaction, or no transaction, is transactionNotFound for every action")
    func otherAccount() async throws {
        try await withStoreFixture { fixture in
            let child = try fixture.open(account: "child@qa")
            try await child.setSetting("askToBuy", to: "true")
            let waiting = try await pendingTransaction(in: child, try await child.purchase("pro"))
            let bought = try transaction(of: try await child.purchase("coins", choice: .succeed))

            let stranger = try fixture.open(account: "stranger@qa")
            for id in [waiting.id, bought.id, 9_999_999_999] {
                await #expect(throws: StoreError.transactionNotFound(id: id)) { try await stranger.approve(id) }
                await #expect(throws: StoreError.transactionNotFound(id: id)) { try await stranger.decline(id) }
                await #expect(throws: StoreError.transactionNotFound(id: id)) { try await stranger.resolve(id) }
                await #expect(throws: StoreError.transactionNotFound(id: id)) { try await stranger.refund(id) }
                await #expect(throws: StoreError.transactionNotFound(id: id)) { try await stranger.deleteTransaction(id) }
            }
            #expect(try await child.transaction(id: waiting.id).status == .pending)
            #expect(try await child.transaction(id: bought.id).revocationDate == nil)
            #expect(try await child.transactions().count == 2)
        }
    }

    @Test("askToBuy belongs to one account: another account on the same file buys at once")
    func perAccount() async throws {
        try await withStoreFixture { fixture in
            let child = try fixture.open(account: "child@qa")
            try await child.setSetting("askToBuy", to: "on")
            let parent = try fixture.open(account: "parent@qa")
            #expect(try await parent.purchase("pro").result.name == "success")
            #expect(try await child.purchase("pro").name == "pending")
            let settings = try await parent.settings()
            #expect(settings.first { $0.name == "askToBuy" }?.value == "false")
            #expect(try await child.settings().first { $0.name == "askToBuy" }?.value == "true")
        }
    }
}
