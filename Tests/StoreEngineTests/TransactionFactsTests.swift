import Foundation
import Testing
@testable import StoreEngine

/// A transaction's state, price, free trial and allowed actions, as the engine decides them.
@Suite("TransactionFacts")
struct TransactionFactsTests {
    func factsOf(_ store: Store, _ transaction: Transaction) async throws -> TransactionFacts {
        try await store.appStore.facts(of: try await store.appStore.transaction(id: transaction.id))
    }

    @Test("purchased and unfinished, then purchased once the app finished it; refund and the app's request allowed")
    func purchased() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            let pro = try await buy(store, "pro")
            var facts = try await factsOf(store, pro)
            #expect(facts.state == .unfinished && facts.state.text == "purchased, unfinished")
            try await store.app.finish(pro)
            facts = try await factsOf(store, pro)
            #expect(facts.state == .purchased && facts.displayPrice == "$0.99" && !facts.wasFreeTrial)
            #expect(facts.allowed == [.refund, .requestRefund, .delete])
            #expect(facts.refusal(of: .approve) == "it is not waiting for Ask to Buy")
            #expect(facts.refusal(of: .extendRenewalDate) == "it is not an auto-renewable subscription")
        }
    }

    @Test("an Ask to Buy request: pending with its reason, approve and decline allowed, no refund; declined after")
    func askToBuy() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            try await store.testSession.set(.askToBuy, to: true)
            guard case .pending(let request) = try await store.app.purchase("pro") else {
                Issue.record("expected a pending request")
                return
            }
            var facts = try await store.appStore.facts(of: try await store.appStore.transaction(id: request.id))
            #expect(facts.state == .pending(.askToBuy) && facts.state.text == "pending (Ask to Buy)")
            #expect(facts.allowed == [.approve, .decline, .delete])
            #expect(facts.refusal(of: .refund) == "it is pending (Ask to Buy), not purchased")
            #expect(facts.refusal(of: .resolve) == "it is not an interrupted purchase")
            try await store.appStore.decline(request.id)
            facts = try await store.appStore.facts(of: try await store.appStore.transaction(id: request.id))
            #expect(facts.state == .declined && facts.allowed == [.delete])
        }
    }

    /// Tester's day, finding 12: the Transaction Manager called the period whose renewal failed
    /// "expired" while its grace period kept the entitlement and every other front end said so.
    @Test("a period whose renewal failed is expired, in grace period, while the grace period lasts; expired after")
    func gracePeriod() async throws {
        try await withLifecycleStore { fixture in
            let store = try fixture.open()
            let bought = try await buy(store, "pro.monthly")
            try await store.setSetting("billingIssues", to: "true")
            try await store.setSetting("gracePeriod", to: "true")
            fixture.clock.set(utc(2025, 2, 20))
            var facts = try await factsOf(store, bought)
            #expect(facts.state.text == "expired, in grace period")
            fixture.clock.set(utc(2025, 3, 5))
            facts = try await factsOf(store, bought)
            #expect(facts.state == .expired, "billing retry: the entitlement is gone")
        }
    }

    @Test("refunded: the state says so and a second refund is refused, as the engine refuses it")
    func refunded() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            let pro = try await buy(store, "pro")
            try await store.appStore.refund(pro.id, reason: .developerIssue)
            let facts = try await factsOf(store, pro)
            #expect(facts.state == .refunded(.developerIssue) && facts.state.text == "refunded")
            #expect(facts.refusal(of: .refund) == "it is refunded already")
            await #expect(throws: StoreError.self) { try await store.appStore.refund(pro.id) }
        }
    }

    @Test("a family share: refund refused with the reason (as the engine refuses it), revoked when the purchaser is refunded")
    func familyShare() async throws {
        try await withFamilyFixture { fixture in
            let alice = try fixture.open(account: "alice"), bob = try fixture.open(account: "bob")
            try await alice.testSession.createFamily("smiths")
            try await alice.testSession.addFamilyMember("bob", to: "smiths")
            let bought = try await buy(alice, "pro")
            let shared = try #require(try await bob.app.unfinished().first)
            var facts = try await bob.appStore.facts(of: shared)
            #expect(facts.state == .unfinished)
            #expect(facts.refusal(of: .refund) == "it is shared by family: refund the purchaser's transaction")
            #expect(facts.refusal(of: .requestRefund) == "it is shared by family: only the purchaser can ask for a refund")
            await #expect(throws: StoreError.self) { try await bob.appStore.refund(shared.id) }
            try await alice.appStore.refund(bought.id)
            facts = try await bob.appStore.facts(of: try await bob.appStore.transaction(id: shared.id))
            #expect(facts.state == .revoked(.other) && facts.state.text == "revoked (family share)")
        }
    }

    @Test("a free trial is a free trial whatever the offer: introductory, or a promotional one paid as freeTrial")
    func freeTrial() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            let trial = try await buy(store, "sub.monthly")
            #expect(try await factsOf(store, trial).wasFreeTrial)
            #expect(try await factsOf(store, trial).displayPrice == "$0.00")
            var promotional = trial
            (promotional.offerType, promotional.offerID, promotional.offerPaymentMode) = (.promotional, "comeback", .freeTrial)
            #expect(TransactionFacts(promotional, at: fixtureStart).wasFreeTrial)
            promotional.offerPaymentMode = .payUpFront
            promotional.price = 0
            #expect(!TransactionFacts(promotional, at: fixtureStart).wasFreeTrial, "free for once is not a trial")
        }
    }

    @Test("upgraded, expired at the store's time; extending refused once the period ended or while billing retries")
    func subscriptionStates() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            let monthly = try await buy(store, "sub.monthly")
            let yearly = try await buy(store, "sub.yearly")
            #expect(try await factsOf(store, monthly).state == .upgraded)
            var facts = try await factsOf(store, yearly)
            #expect(facts.allows(.extendRenewalDate) && facts.allows(.expireSubscription) && facts.allows(.setAutoRenew))
            _ = try await store.testSession.setSetting("billingIssues", to: "true")
            fixture.clock.set(utc(2026, 2, 5))
            facts = try await factsOf(store, yearly)
            #expect(facts.state == .expired)
            #expect(facts.refusal(of: .extendRenewalDate) == "the subscription is in billing retry")
            _ = try await store.testSession.setSetting("billingIssues", to: "false")
            try await store.appStore.setAutoRenew(groupID: "premium", false)
            let renewed = try #require(try await store.appStore.subscriptionStatuses().first?.transaction)
            fixture.clock.set(utc(2027, 3, 1))
            facts = try await factsOf(store, renewed)
            #expect(facts.state == .expired && facts.refusal(of: .extendRenewalDate) == "its period has ended")
        }
    }

    @Test("unverified: the state carries the reason")
    func unverified() {
        var transaction = Transaction(id: 7, originalID: 7, productID: "pro", productType: .nonConsumable, purchaseDate: fixtureStart,
                                      originalPurchaseDate: fixtureStart, expirationDate: nil, revocationDate: nil,
                                      revocationReason: nil, isUpgraded: false, ownershipType: .purchased, purchasedQuantity: 1,
                                      appAccountToken: nil, environment: .xcode, storefront: "USA", currency: "USD",
                                      price: decimal("0.99"), reason: .purchase, subscriptionGroupID: nil, offerType: nil,
                                      account: "a", status: .purchased, isFinished: true)
        transaction.verification = .unverified(reason: "edited")
        #expect(TransactionState(of: transaction, at: fixtureStart) == .unverified(reason: "edited"))
        #expect(TransactionState(of: transaction, at: fixtureStart).text == "unverified")
    }
}

