import Foundation
import Testing
@testable import StoreEngine

/// Inputs checked on the face that takes them, and the purchase's rule order, written once.
@Suite("FaceValidation")
struct FaceValidationTests {
    @Test("extension days are 1–90 and reasons 0–3, on the face, whoever calls it")
    func extensionLimits() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            let yearly = try await buy(store, "sub.yearly")
            for days in [0, 91, -1] {
                await #expect(throws: InputError.invalidExtendByDays(days)) {
                    try await store.appStore.extendSubscription(originalTransactionID: yearly.originalID, days: days)
                }
            }
            await #expect(throws: InputError.invalidExtendReasonCode(4)) {
                try await store.appStore.extendSubscription(originalTransactionID: yearly.originalID, days: 5, reasonCode: 4)
            }
            await #expect(throws: InputError.invalidExtendByDays(120)) {
                try await store.appStore.extendAllSubscribers(productID: "sub.yearly", days: 120, requestIdentifier: "r1")
            }
            await #expect(throws: InputError.invalidRequestIdentifier("")) {
                try await store.appStore.extendAllSubscribers(productID: "sub.yearly", days: 5, requestIdentifier: "")
            }
            let extended = try await store.appStore.extendSubscription(originalTransactionID: yearly.originalID, days: 90)
            #expect(extended?.effectiveDate == utc(2026, 5, 1, 12))
            #expect(InputError.invalidExtendByDays(91).description == "extendByDays must be 1–90 days, not 91")
        }
    }

    @Test("quantities: 1–10 of a consumable, one of anything else")
    func quantities() async throws {
        #expect(FaceValidation.isValidQuantity(10, of: .consumable) && !FaceValidation.isValidQuantity(11, of: .consumable))
        #expect(!FaceValidation.isValidQuantity(0, of: .consumable) && !FaceValidation.isValidQuantity(2, of: .nonConsumable))
        #expect(FaceValidation.isValidQuantity(1, of: .autoRenewable))
        #expect(throws: InputError.invalidTransactionID(0)) { try FaceValidation.checkTransactionID(0) }
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            await #expect(throws: StoreError.invalidQuantity(2)) { try await store.app.purchase("pro", quantity: 2) }
        }
    }

    @Test("the device refuses first (canMakePayments, then offline), before the offer is checked")
    func deviceFirst() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            try await store.testSession.set(.offline, to: true)
            await #expect(throws: StoreError.simulated(.networkError, cause: "offline is true")) {
                try await store.app.purchase("sub.monthly", offerID: "no-such-offer")
            }
            try await store.testSession.set(.canMakePayments, to: false)
            await #expect(throws: StoreError.purchaseNotAllowed) { try await store.app.purchase("sub.monthly") }
        }
    }

    /// One case a combination, so the 32 stores are made side by side.
    @Test("the sheet's preview and the purchase agree on every combination of conditions", arguments: 0..<32)
    func previewAgreesWithPurchase(mask: Int) async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            try await store.testSession.set(.canMakePayments, to: mask & 1 == 0)
            try await store.testSession.set(.offline, to: mask & 2 != 0)
            if mask & 4 != 0 { try await store.testSession.set(.purchaseError, to: .systemError) }
            try await store.testSession.set(.askToBuy, to: mask & 8 != 0)
            try await store.testSession.set(.interruptedPurchases, to: mask & 16 != 0)
            // Read as the snapshot reads them (the snapshot itself is refused offline, as loading products is).
            let expected = try await store.purchaseConditions().expected
            let made: PurchaseConditions.Expected
            do {
                switch try await store.app.purchase("pro") {
                case .pending(let request): made = request.reason == .askToBuy ? .askToBuy : .interrupted
                default: made = .succeeds
                }
            } catch StoreError.purchaseNotAllowed {
                made = .notAllowed
            } catch StoreError.simulated(let error, _) {
                made = .fails(error)
            }
            #expect(made == expected, "conditions \(mask)")
        }
    }
}
