import Foundation
import StoreEngine
import Synchronization
import Testing
@testable import StorefrontUI

// Issue 5 in the paywall: the words on a subscription's row for each state, read
// from a real store driven through the lifecycle, the manager's subscription
// keys, the clock keys, and renewals made by the paywall's own change check.

/// A clock the tests move; the store's real clock.
final class StepClock: Sendable {
    private let current: Mutex<Date>
    init(_ start: Date) { current = Mutex(start) }
    var now: Date { current.withLock { $0 } }
    func set(_ date: Date) { current.withLock { $0 = date } }
    var closure: @Sendable () -> Date { { [self] in self.now } }
}

func utcDate(_ year: Int, _ month: Int, _ day: Int, _ hour: Int = 0) -> Date {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = utc
    return calendar.date(from: DateComponents(year: year, month: month, day: day, hour: hour))!
}

/// A demo-catalog store in a fresh folder, its clock at ``fixedDate`` (Dec 1, 2026).
func withDemoStore<T>(_ body: (Store, StepClock) async throws -> T) async throws -> T {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ui-sub-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let clock = StepClock(fixedDate)
    let store = try Store(catalog: demoCatalog, path: folder.appendingPathComponent("store.sqlite").path, now: clock.closure)
    return try await body(store, clock)
}

let yearly = "barcode_year_subscription"

/// The status words on a product's row, as the paywall and `products` compute them.
private func rowText(_ store: Store, _ productID: String) async throws -> String {
    let product = try #require(try await store.app.product(id: productID))
    let group = try #require(product.subscription?.subscriptionGroupID)
    let status = try await store.app.subscriptionStatuses().first { $0.groupID == group }
    return ProductStanding(product, owned: try await store.app.ownedProducts()[productID], balance: nil,
                           subscription: status, introEligible: try await store.app.isEligibleForIntroOffer(groupID: group))
        .text(for: product)
}

@Suite("subscription status words")
struct SubscriptionStatusTests {
    @Test("the intro offer shows only to an eligible account")
    func introOffer() async throws {
        try await withDemoStore { store, _ in
            #expect(try await rowText(store, monthly) == "1 week free, then $4.99/month")
            #expect(try await rowText(store, yearly) == "", "the yearly plan has no intro offer")
            let product = try #require(try await store.app.product(id: monthly))
            #expect(ProductStanding(product, owned: nil, balance: nil, introEligible: false).text(for: product) == "")
        }
    }

    @Test("the intro offer's other payment modes in words")
    func introWords() async throws {
        let product = try #require(demoCatalog.products(in: demoCatalog.storefront("USA")!).first { $0.id == monthly })
        var offer = try #require(product.subscription?.introductoryOffer)
        offer.paymentMode = .payAsYouGo
        offer.period = ISODuration(months: 1)
        offer.periodCount = 3
        offer.displayPrice = "$0.99"
        #expect(StatusText.offerTerms(offer, product) == "$0.99/month for 3 months, then $4.99/month")
        offer.paymentMode = .payUpFront
        offer.period = ISODuration(months: 2)
        offer.periodCount = 1
        offer.displayPrice = "$1.99"
        #expect(StatusText.offerTerms(offer, product) == "$1.99 for 2 months, then $4.99/month")
    }

    @Test("a trial says so, then says it ends with auto-renew off, then Expired")
    func renewsExpiresExpired() async throws {
        try await withDemoStore { store, clock in
            try await store.app.finish(try transaction(try await store.app.purchase(monthly)))
            // The free week is a trial, and says so.
            #expect(try await rowText(store, monthly) == "Free trial until Dec 8, 2026, then $4.99/month")
            #expect(try await rowText(store, yearly) == "", "the other plan says nothing")
            try await store.appStore.setAutoRenew(groupID: "premium", false)
            #expect(try await rowText(store, monthly) == "Free trial until Dec 8, 2026, then ends")
            clock.set(utcDate(2026, 12, 9))
            #expect(try await rowText(store, monthly) == "Expired Dec 8, 2026")
        }
    }

    @Test("a lapsed plan with an eligible win-back offer says so; a trial alone paid nothing, so it does not")
    func winBackOffer() async throws {
        try await withDemoStore { store, clock in
            try await store.app.finish(try transaction(try await store.app.purchase(monthly)))
            clock.set(utcDate(2026, 12, 9))  // the first paid month, to January 8
            try await store.appStore.setAutoRenew(groupID: "premium", false)
            clock.set(utcDate(2027, 1, 20))
            #expect(try await rowText(store, monthly) == "Expired Jan 8, 2027", "the offer needs a month since the lapse")
            clock.set(utcDate(2027, 2, 9))
            #expect(try await rowText(store, monthly) == "Expired Jan 8, 2027 · win-back offer")
        }
    }

