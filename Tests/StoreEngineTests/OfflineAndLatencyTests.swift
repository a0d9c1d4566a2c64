import Foundation
import Testing
@testable import StoreEngine

// The offline and latency settings in the engine.

@Suite("Store: offline and latency")
struct OfflineAndLatencyTests {
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
