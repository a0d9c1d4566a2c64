import Foundation
import Testing
@testable import StoreEngine

// Purchases outside the app, and the outcome a tester chooses for one purchase, in the engine.

@Suite("Store: purchases outside the app and chosen outcomes")
struct ChosenOutcomeTests {
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
