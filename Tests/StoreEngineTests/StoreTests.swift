import Foundation
import Testing
@testable import StoreEngine

@Suite("Store: purchases")
struct StorePurchaseTests {
    @Test("a non-consumable: one transaction, owned by the store at once and by the app after finish")
    func nonConsumable() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            let bought = try await buy(store, "pro")
            #expect(bought.productID == "pro")
            #expect(bought.productType == .nonConsumable)
            #expect(bought.originalID == bought.id)
            #expect(bought.purchaseDate == fixtureStart)
            #expect(bought.originalPurchaseDate == fixtureStart)
            #expect(bought.expirationDate == nil)
            #expect(bought.purchasedQuantity == 1)
            #expect(bought.price == decimal("0.99"))
            #expect(bought.currency == "USD")
            #expect(bought.storefront == "USA")
            #expect(bought.account == Store.defaultAccount)
            #expect(bought.status == .purchased)
            #expect(bought.ownershipType == .purchased)
            #expect(bought.reason == .purchase)
            #expect(bought.offerType == nil)
            #expect(bought.isFinished == false)

            #expect(try await store.isEntitled(to: "pro"))
            #expect(try await store.currentEntitlements().map(\.id) == [bought.id])
            #expect(try await store.ownedProducts().isEmpty)  // not delivered until finished
            try await store.finish(bought)
            #expect(try await store.ownedProducts()["pro"]?.id == bought.id)
            #expect(try await store.transaction(id: bought.id).isFinished)
            #expect(try await store.events().map(\.state) == [.purchasing, .purchased])
            #expect(try await store.events().last?.transactionID == bought.id)
        }
    }

    @Test("a non-consumable bought twice: the same transaction comes back, no new history row, logged as restored")
    func nonConsumableTwice() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            let first = try await buy(store, "pro")
            try await store.finish(first)
            fixture.clock.advance(by: 3600)
            let second = try await buy(store, "pro")
            #expect(second.id == first.id)
            #expect(second.originalID == first.originalID)
            #expect(second.purchaseDate == first.purchaseDate)  // not charged again
            #expect(try await store.transactions().map(\.id) == [first.id])
            let last = try #require(try await store.events().last)
            #expect(last.state == .restored)
            #expect(last.transactionID == first.id)
            #expect(last.date == fixtureStart.addingTimeInterval(3600))
            #expect(try await store.events().filter { $0.state == .purchased }.count == 1)
        }
    }

    @Test("re-buying an owned non-consumable after the app was deleted gives it back to the app, free")
    func nonConsumableAfterAppReset() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            let first = try await buy(store, "pro")
            try await store.finish(first)
            try await store.reset(.app)
            #expect(try await store.ownedProducts().isEmpty)
            let again = try await buy(store, "pro")
            #expect(again.id == first.id)
            #expect(try await store.ownedProducts()["pro"]?.id == first.id)
            #expect(try await store.transactions().count == 1)
        }
    }

    @Test("a consumable: the balance grows only on finish, once per transaction")
    func consumable() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            let bought = try await buy(store, "coins", quantity: 3)
            #expect(bought.purchasedQuantity == 3)
            #expect(bought.price == decimal("2.97"))  // 3 × 0.99, exactly
            #expect(try await store.balances()["coins", default: 0] == 0)
            try await store.finish(bought)
            #expect(try await store.balances()["coins"] == 3)
            try await store.finish(bought)  // finishing twice delivers once
            #expect(try await store.balances()["coins"] == 3)

            let more = try await buy(store, "coins", quantity: 2)
            #expect(more.id != bought.id)
            #expect(more.originalID == more.id)
            try await store.finish(more)
            #expect(try await store.balances()["coins"] == 5)
            #expect(try await store.transactions().count == 2)
            // Consumables are never entitlements.
            #expect(try await store.currentEntitlements().isEmpty)
            #expect(try await !store.isEntitled(to: "coins"))
            #expect(try await store.ownedProducts().isEmpty)
        }
    }

    @Test("consume reduces the balance; beyond the balance it throws and changes nothing")
    func consume() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            try await store.finish(try await buy(store, "coins", quantity: 3))
            #expect(try await store.consume("coins", quantity: 2) == 1)
            #expect(try await store.balances()["coins"] == 1)
            await #expect(throws: StoreError.insufficientBalance(productID: "coins", balance: 1, requested: 2)) {
                try await store.consume("coins", quantity: 2)
            }
            #expect(try await store.balances()["coins"] == 1)
            #expect(try await store.consume("coins") == 0)
            await #expect(throws: StoreError.insufficientBalance(productID: "coins", balance: 0, requested: 1)) {
                try await store.consume("coins")
            }
            await #expect(throws: StoreError.invalidQuantity(0)) { try await store.consume("coins", quantity: 0) }
            await #expect(throws: StoreError.notConsumable(productID: "pro")) { try await store.consume("pro") }
            await #expect(throws: StoreError.productUnavailable(productID: "gold")) { try await store.consume("gold") }
        }
    }

    @Test("an unfinished consumable cannot be consumed yet")
    func consumeBeforeFinish() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            _ = try await buy(store, "coins", quantity: 2)
            await #expect(throws: StoreError.insufficientBalance(productID: "coins", balance: 0, requested: 1)) {
                try await store.consume("coins")
            }
        }
    }

    @Test("invalid quantities are refused and charge nothing", arguments: [
        ("coins", 0), ("coins", 11), ("coins", -1), ("pro", 2), ("pass", 2), ("sub.monthly", 2), ("pro", 0),
    ])
    func invalidQuantity(productID: String, quantity: Int) async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            await #expect(throws: StoreError.invalidQuantity(quantity)) {
                try await store.purchase(productID, quantity: quantity)
            }
            #expect(try await store.transactions().isEmpty)
            #expect(try await store.events().last?.state == .failed)
            #expect(try await store.events().last?.detail.contains("invalidQuantity") == true)
        }
    }

    @Test("ten is the largest quantity of a consumable")
    func quantityTen() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            let bought = try await buy(store, "coins", quantity: 10)
            #expect(bought.purchasedQuantity == 10)
            #expect(bought.price == decimal("9.9"))
        }
    }

    @Test("an unknown product is productUnavailable")
    func unknownProduct() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            await #expect(throws: StoreError.productUnavailable(productID: "com.nope")) {
                try await store.purchase("com.nope")
            }
            #expect(try await store.transactions().isEmpty)
            #expect(try await store.events().map(\.state) == [.purchasing, .failed])
            #expect(try await store.product(id: "com.nope") == nil)
        }
    }

    @Test("canMakePayments false: Product.PurchaseError.purchaseNotAllowed, nothing charged, the StoreKit 1 log says SKError.paymentNotAllowed; per account")
    func purchaseNotAllowed() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            #expect(try await store.canMakePayments())
            #expect(try await store.setSetting("canMakePayments", to: "false") == "false")
            #expect(try await !store.canMakePayments())
            for productID in ["pro", "coins", "pass", "sub.monthly"] {
                await #expect(throws: StoreError.purchaseNotAllowed) { try await store.purchase(productID) }
            }
            #expect(try await store.transactions().isEmpty)
            #expect(try await store.currentEntitlements().isEmpty)
            let last = try #require(try await store.events().last)
            #expect(last.state == .failed)
            #expect(last.transactionID == nil)
            #expect(last.detail == "purchaseNotAllowed (SKError.paymentNotAllowed, code 4)")
            #expect(StoreError.purchaseNotAllowed.name == "purchaseNotAllowed")
            #expect(StoreError.purchaseNotAllowed.domain == "Product.PurchaseError")

            // Another account is not affected.
            let other = try fixture.open(account: "other@local")
            #expect(try await other.canMakePayments())
            _ = try await buy(other, "pro")

            // Back on (any spelling of true), purchases go through.
            #expect(try await store.setSetting("canMakePayments", to: "on") == "true")
            _ = try await buy(store, "pro")
            #expect(try await store.transactions().count == 1)
        }
    }

    @Test("purchaseAndFinish delivers at once and says whether the product was already owned")
    func purchaseAndFinish() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            let first = try await store.purchaseAndFinish("pro")
            let bought = try transaction(of: first.result)
            #expect(first.alreadyOwned == false)
            #expect(bought.isFinished)
            #expect(try await store.ownedProducts()["pro"]?.id == bought.id)
            #expect(try await store.unfinished().isEmpty)

            let again = try await store.purchaseAndFinish("pro")
            #expect(again.alreadyOwned)
            #expect(try transaction(of: again.result).id == bought.id)
            #expect(try await store.transactions().count == 1)

            let coins = try await store.purchaseAndFinish("coins", quantity: 4)
            #expect(coins.alreadyOwned == false)
            #expect(try await store.balances()["coins"] == 4)
            #expect(try await store.purchaseAndFinish("coins").alreadyOwned == false)  // consumables are never owned
            #expect(try await store.balances()["coins"] == 5)

            try await store.setSetting("canMakePayments", to: "false")
            await #expect(throws: StoreError.purchaseNotAllowed) { try await store.purchaseAndFinish("faces") }
        }
    }

    @Test("the app account token is kept")
    func appAccountToken() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            let token = UUID()
            let bought = try transaction(of: try await store.purchase("pro", appAccountToken: token))
            #expect(bought.appAccountToken == token)
            #expect(try await store.transaction(id: bought.id).appAccountToken == token)
        }
    }

    @Test("transaction ids are unique and increasing; a first purchase is its own original")
    func transactionIDs() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            let other = try fixture.open(account: "other@local")
            var ids: [Int64] = []
            for (buyer, productID) in [(store, "pro"), (other, "pro"), (store, "coins"), (store, "coins"),
                                       (store, "pass"), (other, "sub.monthly"), (store, "faces")] {
                let bought = try await buy(buyer, productID)
                #expect(bought.originalID == bought.id)
                ids.append(bought.id)
            }
            #expect(ids == ids.sorted())
            #expect(Set(ids).count == ids.count)
            // History is newest first, and reads back the ids handed out.
            #expect(try await store.transactions().map(\.id) == [ids[6], ids[4], ids[3], ids[2], ids[0]])
            await #expect(throws: StoreError.transactionNotFound(id: ids[1])) {
                try await store.transaction(id: ids[1])  // the other account's
            }
        }
    }

    @Test("with a clock between milliseconds, the purchase returns exactly what the store file keeps")
    func subMillisecondClock() async throws {
        try await withStoreFixture { fixture in
            fixture.clock.set(fixtureStart.addingTimeInterval(0.123_456_7))
            let store = try fixture.open()
            for productID in ["pro", "coins", "pass", "sub.monthly"] {
                let bought = try await buy(store, productID)
                #expect(try await store.transaction(id: bought.id) == bought)
            }
            // Buying an owned product again hands back the very same transaction.
            let first = try await store.transaction(id: try #require(try await store.transactions().last).id)
            #expect(try await buy(store, "pro") == first)
        }
    }

    @Test("a transaction read back equals the one the purchase returned")
    func readBack() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            for productID in ["pro", "coins", "pass", "sub.monthly"] {
                let bought = try await buy(store, productID)
                #expect(try await store.transaction(id: bought.id) == bought)
            }
        }
    }
}

