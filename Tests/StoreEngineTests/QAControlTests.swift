import Foundation
import Testing
@testable import StoreEngine

// Issue 4, QA controls, in the engine: Ask to Buy, interrupted purchases, refunds and
// deletes, purchases outside the app and chosen outcomes, simulated errors (and
// --once), offline, latency, finishTransactions, storefront availability, accounts,
// and the store file's schema 1 → 2 migration.

/// The stored request of a pending purchase; fails the test for any other outcome.
private func pendingTransaction(in store: Store, _ outcome: PurchaseOutcome,
                                sourceLocation: SourceLocation = #_sourceLocation) async throws -> Transaction {
    guard case .pending(let request) = outcome else {
        Issue.record("expected pending, got \(outcome.name)", sourceLocation: sourceLocation)
        throw TestFailure.unexpectedResult
    }
    let transaction = try await store.transaction(id: request.id)
    #expect(transaction.status == .pending && transaction.pendingReason == request.reason, sourceLocation: sourceLocation)
    return transaction
}

/// The signed payload of a transaction, verified with the store's key.
private func signedPayload(_ store: Store, _ transaction: Transaction,
                           sourceLocation: SourceLocation = #_sourceLocation) async throws -> JSON {
    let jws = try #require(transaction.jwsRepresentation, "not signed", sourceLocation: sourceLocation)
    return try await store.verify(jws: jws).payload
}

/// The result of an async call, as a value.
private func attempt<T>(_ body: () async throws -> T) async -> Result<T, any Error> {
    do { return .success(try await body()) } catch { return .failure(error) }
}

// MARK: - Ask to Buy

@Suite("QA controls: Ask to Buy")
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

// MARK: - Interrupted purchases

@Suite("QA controls: interrupted purchases")
struct InterruptedPurchaseTests {
    @Test("interruptedPurchases: pending (interrupted) for every account until resolve completes it, at resolve time")
    func interruptedThenResolved() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            try await store.setSetting("interruptedPurchases", to: "true")
            let waiting = try await pendingTransaction(in: store, try await store.purchase("coins", quantity: 2))
            #expect(waiting.status == .pending)
            #expect(waiting.pendingReason == .interrupted)
            #expect(waiting.jwsRepresentation == nil)
            let logged = try #require(try await store.events().last)
            #expect(logged.state == .failed)
            #expect(logged.transactionID == waiting.id)
            // A store-wide setting: another account is interrupted too.
            let other = try fixture.open(account: "other@qa")
            #expect(try await other.purchase("pro").name == "pending")

            await #expect(throws: StoreError.invalidTransactionState(id: waiting.id, action: "approve",
                                                                     state: "pending (interrupted)")) {
                try await store.approve(waiting.id)
            }
            await #expect(throws: StoreError.invalidTransactionState(id: waiting.id, action: "decline",
                                                                     state: "pending (interrupted)")) {
                try await store.decline(waiting.id)
            }

            fixture.clock.advance(by: 300)
            let resolved = try await store.resolve(waiting.id)
            #expect(resolved.status == .purchased)
            #expect(resolved.pendingReason == nil)
            #expect(resolved.purchaseDate == utc(2025, 1, 31, 12, 5))
            #expect(resolved.price == decimal("1.98"))
            #expect(resolved.isFinished == false)
            #expect(resolved.verification == .verified)
            #expect(try await signedPayload(store, resolved)["quantity"] == .integer(2))
            await #expect(throws: StoreError.invalidTransactionState(id: waiting.id, action: "resolve", state: "purchased")) {
                try await store.resolve(waiting.id)
            }
            #expect(try await store.balances()["coins", default: 0] == 0)
            #expect(try await store.deliverUnfinished().finished.map(\.id) == [waiting.id])
            #expect(try await store.balances()["coins"] == 2)
        }
    }
}

// MARK: - Refunds and deletes

@Suite("QA controls: refunds and deleted transactions")
struct RefundTests {
    @Test("a refunded non-consumable: revocation date and reason, signed anew, entitlement and owned status gone, logged revoked")
    func refundNonConsumable() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            let bought = try await buy(store, "pro")
            try await store.finish(bought)
            #expect(try await store.ownedProducts()["pro"] != nil)

            fixture.clock.advance(by: 86_400)
            let refunded = try await store.refund(bought.id, reason: .developerIssue)
            #expect(refunded.revocationDate == utc(2025, 2, 1, 12))
            #expect(refunded.revocationReason == .developerIssue)
            #expect(refunded.status == .purchased)
            #expect(refunded.purchaseDate == fixtureStart, "the purchase keeps its date")
            #expect(refunded.verification == .verified)
            #expect(refunded.jwsRepresentation != bought.jwsRepresentation)
            let payload = try await signedPayload(store, refunded)
            #expect(payload["revocationDate"] == .integer(utc(2025, 2, 1, 12).milliseconds))
            #expect(payload["revocationReason"] == .integer(1))
            #expect(try await store.transaction(id: bought.id) == refunded)

