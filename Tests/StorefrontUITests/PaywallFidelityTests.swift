import Foundation
@testable import StoreEngine
import Testing
@testable import StorefrontUI

/// What the paywall's sheets say matches the engine's state: offline, the grace period, the
/// environment, a reinstall, and the StoreKit 1 log of a restore.
@Suite("paywall says what the engine decides")
struct PaywallFidelityTests {
    @Test("offline on: the App Store sheet predicts networkError, not 'succeeds', though loading the products fails")
    func offlineSheet() async throws {
        try await withDemoStore { store, _ in
            var (state, engine) = try await enginePaywall(store)
            try await store.testSession.set(.offline, to: true)
            await settle(&state, [.load], on: engine)
            #expect(state.loadError != nil, "loading the products fails offline")
            state.selection = index(of: swiftShopping)
            send(&state, .key(.enter), expecting: [])
            #expect(state.sheet == .confirm(productID: swiftShopping))
            let text = sheetText(state)
            #expect(text.contains("fails with networkError (offline)"), "\(text)")
            #expect(!text.contains("succeeds"), "\(text)")
        }
    }

    @Test("the Billing Problem sheet says grace period during one, billing retry after it")
    func billingProblemWords() async throws {
        try await withDemoStore { store, clock in
            _ = try await store.app.buy(monthly)
            try await store.testSession.set(.billingIssues, to: true)
            try await store.testSession.set(.gracePeriod, to: true)
            clock.set(fixedDate.addingTimeInterval(8 * 86_400))
            _ = try await store.appStore.processRenewals()
            var (state, _) = try await enginePaywall(store)
            #expect(sheetTitle(state) == "Billing Problem")
            #expect(sheetText(state).contains("is in its billing grace period"), "\(sheetText(state))")
            #expect(!sheetText(state).contains("billing retry"))
            // The same message once the grace period is over: billing retry.
            let shown = try #require(state.sheet)
            clock.set(fixedDate.addingTimeInterval(40 * 86_400))
            let (later, _) = try await enginePaywall(store, policy: .deferred)
            state.snapshot = later.snapshot
            state.sheet = shown
            #expect(sheetText(state).contains("is in billing retry"), "\(sheetText(state))")
        }
    }

    @Test("the App Store sheet names the environment setting: Xcode, Sandbox, none in Production")
    func environmentTag() async throws {
        try await withDemoStore { store, _ in
            for (environment, tag) in [("Xcode", "[Environment: Xcode]"), ("Sandbox", "[Environment: Sandbox]"), ("Production", nil)] {
                try await store.testSession.setSetting("environment", to: environment)
                var (state, _) = try await enginePaywall(store)
                state.selection = index(of: swiftShopping)
                send(&state, .key(.enter), expecting: [])
                let account = try #require(sheetLines(state).first { $0.hasPrefix("Account:") })
                if let tag {
                    #expect(account.hasSuffix(tag), "\(environment): \(account)")
                } else {
                    #expect(!account.contains("["), "\(environment): \(account)")
                }
            }
        }
    }

    @Test("after deleting the app a live subscription shows at once, as currentEntitlements has it; a non-consumable waits for Restore")
    func reinstall() async throws {
        try await withDemoStore { store, _ in
            _ = try await store.app.buy(monthly)
            _ = try await store.app.buy(swiftShopping)
            try await store.testSession.reset(.app)
            let (state, _) = try await enginePaywall(store)
            let row = try #require(render(state, timeZone: utc).lines.first { $0.contains("Monthly Subscription") })
            #expect(row.contains(state.glyphs.check) && row.contains("Free trial until"), "\(row)")
            #expect(!row.contains("not on this device") && !row.contains("restores"), "\(row)")
            let bought = try #require(state.products.first { $0.id == swiftShopping })
            #expect(statusText(bought, state).hasSuffix("r restores"))
        }
    }

    @Test("Restore does not log a non-renewing subscription as restored (StoreKit 1 never restores one); the app still has it")
    func nonRenewingNotRestored() async throws {
        try await withDemoStore { store, _ in
            let pass = try #require(try await store.app.buy(seasonPass).outcome.transaction)
            _ = try await store.app.buy(swiftShopping)
            try await store.testSession.reset(.app)
            _ = try await store.app.sync()
            let restored = try await store.testSession.events().filter { $0.state == .restored }.map(\.productID)
            #expect(restored.contains(swiftShopping))
            #expect(!restored.contains(seasonPass), "\(restored)")
            #expect(try await store.app.ownedProducts()[seasonPass]?.id == pass.id, "StoreKit 2's currentEntitlements has it")
        }
    }
}