@Suite("Store: subscriptions")
struct StoreSubscriptionTests {
    @Test("an auto-renewable subscription with an introductory free trial: the trial first, once per group")
    func introductoryOffer() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            let trial = try await buy(store, "sub.monthly")
            #expect(trial.productType == .autoRenewable)
            #expect(trial.subscriptionGroupID == "premium")
            #expect(trial.offerType == .introductory)
            #expect(trial.price == 0)
            #expect(trial.expirationDate == utc(2025, 2, 7, 12))  // one week
            #expect(try await store.isEntitled(to: "sub.monthly"))

            // The trial ends and the subscription renews at the full price for a full period.
            fixture.clock.set(utc(2025, 2, 8, 12))
            #expect(try await store.isEntitled(to: "sub.monthly"))
            let paid = try #require(try await store.transactions().first)
            #expect(paid.id != trial.id)
            #expect(paid.originalID == trial.id)
            #expect(paid.reason == .renewal)
            #expect(paid.offerType == nil)
            #expect(paid.price == decimal("4.99"))
            #expect(paid.purchaseDate == utc(2025, 2, 7, 12))
            #expect(paid.expirationDate == utc(2025, 3, 7, 12))
        }
    }

    @Test("the introductory offer is not given again after switching within the group")
    func introductoryOfferOncePerGroup() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            let trial = try await buy(store, "sub.monthly")
            #expect(trial.offerType == .introductory)
            fixture.clock.advance(by: 86_400)
            _ = try await buy(store, "sub.yearly")
            fixture.clock.advance(by: 86_400)
            // Back to monthly is a downgrade: it waits for the yearly period's end, and then has no trial.
            let kept = try await buy(store, "sub.monthly")
            #expect(kept.productID == "sub.yearly")
            fixture.clock.advance(by: 366 * 86_400)
            let back = try #require(try await store.transactions().first)
            #expect(back.productID == "sub.monthly")
            #expect(back.offerType == nil)
            #expect(back.price == decimal("4.99"))
            // A different account has its own eligibility.
            let other = try fixture.open(account: "other@local")
            #expect(try await buy(other, "sub.monthly").offerType == .introductory)
        }
    }

    @Test("buying the active subscription again charges nothing and logs restored")
    func subscribedAlready() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            let yearly = try await buy(store, "sub.yearly")
            #expect(yearly.expirationDate == utc(2026, 1, 31, 12))
            fixture.clock.advance(by: 86_400)
            let again = try await buy(store, "sub.yearly")
            #expect(again.id == yearly.id)
            #expect(again.expirationDate == yearly.expirationDate)
            #expect(try await store.transactions().count == 1)
            #expect(try await store.events().last?.state == .restored)
        }
    }

    @Test("switching within a group: the old one is upgraded away, one active per group")
    func switching() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            let monthly = try await buy(store, "sub.monthly")
            try await store.finish(monthly)
            fixture.clock.advance(by: 3600)
            let yearly = try await buy(store, "sub.yearly")
            #expect(yearly.isUpgraded == false)
            #expect(try await store.transaction(id: monthly.id).isUpgraded)
            #expect(try await store.transaction(id: yearly.id).isUpgraded == false)
            let entitlements = try await store.currentEntitlements()
            #expect(entitlements.filter { $0.subscriptionGroupID == "premium" }.map(\.id) == [yearly.id])
            #expect(try await !store.isEntitled(to: "sub.monthly"))
            #expect(try await store.isEntitled(to: "sub.yearly"))
            // The app's cache does not keep the replaced one either.
            #expect(try await store.ownedProducts()["sub.monthly"] == nil)
            #expect(try await store.transactions().count == 2)
        }
    }

    @Test("with auto-renew off, a subscription expires with the clock")
    func expiry() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            let yearly = try await buy(store, "sub.yearly")
            try await store.finish(yearly)
            try await store.setAutoRenew(groupID: "premium", false)
            let end = try #require(yearly.expirationDate)
            fixture.clock.set(end.addingTimeInterval(-1))
            #expect(try await store.isEntitled(to: "sub.yearly"))
            #expect(try await store.ownedProducts()["sub.yearly"] != nil)
            fixture.clock.set(end.addingTimeInterval(1))
            #expect(try await !store.isEntitled(to: "sub.yearly"))
            #expect(try await store.currentEntitlements().isEmpty)
            #expect(try await store.ownedProducts().isEmpty)
            // It stays in the history.
            #expect(try await store.transactions().map(\.id) == [yearly.id])
        }
    }
}