            #expect(try await store.isEntitled(to: "pro") == false)
            #expect(try await store.currentEntitlements().isEmpty)
            #expect(try await store.ownedProducts().isEmpty)
            #expect(try await store.sync().isEmpty)
            let last = try #require(try await store.events().last)
            #expect(last.state == .revoked)
            #expect(last.transactionID == bought.id)
            #expect(last.date == utc(2025, 2, 1, 12))

            await #expect(throws: StoreError.invalidTransactionState(id: bought.id, action: "refund", state: "refunded already")) {
                try await store.refund(bought.id)
            }
            #expect(try await store.transaction(id: bought.id).revocationReason == .developerIssue)

            // Bought again after the refund: charged anew, a new transaction.
            let again = try await store.purchaseAndFinish("pro")
            #expect(again.alreadyOwned == false)
            let second = try transaction(of: again.result)
            #expect(second.id != bought.id)
            #expect(try await store.ownedProducts()["pro"]?.id == second.id)
        }
    }

    @Test("the default refund reason is other")
    func defaultReason() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            let bought = try await buy(store, "faces")
            let refunded = try await store.refund(bought.id)
            #expect(refunded.revocationReason == .other)
            #expect(try await signedPayload(store, refunded)["revocationReason"] == .integer(0))
        }
    }

    @Test("a refunded consumable is taken from the balance, never below zero")
    func refundConsumable() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            let first = try await buy(store, "coins", quantity: 2)
            try await store.finish(first)
            let second = try await buy(store, "coins", quantity: 3)
            try await store.finish(second)
            #expect(try await store.balances()["coins"] == 5)
            try await store.refund(second.id)
            #expect(try await store.balances()["coins"] == 2)

            try await store.consume("coins", quantity: 1)
            try await store.refund(first.id)
            #expect(try await store.balances()["coins"] == 0, "1 left, 2 refunded: zero, not -1")
        }
    }

    @Test("a consumable refunded before the app delivered it never reaches the balance")
    func refundUnfinishedConsumable() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            try await store.finish(try await buy(store, "coins", quantity: 1))
            let waiting = try await buy(store, "coins", quantity: 3)  // not finished yet
            try await store.refund(waiting.id)
            #expect(try await store.balances()["coins"] == 1)
            _ = try await store.deliverUnfinished()
            #expect(try await store.balances()["coins"] == 1, "a revoked purchase grants nothing")
            #expect(try await store.unfinished().isEmpty, "the app has seen and finished it")

            // An app that got the transaction before the refund and finishes its copy afterwards.
            let held = try await buy(store, "coins", quantity: 5)
            try await store.refund(held.id)
            try await store.finish(held)
            #expect(try await store.balances()["coins"] == 1)
            #expect(try await store.transaction(id: held.id).isFinished)
        }
    }

    @Test("a refunded subscription loses its entitlement and renewal info at once")
    func refundSubscription() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            let bought = try await buy(store, "sub.yearly")
            #expect(try await store.renewalInfo()["premium"] != nil)
            try await store.refund(bought.id)
            #expect(try await store.isEntitled(to: "sub.yearly") == false)
            #expect(try await store.subscriptionStatuses().map(\.state) == [.revoked])
            #expect(try await store.renewalInfo()["premium"]?.willAutoRenew == false)
        }
    }

    @Test("a deleted transaction leaves the history and the app's cache; the product can be bought again")
    func deleteTransaction() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            let bought = try await buy(store, "pro")
            try await store.finish(bought)
            let other = try await buy(store, "faces")
            try await store.deleteTransaction(bought.id)
            #expect(try await store.transactions().map(\.id) == [other.id])
            #expect(try await store.isEntitled(to: "pro") == false)
            #expect(try await store.ownedProducts()["pro"] == nil)
            await #expect(throws: StoreError.transactionNotFound(id: bought.id)) { try await store.transaction(id: bought.id) }
            await #expect(throws: StoreError.transactionNotFound(id: bought.id)) { try await store.deleteTransaction(bought.id) }

            let again = try await store.purchaseAndFinish("pro")
            #expect(again.alreadyOwned == false)
            #expect(try transaction(of: again.result).id > other.id, "ids are never reused")
        }
    }
}

// MARK: - Outside the app, and chosen outcomes

