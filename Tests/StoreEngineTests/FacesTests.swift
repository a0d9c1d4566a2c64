import Foundation
import Testing
@testable import StoreEngine

// Issue 13: the engine's three faces — typed settings, typed purchase outcomes
// decided once, and one consistent snapshot for a screen.

@Suite("Faces: typed settings")
struct TypedSettingTests {
    @Test("every setting name has a definition, listed in the order of SettingName")
    func everyNameIsDefined() {
        #expect(SettingDefinition.all.map(\.name) == SettingName.allCases.map(\.rawValue))
        for name in SettingName.allCases {
            #expect(SettingDefinition.named(name.rawValue)?.id == name)
        }
        #expect(SettingDefinition.named("askTobuy") == nil, "names are exact: a misspelling is unknown, not a crash")
    }

    @Test("a typed value set through the test session reads back typed, and as the CLI's string")
    func typedRoundTrip() async throws {
        try await withStoreFixture { fixture in
            let session = try fixture.open().testSession
            #expect(try await session.value(.askToBuy) == false)
            #expect(try await session.value(.latency) == .zero)
            #expect(try await session.value(.purchaseError) == nil)

            try await session.set(.askToBuy, to: true)
            try await session.set(.latency, to: .milliseconds(400))
            try await session.set(.purchaseError, to: .networkError, once: true)
            try await session.set(.timeRate, to: .oneRenewalEveryMinute)

            #expect(try await session.value(.askToBuy))
            #expect(try await session.value(.latency) == .milliseconds(400))
            #expect(try await session.value(.purchaseError) == .networkError)
            #expect(try await session.value(.timeRate) == .oneRenewalEveryMinute)
            let listed = Dictionary(uniqueKeysWithValues: try await session.settings().map { ($0.name, $0) })
            #expect(listed["askToBuy"]?.value == "true")
            #expect(listed["latency"]?.value == "400")
            #expect(listed["purchaseError"]?.value == "networkError" && listed["purchaseError"]?.once == true)

            // A second process (another store on the file) reads the same typed values.
            #expect(try await fixture.open().testSession.value(.latency) == .milliseconds(400))
        }
    }

    @Test("the string form refuses what the typed form cannot say")
    func stringFormChecks() async throws {
        try await withStoreFixture { fixture in
            let session = try fixture.open().testSession
            await #expect(throws: SettingError.self) { try await session.setSetting("askTobuy", to: "true") }
            await #expect(throws: SettingError.self) { try await session.setSetting("latency", to: "-1") }
            #expect(try await session.value(.askToBuy) == false, "nothing changed")
        }
    }
}

@Suite("Faces: outcomes decided once")
struct FaceOutcomeTests {
    @Test("buying outside the app what the account owns is alreadyOwned, charged nothing; a new one is purchased")
    func outsidePurchaseOfOwned() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            guard case .purchased(let first, nil) = try await store.appStore.purchaseOutsideApp("pro") else {
                Issue.record("expected a purchase")
                return
            }
            guard case .alreadyOwned(let again) = try await store.appStore.purchaseOutsideApp("pro") else {
                Issue.record("expected alreadyOwned")
                return
            }
            #expect(again.id == first.id)
            #expect(try await store.app.transactions().count == 1, "nothing charged the second time")
        }
    }

    @Test("a pending purchase is a request, not a transaction; its approval is purchased and arrives unfinished")
    func pendingIsARequest() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            try await store.testSession.set(.askToBuy, to: true)
            guard case .pending(let request) = try await store.app.purchase("faces") else {
                Issue.record("expected pending")
                return
            }
            #expect(request.reason == .askToBuy && request.productID == "faces")
            #expect(try await store.appStore.pendingRequests().map(\.id) == [request.id])
            #expect(try await store.app.currentEntitlements().isEmpty)
            guard case .purchased(let approved, nil) = try await store.appStore.approve(request.id) else {
                Issue.record("expected the approval to purchase")
                return
            }
            #expect(approved.id == request.id && approved.isFinished == false)
            #expect(try await store.app.unfinished().map(\.id) == [request.id])
            #expect(try await store.appStore.pendingRequests().isEmpty)
        }
    }

    @Test("an approved downgrade is a change scheduled for the renewal, not a purchase")
    func approvedDowngradeIsScheduled() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            let yearly = try await buy(store, "sub.yearly")
            try await store.testSession.set(.askToBuy, to: true)
            guard case .pending(let request) = try await store.app.purchase("sub.monthly") else {
                Issue.record("expected pending")
                return
            }
            guard case .changeScheduled(let change) = try await store.appStore.approve(request.id) else {
                Issue.record("expected a scheduled change")
                return
            }
            #expect(change.kind == .downgrade && change.effectiveDate == yearly.expirationDate)
            #expect(try await store.app.transactions().map(\.id) == [yearly.id], "nothing charged now")
        }
    }
}