    @Test("a waiting downgrade: Starts on the plan it goes to, and the current plan says it changes then")
    func downgradeStarts() async throws {
        try await withDemoStore { store, _ in
            _ = try await store.app.buy(yearly)
            _ = try await store.app.buy(monthly)
            #expect(try await rowText(store, monthly) == "Starts Dec 1, 2027")
            #expect(try await rowText(store, yearly) == "Until Dec 1, 2027, then changes")
        }
    }

    @Test("buying the lower plan in the paywall: the effect reports a scheduled downgrade, and the status line says nothing was charged and when it starts")
    func downgradeInThePaywall() async throws {
        try await withDemoStore { store, _ in
            let effects = EngineEffects(store: store, latency: .zero)
            let bought = await effects.perform(.purchase(productID: yearly))
            guard case .paywall(.purchased(yearly, .ended(.bought(let yearlyPurchase, _, _, _))))? = bought,
                  case .purchased(let yearlyTransaction, nil) = yearlyPurchase.outcome else {
                Issue.record("expected the yearly plan purchased, got \(String(describing: bought))")
                return
            }
            let action = await effects.perform(.purchase(productID: monthly))
            guard case .paywall(.purchased(monthly, .ended(.bought(let monthlyPurchase, _, _, _))))? = action,
                  case .changeScheduled(let change) = monthlyPurchase.outcome else {
                Issue.record("expected a scheduled downgrade, got \(String(describing: action))")
                return
            }
            #expect(change.kind == .downgrade && change.isScheduled)
            #expect(change.current.id == yearlyTransaction.id)
            #expect(try await store.app.transactions().count == 1, "nothing new was charged")

            var state = State(size: Size(columns: 100, rows: 30), account: store.account, storePath: store.path,
                              paywall: demoCatalog.paywall)
            #expect(update(&state, try #require(action)) == [.load])
            let flash = try #require(state.flash)
            #expect(flash.contains("nothing is charged now"), "\(flash)")
            #expect(flash.contains("Dec 1, 2027"), "\(flash)")
            #expect(!flash.contains("Purchased"), "\(flash)")
        }
    }

    @Test("Grace period until …, then Billing retry")
    func graceThenRetry() async throws {
        try await withDemoStore { store, clock in
            _ = try await store.app.buy(yearly)
            try await store.testSession.setSetting("billingIssues", to: "true")
            try await store.testSession.setSetting("gracePeriod", to: "true")
            clock.set(utcDate(2027, 12, 5))
            #expect(try await rowText(store, yearly) == "Grace period until Dec 17, 2027")
            clock.set(utcDate(2027, 12, 18))
            #expect(try await rowText(store, yearly) == "Billing retry")
        }
    }

    @Test("Refunded")
    func refunded() async throws {
        try await withDemoStore { store, _ in
            let bought = try transaction(try await store.app.purchase(yearly))
            try await store.appStore.refund(bought.id)
            #expect(try await rowText(store, yearly) == "Refunded")
        }
    }

    @Test("the paywall's snapshot carries the statuses, eligibility and clock; a renewal arrives as an update")
    func snapshotAndRenewal() async throws {
        try await withDemoStore { store, clock in
            let effects = EngineEffects(store: store, latency: .zero)
            let fresh = try await effects.snapshot()
            #expect(fresh.introEligibleGroups == ["premium"])
            #expect(fresh.subscriptions.isEmpty)
            #expect(fresh.clock == fixedDate)
            _ = try await store.app.buy(monthly)
            clock.set(utcDate(2026, 12, 9))
            // The store's change feed makes the renewal and the paywall hears of it, though no other
            // process wrote (the test's clock is stepped, so the feed is asked to look now).
            let change = try #require(await store.changes.refresh())
            #expect(EngineEffects.action(for: change) == .renewalsMade(1))
            #expect(await store.changes.refresh() == nil, "a second look finds nothing new")
            let renewed = try await effects.snapshot()
            #expect(renewed.arrived == [monthly], "the renewal is delivered as an update")
            #expect(renewed.subscriptions["premium"]?.state == .subscribed)
            #expect(renewed.subscriptions["premium"]?.transaction.purchaseDate == utcDate(2026, 12, 8))
            #expect(renewed.introEligibleGroups.isEmpty)
            var state = loadedState(snapshot: renewed)
            state.selection = index(of: monthly)
            let screen = render(state, timeZone: utc).lines
            #expect(screen.contains { $0.contains("Monthly Subscription") && $0.contains("Renews Jan 8, 2027") })
        }
    }