/// A price in its own currency: one formatter, one policy, with or without a catalog.
@Suite("PriceText")
struct PriceTextTests {
    @Test("a DEU purchase is in euros as Germany writes them, in any storefront and without a catalog")
    func foreignCurrency() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            _ = try await store.testSession.setSetting("storefront", to: "DEU")
            let pro = try await buy(store, "pro")
            #expect(pro.currency == "EUR" && pro.price == decimal("0.99"))
            let euros = "0,99\u{A0}€"
            #expect(pro.displayPrice == euros)
            _ = try await store.testSession.setSetting("storefront", to: "USA")
            #expect(try await store.appStore.facts(of: pro).displayPrice == euros, "the storefront it was bought in, not today's")
            let withoutCatalog = try Store(catalog: .absent, path: fixture.path, now: fixture.clock.closure)
            let listed = try #require(try await withoutCatalog.appStore.transactions().first { $0.id == pro.id })
            #expect(try await withoutCatalog.appStore.facts(of: listed).displayPrice == euros)
        }
    }

    @Test("each currency as its storefront writes it; an unknown storefront in en_US")
    func policy() {
        #expect(PriceText.display(decimal("0.99"), currency: "USD", storefront: "USA") == "$0.99")
        #expect(PriceText.display(decimal("160"), currency: "JPY", storefront: "JPN") == "¥160")
        #expect(PriceText.display(decimal("0.79"), currency: "GBP", storefront: "GBR") == "£0.79")
        #expect(PriceText.display(decimal("0.99"), currency: "EUR", storefront: "ZZZ") == "€0.99")
    }
}