@Suite("Faces: the screen's snapshot")
struct SnapshotTests {
    @Test("one snapshot delivers what arrived, and shows owned, entitled, balances, statuses and pending requests together")
    func snapshotReadsEverything() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            _ = try await store.appStore.purchaseOutsideApp("coins", quantity: 3)
            _ = try await store.app.buy("sub.monthly")
            try await store.testSession.set(.askToBuy, to: true)
            _ = try await store.app.purchase("faces")

            let snapshot = try await store.app.snapshot()
            #expect(snapshot.arrived == ["coins"], "the outside purchase arrived as an update and was delivered")
            #expect(snapshot.balances["coins"] == 3)
            #expect(snapshot.entitled == ["sub.monthly"])
            #expect(snapshot.owned.keys.sorted() == ["sub.monthly"])
            #expect(snapshot.subscriptions["premium"]?.state == .subscribed)
            #expect(snapshot.introEligibleGroups.isEmpty, "the trial was taken")
            #expect(snapshot.pending.map(\.productID) == ["faces"])
            #expect(snapshot.products.count == fixture.catalog.products.count)
            #expect(try await store.app.snapshot().arrived.isEmpty, "delivered once")
        }
    }

    @Test("offline: the snapshot fails with networkError, as loading products does")
    func offlineSnapshot() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            try await store.testSession.set(.offline, to: true)
            await #expect(throws: StoreError.simulated(.networkError, cause: "offline is true")) {
                try await store.app.snapshot()
            }
        }
    }
}

extension SnapshotTests {
    /// A store of the bundled products.json, its clock at `start`.
    func withDemoCatalogStore(_ start: Date, _ body: (Store, TestClock) async throws -> Void) async throws {
        try await withTemporaryFolder { folder in
            let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            let catalog = try Catalog.load(contentsOf: root.appendingPathComponent("products.json").path)
            let clock = TestClock(start)
            try await body(try Store(catalog: catalog, path: folder + "/store.sqlite", now: clock.closure), clock)
        }
    }

    @Test("the sheets' data: products list their promotional and win-back offers; messages not shown, refund requests and waiting increases")
    func sheetsData() async throws {
        try await withDemoCatalogStore(utc(2026, 1, 5, 9)) { store, clock in
            let yearly = try #require(try await store.app.product(id: "barcode_year_subscription")?.subscription)
            #expect(yearly.promotionalOffers.map(\.id) == ["annual_comeback"] && yearly.promotionalOffers.first?.displayPrice == "$29.99")
            #expect(yearly.winBackOffers.isEmpty)
            let monthly = try #require(try await store.app.product(id: "barcode_month_subscription")?.subscription)
            #expect(monthly.winBackOffers.map(\.id) == ["monthly_winback"] && monthly.winBackOffers.first?.periodCount == 3)
            #expect(monthly.introductoryOffer?.id == nil)

            _ = try await buy(store, "barcode_month_subscription")
            clock.set(utc(2026, 1, 13))                                   // renewed Jan 12, next Feb 12
            _ = try await store.appStore.changePrice("barcode_month_subscription", to: decimal("9.99"), requireConsent: true)
            _ = try await store.testSession.sendMessage(.generic)
            let shopping = try await buy(store, "com.razeware.razefaces.swiftshopping")
            try await store.app.beginRefundRequest(transactionID: shopping.id, reason: .legal)
            let other = try Store(catalog: store.catalog, path: store.path, account: "other@local", now: clock.closure)
            let theirs = try await buy(other, "com.razeware.razefaces.iphonerage")
            try await other.app.beginRefundRequest(transactionID: theirs.id)

            var snapshot = try await store.app.snapshot()
            #expect(snapshot.messages.map(\.reason) == [.priceIncreaseConsent, .generic])
            #expect(snapshot.refundRequests.keys.sorted() == [shopping.id], "only this account's")
            #expect(snapshot.refundRequests[shopping.id]?.reason == .legal)
            let increase = try #require(snapshot.priceIncreases.first)
            #expect(increase.status == .pending && increase.newPrice == decimal("9.99") && increase.effectiveDate == utc(2026, 2, 12, 9))
            _ = try await store.app.displayMessage(snapshot.messages[0].id)
            _ = try await store.app.deferMessage(snapshot.messages[1].id)
            snapshot = try await store.app.snapshot()
            #expect(snapshot.messages.map(\.state) == [.deferred], "shown ones are gone; a deferred one stays")
        }
    }

    @Test("reading the snapshot queues a win-back message once the account may take the offer, once per lapse")
    func winBackMessage() async throws {
        try await withDemoCatalogStore(utc(2026, 1, 5, 9)) { store, clock in
            _ = try await buy(store, "barcode_month_subscription")
            clock.set(utc(2026, 1, 13))
            _ = try await store.appStore.processRenewals()
            try await store.setAutoRenew(groupID: "premium", false)
            #expect(try await store.app.snapshot().messages.isEmpty)
            clock.set(utc(2026, 3, 20))                                   // lapsed Feb 12, more than a month ago
            let messages = try await store.app.snapshot().messages
            #expect(messages.map(\.reason) == [.winBackOffer] && messages.first?.offerID == "monthly_winback")
            #expect(try await store.app.snapshot().messages.count == 1, "queued once")
        }
    }
}