@Suite("QA controls: purchases outside the app and chosen outcomes")
struct OutcomeTests {
    @Test("a purchase outside the app succeeds whatever the device's settings, and arrives unfinished")
    func outsideApp() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            for (name, value) in [("askToBuy", "true"), ("interruptedPurchases", "true"), ("offline", "true"),
                                  ("purchaseError", "purchaseNotAllowed"), ("verificationError", "invalidSignature"),
                                  ("finishTransactions", "true")] {
                try await store.setSetting(name, to: value)
            }
            let bought = try transaction(of: try await store.purchaseOutsideApp("coins", quantity: 2))
            #expect(bought.status == .purchased)
            #expect(bought.pendingReason == nil)
            #expect(bought.verification == .verified)
            #expect(bought.isFinished == false)
            #expect(bought.purchaseDate == fixtureStart)
            #expect(try await signedPayload(store, bought)["quantity"] == .integer(2))
            #expect(try await store.unfinished().map(\.id) == [bought.id])
            #expect(try await store.events().last?.state == .purchased)
            // The settings are untouched (purchaseError was not taken).
            #expect(try await store.settings().first { $0.name == "purchaseError" }?.value == "purchaseNotAllowed")

            try await store.setSetting("verificationError", to: "none")
            let delivery = try await store.deliverUnfinished()
            #expect(delivery.finished.map(\.id) == [bought.id])
            #expect(try await store.balances()["coins"] == 2)
        }
    }

    @Test("a chosen outcome wins over the settings for one purchase")
    func chosenOutcomes() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            try await store.setSetting("askToBuy", to: "true")
            try await store.setSetting("purchaseError", to: "systemError", once: true)

            let succeeded = try transaction(of: try await store.purchase("pro", choice: .succeed))
            #expect(succeeded.status == .purchased)
            #expect(try await store.purchase("faces", choice: .cancel) == .userCancelled)
            #expect(try await store.purchase("faces", choice: .fail(.userCancelled)) == .userCancelled)
            let interrupted = try await pendingTransaction(in: store, try await store.purchase("faces", choice: .interrupt))
            #expect(interrupted.pendingReason == .interrupted)
            await #expect(throws: StoreError.simulated(.ineligibleForOffer, cause: "chosen for this purchase")) {
                try await store.purchase("sub.monthly", choice: .fail(.ineligibleForOffer))
            }
            // The --once error was not used by any of them: the next purchase without a choice takes it.
            await #expect(throws: StoreError.simulated(.systemError, cause: "purchaseError is systemError, once")) {
                try await store.purchase("coins")
            }
            // Then the settings apply again: Ask to Buy.
            #expect(try await store.purchase("coins").name == "pending")
            #expect(try await store.transactions().count == 3, "pro, the interrupted faces, the pending coins")

            try await store.setSetting("askToBuy", to: "false")
            let asked = try await pendingTransaction(in: store, try await store.purchase("pass", choice: .askToBuy))
            #expect(asked.pendingReason == .askToBuy)
        }
    }

    @Test("outcome names: as init(name:) reads them, and back", arguments: [
        ("succeed", PurchaseChoice.succeed), ("success", .succeed), ("cancel", .cancel), ("userCancelled", .cancel),
        ("askToBuy", .askToBuy), ("interrupt", .interrupt), ("interrupted", .interrupt),
        ("networkError", .fail(.networkError)), ("purchaseNotAllowed", .fail(.purchaseNotAllowed)),
    ])
    func outcomeNames(name: String, outcome: PurchaseChoice) {
        #expect(PurchaseChoice(name: name) == outcome)
        #expect(PurchaseChoice(name: outcome.name) == outcome)
    }

    @Test("a verification error is not a purchase outcome", arguments: ["invalidSignature", "Succeed", "", "none"])
    func badOutcomeNames(name: String) {
        #expect(PurchaseChoice(name: name) == nil)
    }
}

// MARK: - Simulated errors