@Suite("Store: restore, unfinished, accounts, resets")
struct StoreRestoreTests {
    @Test("restore after deleting the app: non-consumables and active subscriptions, never consumables, no new transaction")
    func restoreAfterAppReset() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            let pro = try await buy(store, "pro")
            let coins = try await buy(store, "coins", quantity: 4)
            let yearly = try await buy(store, "sub.yearly")
            let pass = try await buy(store, "pass")
            for bought in [pro, coins, yearly, pass] { try await store.finish(bought) }
            #expect(try await store.balances()["coins"] == 4)
            let historyBefore = try await store.transactions()

            try await store.reset(.app)
            #expect(try await store.ownedProducts().isEmpty)
            #expect(try await store.balances().isEmpty)
            // The App Store still knows.
            #expect(Set(try await store.currentEntitlements().map(\.productID)) == ["pro", "sub.yearly", "pass"])

            fixture.clock.advance(by: 60)
            let restored = try await store.sync()
            #expect(Set(restored.map(\.id)) == [pro.id, yearly.id, pass.id])
            #expect(Set(try await store.ownedProducts().keys) == ["pro", "sub.yearly", "pass"])
            #expect(try await store.balances()["coins", default: 0] == 0)
            #expect(try await store.transactions() == historyBefore)
            // StoreKit 1's restoreCompletedTransactions never restores a non-renewing subscription: its log says so.
            let restoredEvents = try await store.events().filter { $0.state == .restored }
            #expect(Set(restoredEvents.map(\.productID)) == ["pro", "sub.yearly"])
            #expect(restoredEvents.allSatisfy { $0.date == fixture.clock.now })
        }
    }

    @Test("restore leaves out expired and upgraded subscriptions; a non-renewing one has no end the App Store keeps")
    func restoreSkipsInactive() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            _ = try await buy(store, "sub.monthly")   // trial, then replaced
            let yearly = try await buy(store, "sub.yearly")
            try await store.setAutoRenew(groupID: "premium", false)
            let pass = try await buy(store, "pass")
            fixture.clock.set(utc(2025, 6, 1))         // the pass's catalog length has passed, the year has not
            #expect(try await store.sync().map(\.id) == [yearly.id, pass.id])
            fixture.clock.set(utc(2026, 6, 1))
            #expect(try await store.sync().map(\.id) == [pass.id])
        }
    }

    @Test("a purchased but unfinished transaction is delivered again when the store reopens, not after finish")
    func unfinishedAcrossRestart() async throws {
        try await withStoreFixture { fixture in
            let bought: Transaction
            let finishedOne: Transaction
            do {
                let store = try fixture.open()
                finishedOne = try await buy(store, "pro")
                try await store.finish(finishedOne)
                bought = try await buy(store, "coins", quantity: 2)
                // The process dies here, before delivering.
            }
            do {
                let reopened = try fixture.open()
                let pending = try await reopened.unfinished()
                #expect(pending.map(\.id) == [bought.id])
                #expect(pending.first?.purchasedQuantity == 2)
                // Still pending until finished: asking again gives it again.
                #expect(try await reopened.unfinished().map(\.id) == [bought.id])
                try await reopened.finish(try #require(pending.first))
                #expect(try await reopened.balances()["coins"] == 2)
            }
            do {
                let again = try fixture.open()
                #expect(try await again.unfinished().isEmpty)
                #expect(try await again.balances()["coins"] == 2)
            }
        }
    }

    @Test("accounts have separate histories, entitlements and balances")
    func accounts() async throws {
        try await withStoreFixture { fixture in
            let alice = try fixture.open(account: "alice@local")
            let bob = try fixture.open(account: "bob@local")
            let bought = try await buy(alice, "pro")
            try await alice.finish(bought)
            try await alice.finish(try await buy(alice, "coins", quantity: 3))
            #expect(try await bob.transactions().isEmpty)
            #expect(try await bob.currentEntitlements().isEmpty)
            #expect(try await bob.ownedProducts().isEmpty)
            #expect(try await bob.balances().isEmpty)
            #expect(try await bob.unfinished().isEmpty)
            #expect(try await bob.sync().isEmpty)
            #expect(try await bob.events().allSatisfy { $0.account == "bob@local" })
            // Bob buying the same product is a new purchase of his own.
            let bobs = try await buy(bob, "pro")
            #expect(bobs.id != bought.id)
            #expect(bobs.account == "bob@local")
            #expect(Set(try await alice.accounts()) == ["alice@local", "bob@local"])
        }
    }

    @Test("reset app: the app's cache and balances go, the history stays")
    func resetApp() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            try await store.finish(try await buy(store, "pro"))
            try await store.finish(try await buy(store, "coins", quantity: 2))
            try await store.reset(.app)
            #expect(try await store.ownedProducts().isEmpty)
            #expect(try await store.balances().isEmpty)
            #expect(try await store.transactions().count == 2)
            #expect(try await store.isEntitled(to: "pro"))
        }
    }

    @Test("reset account: this account's history, settings and app state go; others stay; ids are never reused")
    func resetAccount() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            let other = try fixture.open(account: "other@local")
            let mine = try await buy(store, "pro")
            try await store.finish(mine)
            try await store.finish(try await buy(store, "coins"))
            try await store.setSetting("canMakePayments", to: "false")
            let theirs = try await buy(other, "pro")
            try await other.finish(theirs)

            try await store.reset(.account)
            #expect(try await store.transactions().isEmpty)
            #expect(try await store.currentEntitlements().isEmpty)
            #expect(try await store.ownedProducts().isEmpty)
            #expect(try await store.balances().isEmpty)
            #expect(try await store.canMakePayments())
            #expect(try await store.events().isEmpty)
            #expect(try await !store.accounts().contains(Store.defaultAccount))

            #expect(try await other.transactions().map(\.id) == [theirs.id])
            #expect(try await other.ownedProducts()["pro"]?.id == theirs.id)

            let rebought = try await buy(store, "pro")
            #expect(rebought.id > theirs.id)
            #expect(rebought.id != mine.id)
            // After the reset the account is a fresh sandbox tester, eligible for the introductory offer again.
            #expect(try await buy(store, "sub.monthly").offerType == .introductory)
        }
    }

    @Test("reset all: every account and setting goes; ids are never reused")
    func resetAll() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            let other = try fixture.open(account: "other@local")
            try await store.finish(try await buy(store, "pro"))
            let last = try await buy(other, "coins")
            try await other.finish(last)
            try await store.setSetting("storefront", to: "DEU")
            try await other.setSetting("canMakePayments", to: "false")

            try await store.reset(.all)
            for account in [store, other] {
                #expect(try await account.transactions().isEmpty)
                #expect(try await account.ownedProducts().isEmpty)
                #expect(try await account.balances().isEmpty)
                #expect(try await account.events().isEmpty)
                #expect(try await account.canMakePayments())
            }
            #expect(try await store.accounts().isEmpty)
            #expect(try await store.storefront().countryCode == "USA")
            #expect(try await store.settings().allSatisfy { $0.isDefault })
            #expect(try await buy(other, "pro").id > last.id)
        }
    }
}