    @Test("the clock command advances the store and reports the new time, and what fell due in the CLI's words")
    func advanceClockCommand() async throws {
        try await withDemoStore { store, _ in
            let effects = EngineEffects(store: store, latency: .zero)
            let action = await effects.perform(.run(.advanceClock(ISODuration(months: 1))))
            #expect(action == .commandFinished(.advanceClock(ISODuration(months: 1)),
                                               .success("Clock advanced by 1 month: \(clockText(utcDate(2027, 1, 1))). No renewal was due by then.")))
            let now = try await store.testSession.clock().now
            #expect(now == utcDate(2027, 1, 1))
        }
    }
}

// MARK: - Keys

@Suite("subscription keys")
struct SubscriptionKeyTests {
    /// The Transaction Manager showing `history`, with the store's statuses in the snapshot.
    func managerState(_ store: Store, history: [StoreEngine.Transaction]) async throws -> State {
        var snap = snapshot()
        snap.subscriptions = Dictionary(uniqueKeysWithValues: try await store.app.subscriptionStatuses().map { ($0.groupID, $0) })
        var state = loadedState(snapshot: snap)
        #expect(update(&state, .key(.character("t"))) == [.loadHistory])
        send(&state, .manager(.historyLoaded(history)), expecting: [])
        return state
    }

    @Test("e, n and u act on the selected auto-renewable subscription's group")
    func managerKeys() async throws {
        try await withDemoStore { store, _ in
            let bought = try transaction(try await store.app.purchase(monthly))
            var state = try await managerState(store, history: [bought])
            #expect(update(&state, .key(.character("e"))) == [.run(.expire(groupID: "premium"))])
            send(&state, .commandFinished(.expire(groupID: "premium"), .success("")), expecting: [.load, .loadHistory])
            #expect(update(&state, .key(.character("n"))) == [.run(.renew(groupID: "premium"))])
            send(&state, .commandFinished(.renew(groupID: "premium"), .success("")), expecting: [.load, .loadHistory])
            // Auto-renew is on: u turns it off; once off, u turns it on.
            #expect(update(&state, .key(.character("u"))) == [.run(.autoRenew(groupID: "premium", on: false))])
            send(&state, .commandFinished(.autoRenew(groupID: "premium", on: false), .success("")), expecting: [.load, .loadHistory])
            try await store.appStore.setAutoRenew(groupID: "premium", false)
            var off = try await managerState(store, history: [bought])
            #expect(update(&off, .key(.character("u"))) == [.run(.autoRenew(groupID: "premium", on: true))])
        }
    }

    @Test("e, n and u on a product that is not an auto-renewable subscription do nothing but say why")
    func managerKeysElsewhere() async throws {
        try await withDemoStore { store, _ in
            let pro = try transaction(try await store.app.purchase(swiftShopping))
            let pass = try transaction(try await store.app.purchase(seasonPass))
            for history in [[pro], [pass]] {
                var state = try await managerState(store, history: history)
                // The engine's refusal (TransactionFacts.refusal(of:)), under what was asked.
                for (key, asked) in [("e", "Cannot expire"), ("n", "Cannot renew"), ("u", "Cannot change auto-renew")] {
                    #expect(update(&state, .key(.character(Character(key)))).isEmpty)
                    #expect(state.flash == "\(asked): it is not an auto-renewable subscription")
                    #expect(state.busy == nil)
                }
            }
        }
    }

    @Test("+ and > advance the store's clock a day and a month, one command at a time")
    func clockKeys() {
        var state = loadedState()
        #expect(update(&state, .key(.character("+"))) == [.run(.advanceClock(ISODuration(days: 1)))])
        #expect(update(&state, .key(.character(">"))).isEmpty, "busy: no second command")
        send(&state, .commandFinished(.advanceClock(ISODuration(days: 1)), .success("")), expecting: [.load])
        #expect(update(&state, .key(.character(">"))) == [.run(.advanceClock(ISODuration(months: 1)))])
    }

    @Test("renewals made by this process reload the screen shown, unless a command is running")
    func renewalsReload() {
        var state = loadedState()
        #expect(update(&state, .renewalsMade(2)) == [.load])
        send(&state, .key(.character("t")), expecting: [.loadHistory])
        #expect(update(&state, .renewalsMade(1)) == [.load, .loadHistory])
        send(&state, .key(.character("+")), expecting: [.run(.advanceClock(ISODuration(days: 1)))])
        #expect(update(&state, .renewalsMade(1)).isEmpty)
    }
}

/// The transaction of a successful purchase.
private func transaction(_ outcome: PurchaseOutcome, sourceLocation: SourceLocation = #_sourceLocation) throws
    -> StoreEngine.Transaction {
    guard case .purchased(let transaction, _) = outcome else {
        Issue.record("expected purchased, got \(outcome.name)", sourceLocation: sourceLocation)
        throw CancellationError()
    }
    return transaction
}
