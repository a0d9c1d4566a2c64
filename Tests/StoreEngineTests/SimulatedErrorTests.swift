import Foundation
import Testing
@testable import StoreEngine

// Simulated errors in the engine: every purchase, or the next one only (--once).

/// The result of an async call, as a value.
private func attempt<T>(_ body: () async throws -> T) async -> Result<T, any Error> {
    do { return .success(try await body()) } catch { return .failure(error) }
}

@Suite("Store: simulated errors")
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