@Suite("Store: products and settings")
struct StoreSettingsTests {
    @Test("products come in display order, priced for the default storefront")
    func products() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            let products = try await store.products()
            #expect(products.map(\.id) == ["sub.yearly", "sub.monthly", "pro", "faces", "coins", "pass"])
            #expect(products.map(\.displayPrice) == ["$39.99", "$4.99", "$0.99", "$1.99", "$0.99", "$9.99"])
            #expect(products.allSatisfy { $0.currencyCode == "USD" })
            #expect(try await store.storefront().countryCode == "USA")
        }
    }

    @Test("storefront DEU: prices, currency and text follow, for products and new transactions")
    func storefrontGermany() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            let before = try await buy(store, "faces")
            #expect(try await store.setSetting("storefront", to: "deu") == "DEU")
            #expect(try await store.storefront() == Storefront(countryCode: "DEU", currency: "EUR", locale: "de_DE"))

            let pro = try #require(try await store.product(id: "pro"))
            #expect(pro.displayPrice == "0,99\u{A0}€")
            #expect(pro.currencyCode == "EUR")
            #expect(pro.displayName == "Pro freischalten")
            #expect(pro.description == "Pro-Funktionen")
            let monthly = try #require(try await store.products().first { $0.id == "sub.monthly" })
            #expect(monthly.price == decimal("5.49"))  // the DEU override
            #expect(monthly.displayPrice == "5,49\u{A0}€")

            let bought = try await buy(store, "pro")
            #expect(bought.currency == "EUR")
            #expect(bought.storefront == "DEU")
            let yearly = try await buy(store, "sub.yearly")
            #expect(yearly.price == decimal("44.99"))
            // What was bought before keeps its own currency.
            #expect(try await store.transaction(id: before.id).currency == "USD")
            #expect(try await store.transaction(id: before.id).storefront == "USA")

            // The storefront belongs to the whole store file: another account sees it too.
            let other = try fixture.open(account: "other@local")
            #expect(try await other.storefront().countryCode == "DEU")
        }
    }

    @Test("storefront JPN: yen without decimals, overrides applied")
    func storefrontJapan() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            try await store.setSetting("storefront", to: "JPN")
            let products = try await store.products()
            #expect(products.first { $0.id == "pro" }?.displayPrice == "\u{A5}160")
            #expect(products.first { $0.id == "coins" }?.displayPrice == "\u{A5}160")
            #expect(products.first { $0.id == "sub.monthly" }?.displayPrice == "\u{A5}700")
            let coins = try await buy(store, "coins", quantity: 2)
            #expect(coins.price == 320)
            #expect(coins.currency == "JPY")
        }
    }

    @Test("settings list every setting with its value and whether it is the default")
    func settingsList() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            let defaults = try await store.settings()
            #expect(defaults.map(\.name) == [
                "canMakePayments", "askToBuy", "interruptedPurchases", "finishTransactions", "offline", "latency",
                "purchaseError", "loadProductsError", "restoreError", "verificationError", "timeRate", "billingIssues",
                "gracePeriod", "gracePeriodDuration", "gracePeriodRenewalType", "storefront", "environment",
                "includeConsumablesInHistory", "refundRequestOutcome", "appAppleId", "sharedSecret",
            ])
            #expect(defaults.map(\.value) == ["true", "false", "false", "true", "false", "0",
                                              "none", "none", "none", "none", "realTime", "false", "false", "16", "ALL_RENEWALS",
                                              "USA", "Xcode", "false", "wait", "none", ""])
            #expect(defaults.allSatisfy { $0.isDefault })
            try await store.setSetting("canMakePayments", to: "no")
            let changed = try await store.settings()
            #expect(changed.first { $0.name == "canMakePayments" }
                    == SettingValue(name: "canMakePayments", value: "false", scope: .account, isDefault: false))
            // Kept in the store file.
            #expect(try await fixture.open().canMakePayments() == false)
        }
    }

    @Test("an unknown setting or a bad value throws SettingError and changes nothing")
    func badSettings() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            await #expect(throws: SettingError.self) { try await store.setSetting("askToBuyEnabled", to: "true") }
            await #expect(throws: SettingError.self) { try await store.setSetting("latency", to: "-1") }
            await #expect(throws: SettingError.self) { try await store.setSetting("purchaseError", to: "invalidSignature") }
            await #expect(throws: SettingError.self) { try await store.setSetting("askToBuy", to: "true", once: true) }
            await #expect(throws: SettingError.self) { try await store.setSetting("CanMakePayments", to: "true") }
            await #expect(throws: SettingError.self) { try await store.setSetting("canMakePayments", to: "maybe") }
            await #expect(throws: SettingError.self) { try await store.setSetting("storefront", to: "FRA") }
            await #expect(throws: SettingError.self) { try await store.setSetting("storefront", to: "") }
            do {
                try await store.setSetting("storefront", to: "FRA")
            } catch let error as SettingError {
                #expect(error.description.contains("\"FRA\""))
                #expect(error.description.contains("USA, GBR, DEU, JPN"))
            }
            do {
                try await store.setSetting("nope", to: "1")
            } catch let error as SettingError {
                #expect(error.description.contains("\"nope\""))
                #expect(error.description.contains("canMakePayments"))
            }
            #expect(try await store.settings().allSatisfy { $0.isDefault })
        }
    }
}