@Suite("QA controls: simulated errors")
struct SimulatedErrorTests {
    @Test("purchaseError: every purchase fails with it, charges nothing, and the log names it with its SKError code")
    func purchaseError() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            #expect(try await store.setSetting("purchaseError", to: "PURCHASENOTALLOWED") == "purchaseNotAllowed")
            for _ in 0..<2 {
                await #expect(throws: StoreError.simulated(.purchaseNotAllowed, cause: "purchaseError is purchaseNotAllowed")) {
                    try await store.purchaseAndFinish("pro")
                }
            }
            #expect(try await store.transactions().isEmpty)
            let last = try #require(try await store.events().last)
            #expect(last.state == .failed)
            #expect(last.detail == "purchaseNotAllowed (SKError.paymentNotAllowed, code 4)")
            let error = StoreError.simulated(.purchaseNotAllowed, cause: "x")
            #expect(error.name == "purchaseNotAllowed")
            #expect(error.domain == "Product.PurchaseError")
            #expect(error.skErrorCode == 4)

            try await store.setSetting("purchaseError", to: "none")
            #expect(try await store.purchase("pro").result.name == "success")
        }
    }

    @Test("purchaseError userCancelled is a userCancelled result, not a thrown error")
    func userCancelled() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            try await store.setSetting("purchaseError", to: "userCancelled")
            #expect(try await store.purchase("pro") == .userCancelled)
            #expect(try await store.transactions().isEmpty)
        }
    }

    @Test("--once: the next call fails, the one after succeeds, and the setting is back to none")
    func once() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            try await store.setSetting("purchaseError", to: "networkError", once: true)
            let listed = try #require(try await store.settings().first { $0.name == "purchaseError" })
            #expect(listed.value == "networkError")
            #expect(listed.once)
            #expect(!listed.isDefault)
            await #expect(throws: StoreError.simulated(.networkError, cause: "purchaseError is networkError, once")) {
                try await store.purchase("pro")
            }
            #expect(try await store.purchase("pro").result.name == "success")
            let after = try #require(try await store.settings().first { $0.name == "purchaseError" })
            #expect(after.value == "none")
            #expect(after.isDefault)
            #expect(!after.once)
        }
    }

    @Test("setting a value without --once after one with it makes it stay")
    func onceReplaced() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            try await store.setSetting("loadProductsError", to: "systemError", once: true)
            try await store.setSetting("loadProductsError", to: "unknown")
            #expect(try await store.settings().first { $0.name == "loadProductsError" }?.once == false)
            for _ in 0..<2 {
                await #expect(throws: StoreError.simulated(.unknown, cause: "loadProductsError is unknown")) {
                    try await store.products()
                }
            }
        }
    }

    @Test("a --once error is taken by exactly one of two stores on one file, calling at the same time")
    func onceAcrossStores() async throws {
        try await withStoreFixture { fixture in
            let a = try fixture.open(account: "a@qa")
            let b = try fixture.open(account: "b@qa")
            for round in 0..<8 {
                try await a.setSetting("purchaseError", to: "systemError", once: true)
                async let first = attempt { try await a.purchase("coins") }
                async let second = attempt { try await b.purchase("coins") }
                let results = await [first, second]
                let failures = results.filter { if case .failure = $0 { true } else { false } }
                #expect(failures.count == 1, "round \(round): \(results)")
            }
            let bought = try await a.transactions().count + (try await b.transactions().count)
            #expect(bought == 8)
        }
    }

    @Test("a --once loadProductsError: one store's products() fails, the other's next one does not")
    func onceLoadProducts() async throws {
        try await withStoreFixture { fixture in
            let a = try fixture.open()
            let b = try fixture.open()
            try await b.setSetting("loadProductsError", to: "notEntitled", once: true)
            await #expect(throws: StoreError.simulated(.notEntitled, cause: "loadProductsError is notEntitled, once")) {
                try await a.products()
            }
            #expect(try await b.products().count == 6)
            #expect(try await a.products().count == 6)
        }
    }

    @Test("loadProductsError fails products() only; restoreError fails sync() only")
    func loadAndRestoreErrors() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            try await store.setSetting("loadProductsError", to: "networkError")
            try await store.setSetting("restoreError", to: "systemError")
            await #expect(throws: StoreError.simulated(.networkError, cause: "loadProductsError is networkError")) {
                try await store.products()
            }
            #expect(try await store.product(id: "pro")?.displayName == "Go Pro")
            let bought = try await buy(store, "pro")
            await #expect(throws: StoreError.simulated(.systemError, cause: "restoreError is systemError")) {
                try await store.sync()
            }
            #expect(try await store.currentEntitlements().map(\.id) == [bought.id])
            let last = try #require(try await store.events().last)
            #expect(last.state == .failed)
            #expect(last.detail.contains("restoreError"))
            #expect(last.detail.contains("systemError"))
            try await store.setSetting("restoreError", to: "none")
            #expect(try await store.sync().map(\.id) == [bought.id])
        }
    }

    @Test("each error setting takes only its own domain's case names")
    func allowedNames() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            #expect(try await store.setSetting("verificationError", to: "invalidSignature") == "invalidSignature")
            #expect(try await store.setSetting("purchaseError", to: "invalidOfferPrice") == "invalidOfferPrice")
            #expect(try await store.setSetting("purchaseError", to: "networkError") == "networkError")
            for (name, value) in [("verificationError", "networkError"), ("purchaseError", "invalidSignature"),
                                  ("loadProductsError", "purchaseNotAllowed"), ("restoreError", "invalidQuantity"),
                                  ("purchaseError", "bogus"), ("latency", "60001"), ("offline", "maybe")] {
                await #expect(throws: SettingError.self, "\(name) \(value)") { try await store.setSetting(name, to: value) }
            }
            for name in ["offline", "latency", "storefront", "finishTransactions", "canMakePayments"] {
                let value = name == "latency" ? "5" : name == "storefront" ? "GBR" : "true"
                await #expect(throws: SettingError.self, "\(name) --once") {
                    try await store.setSetting(name, to: value, once: true)
                }
            }
            // A refused setting changed nothing.
            #expect(try await store.settings().first { $0.name == "purchaseError" }?.value == "networkError")
            #expect(try await store.settings().first { $0.name == "latency" }?.value == "0")
        }
    }

    @Test("verificationError: the purchase arrives unverified, the app does not finish it, and it is offered again")
    func verificationError() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            try await store.setSetting("verificationError", to: "invalidSignature")
            let result = try await store.purchase("pro")
            let unverified = try transaction(of: result)
            #expect(unverified.verification.isVerified == false)
            #expect(try await store.transaction(id: unverified.id).verification == .verified,
                    "the App Store's own record is fine: only this delivery is spoiled")

            do {
                _ = try await store.purchaseAndFinish("faces")
                Issue.record("purchaseAndFinish did not throw")
            } catch let error as StoreError {
                guard case .failedVerification(.invalidSignature, let id) = error else {
                    Issue.record("unexpected \(error)")
                    return
                }
                let faces = try await store.transaction(id: id)
                #expect(faces.productID == "faces")
                #expect(faces.isFinished == false)
                #expect(error.name == "invalidSignature")
                #expect(error.domain == "VerificationResult.VerificationError")
            }
            #expect(try await store.ownedProducts().isEmpty)
            #expect(try await store.unfinished().map(\.productID) == ["pro", "faces"])

            // While the error lasts, the app's launch leaves them.
            let left = try await store.deliverUnfinished()
            #expect(left.finished.isEmpty)
            #expect(left.left.map(\.productID) == ["pro", "faces"])
            #expect(left.left.allSatisfy { !$0.verification.isVerified })
            #expect(try await store.ownedProducts().isEmpty)

            try await store.setSetting("verificationError", to: "none")
            let delivered = try await store.deliverUnfinished()
            #expect(delivered.finished.map(\.productID) == ["pro", "faces"])
            #expect(Set(try await store.ownedProducts().keys) == ["pro", "faces"])
        }
    }

    @Test("verificationError --once spoils one delivery; the next launch delivers it")
    func verificationErrorOnce() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            try await store.setSetting("verificationError", to: "invalidEncoding", once: true)
            await #expect(throws: StoreError.self) { try await store.purchaseAndFinish("pro") }
            #expect(try await store.unfinished().map(\.productID) == ["pro"])
            #expect(try await store.settings().first { $0.name == "verificationError" }?.value == "none")
            #expect(try await store.deliverUnfinished().finished.map(\.productID) == ["pro"])
            #expect(try await store.ownedProducts()["pro"] != nil)
        }
    }
}

