import Foundation
@testable import StoreEngine
import Testing
@testable import StorefrontUI

// The manager's detail pane draws a subscription group's life on a time axis. Each flow is run
// on a real store (a step clock, the settings that make billing fail); the timeline is the engine's
// SubscriptionHistory, read by the pane's effect from the ledger's records, never the log's words.

/// The manager at `columns`×`rows` on a real store, its history and snapshot read, the pane open on `transactionID`
/// (the newest transaction when nil).
func managerState(_ store: Store, columns: Int = 100, rows: Int = 30, glyphs: Glyphs = .unicode,
                          open transactionID: Int64? = nil) async throws -> State {
    let effects = EngineEffects(store: store, latency: .zero)
    var state = State(size: Size(columns: columns, rows: rows), glyphs: glyphs, account: store.account,
                      storePath: "/tmp/store.sqlite", paywall: demoCatalog.paywall)
    // The billing problem's message would open its sheet over the paywall: this app shows it later.
    state.messages.policy = .deferred
    let loaded = try #require(await effects.perform(.load))
    // Deferred: each waiting message is marked deferred in the store, and none opens.
    var deferred: [Effect] = []
    if case .loaded(let snapshot) = loaded { deferred = snapshot.messages.filter { $0.state == .pending }.map { .deferMessage($0.id) } }
    send(&state, loaded, expecting: deferred)
    send(&state, .key(.character("t")), expecting: [.loadHistory])
    let list = await effects.perform(.loadHistory)
    send(&state, try #require(list), expecting: [])
    let listed = try #require(state.manager.transactions)
    let id = transactionID ?? listed[0].id
    state.manager.selection = try #require(listed.firstIndex { $0.id == id })
    let opened = update(&state, .key(.enter))
    let group = try #require(listed.first { $0.id == id }?.subscriptionGroupID)
    #expect(opened == [.loadNotifications(transactionID: id), .loadSubscriptionHistory(groupID: group)])
    send(&state, .manager(.notificationsLoaded(transactionID: id, [])), expecting: [])
    let history = await effects.perform(.loadSubscriptionHistory(groupID: group))
    send(&state, try #require(history), expecting: [])
    return state
}

private func timeline(_ state: State) throws -> SubscriptionHistory {
    let transaction = try #require(state.manager.detailTransaction)
    return try #require(subscriptionTimeline(for: transaction, state))
}

/// A span as the tests spell it: kind, plan, days from Dec 1, 2026 (UTC) to its start and end.
private struct Stretch: Equatable, CustomStringConvertible {
    var kind: SubscriptionHistory.Span.Kind
    var plan: String
    var from: Int
    var to: Int
    var periods = 1
    var change: SubscriptionHistory.Span.PlanChange?

    init(_ kind: SubscriptionHistory.Span.Kind, _ plan: String, _ from: Int, _ to: Int, periods: Int = 1,
         change: SubscriptionHistory.Span.PlanChange? = nil) {
        (self.kind, self.plan, self.from, self.to, self.periods, self.change) = (kind, plan, from, to, periods, change)
    }

    init(_ span: SubscriptionHistory.Span) {
        let day = { (date: Date) in Int((date.timeIntervalSince(fixedDate) / 86_400).rounded(.down)) }
        self.init(span.kind, span.productID, day(span.start), day(span.end), periods: span.periods, change: span.change)
    }

    var description: String { "\(kind) \(plan) \(from)–\(to) ×\(periods) \(change.map { "\($0)" } ?? "")" }
}

private typealias Span = SubscriptionHistory.Span
private typealias Mark = SubscriptionHistory.Mark

/// Dec 1, 2026 plus `days`.
private func day(_ days: Int) -> Date { fixedDate.addingTimeInterval(Double(days) * 86_400) }

@Suite("subscription timeline")
struct SubscriptionTimelineTests {
    /// Trial, two paid months, a failed renewal's grace period and billing retry, recovery, an upgrade
    /// to the yearly plan and a downgrade back that waits for its renewal.
    private func fullLife(_ body: (Store, StepClock) async throws -> Void) async throws {
        try await withDemoStore { store, clock in
            _ = try await store.app.buy(monthly)  // a free week to Dec 8
            clock.set(day(39))  // Jan 9: renewed Dec 8 and Jan 8
            _ = try await store.appStore.processRenewals()
            try await store.testSession.setSetting("billingIssues", to: "true")
            try await store.testSession.setSetting("gracePeriod", to: "true")
            clock.set(day(73))  // Feb 12: the Feb 8 renewal failed; 16 days of grace to Feb 24
            _ = try await store.appStore.processRenewals()
            clock.set(day(87))  // Feb 26: billing retry since Feb 24
            _ = try await store.appStore.processRenewals()
            try await body(store, clock)
        }
    }

    @Test("trial, paid months, grace period, billing retry going on to now")
    func billingRetryNow() async throws {
        try await fullLife { store, _ in
            let timeline = try timeline(try await managerState(store))
            #expect(timeline.spans.map(Stretch.init) == [
                Stretch(.trial, monthly, 0, 7), Stretch(.paid, monthly, 7, 69, periods: 2),
                Stretch(.grace, monthly, 69, 85), Stretch(.billingRetry, monthly, 85, 87),
            ], "\(timeline.spans.map(Stretch.init))")
            #expect(timeline.spans.last?.isOpen == true, "retrying: no end known yet")
            #expect(timeline.now == day(87) && timeline.lanes == [monthly] && timeline.marks.isEmpty)
        }
    }

    @Test("recovered, upgraded, and a downgrade waiting: lanes by level, the changes named, the next period a stub")
    func upgradeAndDowngrade() async throws {
        try await fullLife { store, _ in
            try await store.testSession.setSetting("billingIssues", to: "false")
            _ = try await store.appStore.processRenewals()  // renewed now, Feb 26
            _ = try await store.app.buy(yearly)  // upgrade at once
            _ = try await store.app.buy(monthly)  // downgrade at the yearly renewal
            let timeline = try timeline(try await managerState(store))
            #expect(timeline.spans.map(Stretch.init) == [
                Stretch(.trial, monthly, 0, 7), Stretch(.paid, monthly, 7, 69, periods: 2),
                Stretch(.grace, monthly, 69, 85), Stretch(.billingRetry, monthly, 85, 87),
                Stretch(.paid, monthly, 87, 87), Stretch(.paid, yearly, 87, 452, change: .upgrade),
                Stretch(.next, monthly, 452, 481, change: .downgrade),
            ], "\(timeline.spans.map(Stretch.init))")
            #expect(timeline.lanes == [yearly, monthly], "level 1 (yearly) on top: an upgrade climbs")
        }
    }

    @Test("billing retry given up: grace, retry, then expired (billingError) at its end")
    func expiredAfterRetry() async throws {
        try await withDemoStore { store, clock in
            _ = try await store.app.buy(monthly)
            try await store.testSession.setSetting("billingIssues", to: "true")
            clock.set(day(90))  // retry from Dec 8 for 60 days, to Feb 6
            _ = try await store.appStore.processRenewals()
            let timeline = try timeline(try await managerState(store))
            #expect(timeline.spans.map(Stretch.init) == [Stretch(.trial, monthly, 0, 7), Stretch(.billingRetry, monthly, 7, 67)],
                    "\(timeline.spans.map(Stretch.init))")
            #expect(timeline.marks == [SubscriptionHistory.Mark(kind: .expired, productID: monthly, date: day(7).addingTimeInterval(60 * 86_400))])
        }
    }

    @Test("auto-renew off ends it (expired); a later purchase is a new start, not an upgrade; a refund cuts it")
    func expiredThenRefunded() async throws {
        try await withDemoStore { store, clock in
            _ = try await store.app.buy(monthly)
            try await store.appStore.setAutoRenew(groupID: "premium", false)
            clock.set(day(20))
            let purchase = try await store.app.buy(yearly)
            let bought = try #require(purchase.outcome.transaction)
            clock.set(day(30))
            _ = try await store.appStore.refund(bought.id)
            clock.set(day(35))
            let timeline = try timeline(try await managerState(store))
            #expect(timeline.spans.map(Stretch.init) == [Stretch(.trial, monthly, 0, 7), Stretch(.paid, yearly, 20, 30)],
                    "no upgrade after a lapse: \(timeline.spans.map(Stretch.init))")
            #expect(timeline.marks.map(\.kind) == [.expired, .refunded])
            #expect(timeline.marks.map(\.date) == [day(7), day(30)])
        }
    }

    @Test("drawn at 100×30: lanes, the axis with now, the legend and the periods in words, above the facts")
    func drawnAt100() async throws {
        try await fullLife { store, _ in
            try await store.testSession.setSetting("billingIssues", to: "false")
            _ = try await store.appStore.processRenewals()
            _ = try await store.app.buy(yearly)
            _ = try await store.app.buy(monthly)
            let state = try await managerState(store)
            let screen = render(state, timeZone: utc).lines
            #expect(Array(screen[3...17]) == [
                "  Transaction 2000000005 · Annual Subscription  (Esc closes)",
                "  Subscription timeline · Premium · store clock",
                "  Annual Subscription                    ████████████████████████████████████████████████",
                "  Monthly Subscription ░░██████████▒▒▒▒╌╌█                                               ┈┈┈┈┈┈┈┈",
                "            2026-12-01 ──────────────────┴───────────────────────────────────────────────────────",
                "                                         now 2027-02-26                                2028-03-26",
                "  ░ trial  █ paid  ▒ grace period  ╌ billing retry  ┈ next  │ now",
                "    trial          Monthly Subscription                2026-12-01 to 2026-12-08",
                "    paid ×2        Monthly Subscription                2026-12-08 to 2027-02-08",
                "    grace period   Monthly Subscription                2027-02-08 to 2027-02-24",
                "    billing retry  Monthly Subscription                2027-02-24 to 2027-02-26",
                "    paid           Monthly Subscription                2027-02-26 to 2027-02-26",
                "  ▸ paid           Annual Subscription (upgrade)       2027-02-26 to 2028-02-26",
                "    next           Monthly Subscription (downgrade)    from 2028-02-26",
                "",
            ], "\n\(screen.joined(separator: "\n"))")
            #expect(screen[18].hasPrefix("  Price     $39.99 (USA)") && screen[18].contains("Signed payload"))
            // Colour is a hint on top of the glyphs: the retry red, now bold yellow.
            let canvas = render(state, timeZone: utc)
            let lane = screen[6]
            let retryX = lane.distance(of: "╌")
            #expect(canvas[retryX, 6].style.color == .red)
            let nowX = screen[7].distance(of: "┴")
            #expect(canvas[nowX, 7].style == Style(bold: true, color: .yellow))
            #expect(screen[8].distance(of: "now") == nowX, "the date of now stands under its mark")
        }
    }

    @Test("readable at 80×24: every timeline row inside the width, the lanes and now on the first screen",
          arguments: [Glyphs.unicode, .ascii])
    func drawnAt80(glyphs: Glyphs) async throws {
        try await fullLife { store, _ in
            let state = try await managerState(store, columns: 80, rows: 24, glyphs: glyphs)
            let screen = render(state, timeZone: utc).lines
            #expect(!screen.contains { TerminalText.width($0) > 80 })
            let g = glyphs.timeline
            #expect(screen.contains { $0.hasPrefix("  Monthly Subscription \(g.trial)\(g.trial)") }, "\n\(screen.joined(separator: "\n"))")
            #expect(screen.contains { $0.contains("now 2027-02-26") })
            #expect(screen.contains { $0.contains("billing retry") && $0.contains("2027-02-24 to now") })
            if glyphs == .ascii {
                #expect(screen.allSatisfy { $0.unicodeScalars.allSatisfy(\.isASCII) }, "\n\(screen.joined(separator: "\n"))")
                #expect(screen.contains { $0.contains(": trial  # paid  + grace period  ~ billing retry  | now") })
            }
        }
    }

    @Test("the pane scrolls over the timeline and the facts alike: End shows the payload's last field")
    func scrollsToTheEnd() async throws {
        try await fullLife { store, _ in
            var state = try await managerState(store, columns: 80, rows: 24)
            let rows = detailPaneRows(state, timeZone: .current)
            #expect(update(&state, .key(.end)).isEmpty)
            #expect(state.manager.detail?.scroll == rows.count - ManagerLayout(state.size).listHeight)
            let screen = render(state, timeZone: utc).lines
            #expect(screen.contains { $0.contains("sandboxAccount") || $0.contains("appTransactionId") }, "\n\(screen.joined(separator: "\n"))")
        }
    }

    @Test("the grace period comes from the ledger's history, not the log: a State whose log is empty still draws it")
    func graceFromTheHistory() async throws {
        try await fullLife { store, _ in
            try await store.testSession.setSetting("billingIssues", to: "false")
            _ = try await store.appStore.processRenewals()  // recovered Feb 26: the grace period is in the past
            var state = try await managerState(store)
            // The log the screen holds says nothing of grace (nor of the failure): the timeline is not built from it.
            state.snapshot?.events = []
            let timeline = try timeline(state)
            #expect(timeline.spans.map(Stretch.init).contains(Stretch(.grace, monthly, 69, 85)), "\(timeline.spans.map(Stretch.init))")
            let screen = render(state, timeZone: utc).lines
            #expect(screen.contains { $0.contains("grace period   Monthly Subscription") && $0.contains("2027-02-08 to 2027-02-24") },
                    "\n\(screen.joined(separator: "\n"))")
            // And the pane shows what the engine's history says, whole.
            let fromEngine = try #require(try await store.appStore.subscriptionHistory(groupID: "premium"))
            #expect(timeline == fromEngine)
        }
    }

    @Test("opening a subscription's pane reads its group's history; a one-time purchase's reads none")
    func paneReadsTheHistory() throws {
        var subscription = transaction(monthly, id: 7, expires: day(30))
        (subscription.subscriptionGroupID, subscription.productType) = ("premium", .autoRenewable)
        let consumable = transaction(swiftShopping, id: 8)
        var state = State(size: Size(columns: 100, rows: 30), account: "t", storePath: "/tmp/s", paywall: demoCatalog.paywall)
        state.screen = .transactions
        send(&state, .manager(.historyLoaded([subscription, consumable])), expecting: [])
        #expect(update(&state, .key(.enter)) == [.loadNotifications(transactionID: 7), .loadSubscriptionHistory(groupID: "premium")])
        #expect(subscriptionTimeline(for: subscription, state) == nil, "nothing drawn until the history comes back")
        let history = try #require(SubscriptionHistory(groupID: "premium", transactions: [subscription], status: nil, failures: [],
                                                       expiries: [:], products: [], now: day(1)))
        assertUpdate(&state, .manager(.subscriptionHistoryLoaded(groupID: "premium", history))) { $0.manager.histories["premium"] = history }
        send(&state, .key(.escape), expecting: [])
        state.manager.selection = 1
        #expect(update(&state, .key(.enter)) == [.loadNotifications(transactionID: 8)])
    }

    @Test("a long life of lapses: a day of grace, a day of billing retry and every expiry still show at 80 and 100 columns",
          arguments: [80, 100])
    func shortSpansInALongLife(columns: Int) throws {
        // Fourteen months bought and let lapse (each ends expired, a month apart), then a renewal failing:
        // 31 stretches, more than a bar of 55 columns can give two each. The old rule then gave none any
        // room, and the day of grace, the day of retry and most ⊘ were drawn over (issue 40).
        var first = transaction(monthly, id: 1, expires: day(30))
        (first.subscriptionGroupID, first.productType) = ("premium", .autoRenewable)
        var timeline = try #require(SubscriptionHistory(groupID: "premium", transactions: [first], status: nil, failures: [],
                                                        expiries: [:], products: [], now: day(1)))
        timeline.spans = (0..<14).map { Span(kind: .paid, productID: monthly, start: day(60 * $0), end: day(60 * $0 + 30)) }
            + [Span(kind: .grace, productID: monthly, start: day(60 * 13 + 30), end: day(60 * 13 + 31)),
               Span(kind: .billingRetry, productID: monthly, start: day(60 * 13 + 31), end: day(60 * 13 + 32), isOpen: true)]
        timeline.marks = (0..<13).map { Mark(kind: .expired, productID: monthly, date: day(60 * $0 + 30)) }
        (timeline.now, timeline.start, timeline.end) = (day(60 * 13 + 32), day(0), day(60 * 13 + 32))
        var state = loadedState(columns: columns, rows: 30)
        state.glyphs = .unicode
        let rows = timelineRows(timeline, selected: 1, state, width: columns - 4, timeZone: utc)
        let lane = rows[1].runs.map(\.text).joined()
        let g = TimelineGlyphs.unicode
        #expect(lane.contains(g.grace) && lane.contains(g.billingRetry), "\(lane)")
        #expect(lane.filter { String($0) == g.expired }.count == 13, "\(lane)")
        let scale = TimelineScale(timeline, width: columns - 4 - 21)
        for (from, to) in [(60 * 13 + 30, 60 * 13 + 31), (60 * 13 + 31, 60 * 13 + 32), (30, 60)] {
            #expect(scale.column(day(to)) - scale.column(day(from)) >= 1, "days \(from) to \(to) at \(columns) columns")
        }
    }

    @Test("a week's trial before a year's plan still shows: every stretch gets two columns at least")
    func shortStretchesShow() throws {
        var trial = transaction(monthly, id: 1, expires: day(7))
        (trial.offerType, trial.offerPaymentMode, trial.subscriptionGroupID, trial.productType) = (.introductory, .freeTrial, "premium", .autoRenewable)
        var year = transaction(yearly, id: 2, purchased: day(7), expires: day(372))
        (year.subscriptionGroupID, year.productType) = ("premium", .autoRenewable)
        let timeline = try #require(SubscriptionHistory(groupID: "premium", transactions: [year, trial], status: nil, failures: [],
                                                        expiries: [:], products: demoCatalog.products(in: demoCatalog.storefront("USA")!), now: day(100)))
        let scale = TimelineScale(timeline, width: 60)
        #expect(scale.column(day(7)) - scale.column(day(0)) >= 2)
        #expect(scale.cell(day(0)) == 0 && scale.cell(day(372)) == 59)
        #expect(scale.column(day(50)) < scale.column(day(100)) && scale.column(day(100)) < scale.column(day(200)), "in order")
        #expect(SubscriptionHistory(groupID: "other", transactions: [year, trial], status: nil, failures: [], expiries: [:], products: [],
                                    now: day(1)) == nil)
    }
}