// MARK: - Offline and latency

@Suite("QA controls: offline and latency")
struct OfflineTests {
    @Test("offline: products, purchase and restore fail with networkError; nothing is charged; the app's own data still works")
    func offline() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            let owned = try await buy(store, "pro")
            try await store.finish(owned)
            try await store.finish(try await buy(store, "coins", quantity: 2))
            try await store.setSetting("offline", to: "yes")
            let networkError = StoreError.simulated(.networkError, cause: "offline is true")
            await #expect(throws: networkError) { try await store.products() }
            await #expect(throws: networkError) { try await store.purchase("faces") }
            await #expect(throws: networkError) { try await store.purchaseAndFinish("coins") }
            await #expect(throws: networkError) { try await store.sync() }
            #expect(networkError.skErrorCode == 7)
            #expect(networkError.domain == "StoreKitError")
            #expect(try await store.transactions().count == 2)
            #expect(try await store.events().last?.detail == "networkError (SKError code 7)")
            // What the device knows needs no network.
            #expect(try await store.ownedProducts()["pro"]?.id == owned.id)
            #expect(try await store.consume("coins") == 1)
            #expect(try await store.currentEntitlements().map(\.id) == [owned.id])

            try await store.setSetting("offline", to: "false")
            #expect(try await store.products().count == 6)
        }
    }

    @Test("latency: a load waits, the store meanwhile answers other calls, and a cancelled purchase charges nothing")
    func latency() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            try await store.setSetting("latency", to: "60000")
            let load = Task { try await store.products() }
            let purchase = Task { try await store.purchase("pro") }
            // The actor is free while they wait: these return long before a minute.
            #expect(try await store.transactions().isEmpty)
            #expect(try await store.settings().first { $0.name == "latency" }?.value == "60000")
            // Cancelled while waiting (or before they start: the wait notices at once), neither
            // completes; the latency stays 60 s until then, so neither can skip the wait.
            load.cancel()
            purchase.cancel()
            await #expect(throws: CancellationError.self) { try await load.value }
            await #expect(throws: CancellationError.self) { try await purchase.value }
            #expect(try await store.transactions().isEmpty)
            try await store.setSetting("latency", to: "0")
            #expect(try await store.products().count == 6)
        }
    }
}

// MARK: - finishTransactions

@Suite("QA controls: finishTransactions")
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

// MARK: - Storefront availability

/// The fixture catalog with `faces` offered in `availability` only.
private func catalogWithAvailability(_ availability: String) -> String {
    fixtureCatalogText.replacingOccurrences(
        of: #"{ "id": "faces", "type": "nonConsumable", "displayName": "Faces", "price": "1.99" }"#,
        with: #"{ "id": "faces", "type": "nonConsumable", "displayName": "Faces", "price": "1.99", "prices": { "GBR": "1.49" }, "availability": "#
            + availability + " }")
}

@Suite("QA controls: storefront availability")
struct AvailabilityTests {
    @Test("a product offered in USA and GBR: listed and sold there, not listed and notAvailableInStorefront elsewhere")
    func availability() async throws {
        try await withTemporaryFolder { folder in
            let text = catalogWithAvailability(#"["USA", "GBR"]"#)
            #expect(text != fixtureCatalogText)
            let catalog = try Catalog.parse(Array(text.utf8), file: "x.json")
            #expect(catalog.product(id: "faces")?.availableStorefronts == ["USA", "GBR"])
            #expect(catalog.product(id: "pro")?.availableStorefronts == nil)
            let clock = TestClock(fixtureStart)
            let store = try Store(catalog: catalog, path: folder + "/store.sqlite", now: clock.closure)

            #expect(try await store.products().contains { $0.id == "faces" })
            try await store.setSetting("storefront", to: "deu")
            let german = try await store.products().map(\.id)
            #expect(!german.contains("faces"))
            #expect(german.contains("pro"))
            #expect(german.count == 5)
            let unavailable = StoreError.notAvailableInStorefront(productID: "faces", storefront: "DEU")
            await #expect(throws: unavailable) { try await store.purchase("faces") }
            await #expect(throws: unavailable) { try await store.purchase("faces", choice: .succeed) }
            await #expect(throws: unavailable) { try await store.purchaseOutsideApp("faces") }
            #expect(unavailable.domain == "StoreKitError")
            #expect(try await store.transactions().isEmpty)
            #expect(try await store.events().last?.state == .failed)

            try await store.setSetting("storefront", to: "GBR")
            #expect(try await store.products().first { $0.id == "faces" }?.price == decimal("1.49"))
            let bought = try await buy(store, "faces")
            #expect(bought.currency == "GBP")
            #expect(bought.price == decimal("1.49"))
        }
    }

    @Test("availability survives conversion to products.json")
    func written() throws {
        let catalog = try Catalog.parse(Array(catalogWithAvailability(#"["GBR"]"#).utf8), file: "x.json")
        let document = catalog.productsJSON().document.serialized()
        let reread = try Catalog.parse(Array(document.utf8), file: "y.json")
        #expect(reread.product(id: "faces")?.availableStorefronts == ["GBR"])
        #expect(reread.product(id: "pro")?.availableStorefronts == nil)
    }

    @Test("an empty list, an unknown storefront or a non-string is a catalog error at its JSON path", arguments: [
        (#"[]"#, "products[1].availability", "empty"),
        (#"["USA", "FRA"]"#, "products[1].availability[1]", "FRA"),
        (#"["usa"]"#, "products[1].availability[0]", "usa"),
        (#"[1]"#, "products[1].availability[0]", "string"),
        (#""USA""#, "products[1].availability", "array"),
    ])
    func invalid(availability: String, path: String, word: String) throws {
        do {
            _ = try Catalog.parse(Array(catalogWithAvailability(availability).utf8), file: "x.json")
            Issue.record("the catalog loaded")
        } catch {
            #expect(error.kind == .invalid(path: path), "\(error)")
            #expect(error.reason.contains(word), "\(error)")
        }
    }
}

// MARK: - Accounts

@Suite("QA controls: accounts")
struct AccountTests {
    @Test("createAccount adds a tester once; unusedTesterName finds the next free name")
    func create() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            #expect(try await store.unusedTesterName() == "tester2@local")
            #expect(try await store.createAccount("tester2@local"))
            #expect(try await store.createAccount("tester2@local") == false)
            #expect(try await store.unusedTesterName() == "tester3@local")
            #expect(try await store.accounts().contains("tester2@local"))
            let fresh = try fixture.open(account: "tester2@local")
            #expect(try await fresh.transactions().isEmpty)
        }
    }

    @Test("switchAccount is kept in the store file: a store opened without an account uses it")
    func switchAccount() async throws {
        try await withStoreFixture { fixture in
            let unnamed = try Store(catalog: fixture.catalog, path: fixture.path, account: nil, now: fixture.clock.closure)
            #expect(unnamed.account == Store.defaultAccount)

            let switched = try await unnamed.switchAccount(to: "qa@local")
            #expect(switched.account == "qa@local")
            #expect(unnamed.account == Store.defaultAccount, "a store keeps its own account")
            #expect(try await unnamed.accounts().contains("qa@local"), "created when new")
            let bought = try await buy(switched, "pro")

            let reopened = try Store(catalog: fixture.catalog, path: fixture.path, account: nil, now: fixture.clock.closure)
            #expect(reopened.account == "qa@local")
            #expect(try await reopened.transactions().map(\.id) == [bought.id])
            // A named account still wins.
            let named = try fixture.open(account: Store.defaultAccount)
            #expect(try await named.transactions().isEmpty)

            _ = try await reopened.switchAccount(to: Store.defaultAccount)
            let back = try Store(catalog: fixture.catalog, path: fixture.path, account: nil, now: fixture.clock.closure)
            #expect(back.account == Store.defaultAccount)
        }
    }

    @Test("canMakePayments is per account")
    func canMakePaymentsPerAccount() async throws {
        try await withStoreFixture { fixture in
            let a = try fixture.open(account: "a@qa")
            let b = try fixture.open(account: "b@qa")
            try await a.setSetting("canMakePayments", to: "false")
            #expect(try await a.canMakePayments() == false)
            #expect(try await b.canMakePayments())
            await #expect(throws: StoreError.purchaseNotAllowed) { try await a.purchase("pro") }
            #expect(try await b.purchase("pro").result.name == "success")
        }
    }
}

// MARK: - Schema 1 → 2

/// Schema 1's DDL, as commit 9d5ade5 created it (no `pending_reason`).
private let schema1 = """
    PRAGMA application_id = \(Ledger.applicationID);
    PRAGMA user_version = 1;
    CREATE TABLE accounts (name TEXT PRIMARY KEY, created INTEGER NOT NULL);
    CREATE TABLE transactions (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        original_id INTEGER NOT NULL,
        account TEXT NOT NULL,
        product_id TEXT NOT NULL,
        product_type TEXT NOT NULL,
        purchase_date INTEGER NOT NULL,
        original_purchase_date INTEGER NOT NULL,
        expiration_date INTEGER,
        revocation_date INTEGER,
        revocation_reason TEXT,
        is_upgraded INTEGER NOT NULL DEFAULT 0,
        ownership_type TEXT NOT NULL,
        quantity INTEGER NOT NULL,
        app_account_token TEXT,
        environment TEXT NOT NULL,
        storefront TEXT NOT NULL,
        currency TEXT NOT NULL,
        price TEXT NOT NULL,
        reason TEXT NOT NULL,
        subscription_group_id TEXT,
        offer_type TEXT,
        status TEXT NOT NULL,
        finished INTEGER NOT NULL DEFAULT 0,
        jws TEXT
    );
    CREATE TABLE signing_key (id INTEGER PRIMARY KEY CHECK (id = 1), private_key TEXT NOT NULL);
    CREATE INDEX transactions_by_account ON transactions (account, product_id);
    CREATE TABLE settings (
        account TEXT NOT NULL, name TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY (account, name)
    ) WITHOUT ROWID;
    CREATE TABLE events (
        id INTEGER PRIMARY KEY AUTOINCREMENT, date INTEGER NOT NULL, account TEXT NOT NULL, state TEXT NOT NULL,
        product_id TEXT NOT NULL, transaction_id INTEGER, detail TEXT NOT NULL
    );
    CREATE TABLE app_owned (
        account TEXT NOT NULL, product_id TEXT NOT NULL, transaction_id INTEGER NOT NULL,
        PRIMARY KEY (account, product_id)
    ) WITHOUT ROWID;
    CREATE TABLE app_balances (
        account TEXT NOT NULL, product_id TEXT NOT NULL, balance INTEGER NOT NULL, PRIMARY KEY (account, product_id)
    ) WITHOUT ROWID;
    INSERT INTO sqlite_sequence (name, seq) VALUES ('transactions', \(Ledger.firstTransactionID));
    """

@Suite("QA controls: store file schema 1 → 2")
struct SchemaMigrationTests {
    /// A schema 1 store file at `path`, holding the purchases (signed by its own key) that
    /// a store made in `donor`: a subscription, a finished non-consumable, finished coins.
    func makeSchema1File(_ path: String, donor: StoreFixture) async throws -> [Transaction] {
        let store = try donor.open()
        let subscription = try await buy(store, "sub.yearly")
        let pro = try await buy(store, "pro")
        try await store.finish(pro)
        let coins = try await buy(store, "coins", quantity: 4)
        try await store.finish(coins)
        try await store.setSetting("storefront", to: "GBR")

        let db = try SQLiteDatabase(path: path, create: true)
        try db.execute(schema1)
        try db.execute("ATTACH DATABASE '\(donor.path)' AS donor")
        let columns = """
            id, original_id, account, product_id, product_type, purchase_date, original_purchase_date,
            expiration_date, revocation_date, revocation_reason, is_upgraded, ownership_type, quantity,
            app_account_token, environment, storefront, currency, price, reason, subscription_group_id,
            offer_type, status, finished, jws
            """
        try db.execute("""
            INSERT INTO main.signing_key SELECT id, private_key FROM donor.signing_key;
            INSERT INTO main.accounts SELECT * FROM donor.accounts;
            INSERT INTO main.transactions (\(columns)) SELECT \(columns) FROM donor.transactions;
            INSERT INTO main.settings SELECT * FROM donor.settings;
            INSERT INTO main.events SELECT * FROM donor.events;
            INSERT INTO main.app_owned SELECT * FROM donor.app_owned;
            INSERT INTO main.app_balances SELECT account, product_id, balance FROM donor.app_balances;
            UPDATE main.sqlite_sequence SET seq = (SELECT max(id) FROM main.transactions) WHERE name = 'transactions';
            DETACH DATABASE donor;
            """)
        // Signed as schema 1 signed: the bare key's header (kid), no account, none of schema 5's fields.
        let key = try SigningKey(pem: try #require(try db.rows("SELECT private_key FROM signing_key", as: { $0.text(.private_key) }).first))
        for transaction in [subscription, pro, coins] {
            let stored = try await store.transaction(id: transaction.id)
            let jws = try key.sign(stored.signedPayload(bundleID: donor.catalog.bundleID, signedDate: fixtureStart,
                                                        rule: .withoutAccount))
            try db.run("UPDATE transactions SET jws = ? WHERE id = ?", jws, transaction.id)
        }
        #expect(try db.scalar("PRAGMA user_version") == 1)
        return [subscription, pro, coins].map { transaction in
            var old = transaction
            old.jwsRepresentation = try? db.rows("SELECT jws FROM transactions WHERE id = ?", transaction.id) { $0.text(.jws) }.first
            return old
        }
    }

    @Test("a schema 1 file is migrated on open: its rows still verify, and the new controls work on it", .fileStoreOnly)
    func migrate() async throws {
        try await withStoreFixture { donor in
            try await withTemporaryFolder { folder in
                let path = folder + "/old.sqlite"
                let old = try await makeSchema1File(path, donor: donor)
                let clock = TestClock(fixtureStart.addingTimeInterval(3600))
                let store = try Store(catalog: donor.catalog, path: path, now: clock.closure)

                let check = try SQLiteDatabase(path: path, create: false)
                #expect(try check.scalar("PRAGMA user_version") == Ledger.schemaVersion)
                let columns = try check.rows("SELECT name FROM pragma_table_info('transactions')") { $0.text(.name) }
                #expect(columns.suffix(5) == ["pending_reason", "offer_id", "offer_discount_type", "offer_period", "seal"])

                let history = try await store.transactions()
                #expect(history.map(\.id) == old.reversed().map(\.id))
                for transaction in history {
                    #expect(transaction.verification == .verified, "\(transaction.productID): \(transaction.verification)")
                    #expect(transaction.pendingReason == nil)
                    #expect(transaction.status == .purchased)
                }
                #expect(Set(try await store.currentEntitlements().map(\.productID)) == ["sub.yearly", "pro"])
                #expect(try await store.ownedProducts()["pro"]?.id == old[1].id)
                #expect(try await store.balances()["coins"] == 4)
                #expect(try await store.storefront().countryCode == "GBR")
                // Signed again as schema 5 signs: the x5c header, the same payload plus today's fields.
                let resigned = try await store.transaction(id: old[0].id)
                #expect(resigned.jwsRepresentation != old[0].jwsRepresentation)
                let header = try await store.verify(jws: try #require(resigned.jwsRepresentation)).header
                #expect(header["x5c"] != nil && header["kid"] == nil)

                // Schema 2's column in use: Ask to Buy on the migrated file.
                try await store.setSetting("askToBuy", to: "true")
                let waiting = try await pendingTransaction(in: store, try await store.purchase("faces"))
                #expect(waiting.id > old[2].id)
                let reopened = try Store(catalog: donor.catalog, path: path, now: clock.closure)
                #expect(try await reopened.transaction(id: waiting.id).pendingReason == .askToBuy)
                try await reopened.approve(waiting.id)
                #expect(try await reopened.isEntitled(to: "faces"))
                // The old purchases can be refunded: re-signed under the same key.
                let refunded = try await reopened.refund(old[1].id)
                #expect(refunded.verification == .verified)
                #expect(try await reopened.isEntitled(to: "pro") == false)
            }
        }
    }

    @Test("two stores opening one schema 1 file at the same moment both succeed; it is migrated once", .fileStoreOnly)
    func concurrentMigration() async throws {
        try await withStoreFixture { donor in
            try await withTemporaryFolder { folder in
                let path = folder + "/old.sqlite"
                let old = try await makeSchema1File(path, donor: donor)
                let catalog = donor.catalog
                let counts = try await withThrowingTaskGroup(of: Int.self) { group in
                    for _ in 0..<4 {
                        group.addTask {
                            let store = try Store(catalog: catalog, path: path)
                            return try await store.transactions().filter { $0.verification == .verified }.count
                        }
                    }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
                #expect(counts == [old.count, old.count, old.count, old.count])
                let check = try SQLiteDatabase(path: path, create: false)
                #expect(try check.scalar("PRAGMA user_version") == Ledger.schemaVersion)
            }
        }
    }
}
