import Foundation
@testable import StoreEngine
import Testing
@testable import StorefrontUI

/// The price increase consent sheet: shown when its message arrives (or from m while the increase
/// waits), old → new price and from when; Agree consents, Cancel Subscription declines, Not Now waits.
@Suite("price increase consent sheet")
struct PriceIncreaseSheetTests {
    static let renewal = Date(timeIntervalSince1970: 1_799_366_400)  // 2027-01-08

    /// A subscriber of the monthly plan with an increase to $9.99 that needs consent, and its message.
    func waiting(message: Bool = true) -> StoreSnapshot {
        let bought = purchase(monthly, expires: Self.renewal)
        var waiting = snapshot(owned: [bought])
        // The renewal info says it waits (`priceIncreaseStatus` pending): the row's words are the engine's.
        var info = renewalInfo(monthly)
        (info.priceIncreaseStatus, info.renewalPrice) = (.pending, Decimal(string: "9.99")!)
        waiting.subscriptions["premium"] = SubscriptionStatus(groupID: "premium", state: .subscribed, transaction: bought, renewalInfo: info)
        waiting.priceIncreases = [PriceIncrease(
            account: Store.defaultAccount, groupID: "premium", originalTransactionID: 2_000_000_001, changeID: 1, productID: monthly,
            storefront: "USA", oldPrice: Decimal(string: "4.99")!, newPrice: Decimal(string: "9.99")!, requiresConsent: true,
            notified: fixedDate, noticeEnds: fixedDate.addingTimeInterval(27 * 86_400), status: .pending, effectiveDate: Self.renewal)]
        if message {
            waiting.messages = [StoreMessage(id: 7, account: Store.defaultAccount, reason: .priceIncreaseConsent, productID: monthly,
                                             offerID: nil, created: fixedDate, state: .pending)]
        }
        return waiting
    }

    @Test("its message arriving opens the consent sheet and marks the message shown; the row says consent is needed")
    func arrives() {
        var state = loadedState()
        #expect(update(&state, .loaded(waiting())) == [.displayMessage(7)])
        #expect(state.sheet == .priceIncrease(productID: monthly))
        let text = sheetText(state)
        #expect(sheetTitle(state) == "Subscription Price Increase")
        #expect(text.contains("$4.99/month → $9.99/month"), "\(text)")
        #expect(text.contains("⏎ → Agreed: Monthly Subscription renews at $9.99/month from Jan 8, 2027."), "\(text)")
        #expect(text.contains("x → Declined the new price of Monthly Subscription: auto-renew is off; it ends at the period's end."))
        #expect(text.contains("esc → Not now: it waits (m opens it again); not agreed by Jan 8, 2027, the subscription ends then."))
        #expect(text.contains("[ Agree ⏎ ]   [ Not Now esc ]   [ Cancel Subscription x ]"))
        #expect(statusText(state.products[index(of: monthly)], state).hasSuffix("· price increase pending, renews at $9.99 (m)"))
        #expect(update(&state, .loaded(waiting())).isEmpty, "handled once: the next load does not show it again")
    }

    /// Found by the parity walk (issue 40): the paywall's own "New price needs consent (m)" stood in
    /// place of the engine's words on rows the increase is not the current plan of ("Starts …", "Refunded").
    @Test("a row whose plan is not the one the increase waits on keeps the engine's words; the key follows them")
    func consentOnlyOnTheCurrentPlan() {
        var downgrading = waiting(message: false)
        let annual = purchase(yearly, expires: Self.renewal)
        var info = renewalInfo(yearly)
        info.autoRenewPreference = monthly
        downgrading.owned = [yearly: annual]
        downgrading.subscriptions["premium"] = SubscriptionStatus(groupID: "premium", state: .subscribed, transaction: annual, renewalInfo: info)
        let state = loadedState(snapshot: downgrading)
        #expect(statusText(state.products[index(of: monthly)], state) == "Starts Jan 8, 2027")
        let current = loadedState(snapshot: waiting(message: false))
        #expect(statusText(current.products[index(of: monthly)], current) == "Renews Jan 8, 2027 · price increase pending, renews at $9.99 (m)")
    }

    /// Tester's day, finding 7: at 100 columns the status was cut to about 30 cells and lost "(m)",
    /// the key the row points to; the words are cut, the key stays.
    @Test("a row whose status is cut keeps its key at the end", arguments: [80, 100, 120])
    func keyStaysWhenCut(columns: Int) {
        let state = loadedState(columns: columns, rows: 30, snapshot: waiting(message: false))
        let row = render(state).lines.first { $0.contains("Monthly Subscription") && $0.contains("Renews") }
        #expect(row?.trimmingCharacters(in: .whitespaces).hasSuffix("(m)") == true || row?.contains("(m) ") == true,
                "\(row ?? "no row")")
    }

    @Test("Agree consents, x (or its button) cancels the subscription, Not Now leaves it waiting for m")
    func answers() {
        var state = loadedState(snapshot: waiting())
        #expect(update(&state, .key(.enter)) == [.run(.consentToPriceIncrease(productID: monthly))])
        #expect(state.sheet == nil && state.busy == .working("Agreeing to the new price…"))

        state = loadedState(snapshot: waiting())
        #expect(update(&state, .click(.sheetKey("x"))) == [.run(.declinePriceIncrease(productID: monthly))])

        state = loadedState(snapshot: waiting())
        #expect(update(&state, .key(.escape)).isEmpty)
        #expect(state.sheet == nil)
        #expect(state.flash == "The new price of Monthly Subscription waits for consent: m shows it again")
        // Whole on the status line at 80 columns (it lost its last two characters there).
        var narrow = state
        narrow.size = Size(columns: 80, rows: 24)
        #expect(render(narrow).lines.contains { $0.contains("waits for consent: m shows it again") }, "\(render(narrow).lines)")
        var shown = waiting(message: false)
        shown.messages = []
        send(&state, .loaded(shown), expecting: [])
        send(&state, .key(.character("m")), expecting: [])
        #expect(sheetText(state).contains("price increase · Monthly Subscription · waits for consent"))
        #expect(update(&state, .key(.enter)).isEmpty)
        #expect(state.sheet == .priceIncrease(productID: monthly))
    }

    /// Tester's day, finding 6: after Not Now the m list said the message was "deferred" while
    /// `storefront messages` said "displayed" (the store marks a shown message displayed).
    @Test("a message shown and put off with Not Now is the increase waiting in m, as the store has it, before any reload")
    func shownIsNotDeferred() {
        var state = loadedState()
        #expect(update(&state, .loaded(waiting())) == [.displayMessage(7)])
        #expect(update(&state, .key(.escape)).isEmpty)
        #expect(update(&state, .key(.character("m"))).isEmpty)
        let text = sheetText(state)
        #expect(text.contains("price increase · Monthly Subscription · waits for consent"), "\(text)")
        #expect(!text.contains("deferred"), "\(text)")
    }

    @Test("at 60×16 the three buttons take two lines and the prices stay; in the C locale it is ASCII")
    func small() {
        var state = loadedState(columns: 60, rows: 16, snapshot: waiting())
        let lines = sheetLines(state)
        #expect(lines.contains("$4.99/month → $9.99/month"))
        #expect(lines.contains("[ Agree ⏎ ]   [ Not Now esc ]") && lines.contains("[ Cancel Subscription x ]"), "\(lines)")
        state.glyphs = .ascii
        #expect(sheetLines(state).contains("$4.99/month -> $9.99/month"))
        #expect(render(state).lines.allSatisfy { $0.unicodeScalars.allSatisfy(\.isASCII) })
    }

    /// A month after buying the monthly plan its price went up to $9.99 with consent: the paywall on that store.
    func consentWaits(_ store: Store, _ clock: StepClock) async throws -> (State, EngineEffects) {
        _ = try await store.app.buy(monthly)
        clock.set(fixedDate.addingTimeInterval(8 * 86_400))  // a paid month since Dec 8
        _ = try await store.appStore.processRenewals()
        _ = try await store.appStore.changePrice(monthly, to: Decimal(string: "9.99")!, requireConsent: true)
        return try await enginePaywall(store)
    }

    @Test("on the engine: the message of a consent-required increase opens the sheet; Agree makes it agreed")
    func onTheEngine() async throws {
        try await withDemoStore { store, clock in
            var (state, engine) = try await consentWaits(store, clock)
            #expect(state.sheet == .priceIncrease(productID: monthly))
            #expect(try await store.app.messages().allSatisfy { $0.state == .displayed }, "shown, so not shown again")
            await settle(&state, update(&state, .key(.enter)), on: engine)
            #expect(state.flash?.hasPrefix("Agreed: Monthly Subscription renews at $9.99/month from") == true, "\(state.flash ?? "")")
            #expect(try await store.app.renewalInfo()["premium"]?.priceIncreaseStatus == .agreed)
        }
    }

    /// The sheet worked out "from DATE" and the prices itself; Agree's note came from the engine. Now
    /// each answer's line is the sentence that answer reports, from the engine's values.
    @Test("on the engine: the sheet's Agree and Cancel Subscription lines are the notes those answers then show",
          arguments: [(Key.enter, "⏎ → Agreed: Monthly Subscription renews at $9.99/month from"),
                      (Key.character("x"), "x → Declined the new price of Monthly Subscription:")])
    func linesAreTheAnswers(key: Key, line: String) async throws {
        try await withDemoStore { store, clock in
            var (state, engine) = try await consentWaits(store, clock)
            #expect(state.sheet == .priceIncrease(productID: monthly))
            let shown = sheetText(state)
            #expect(shown.contains(line), "\(shown)")
            await settle(&state, update(&state, .key(key)), on: engine)
            let said = try #require(state.flash)
            #expect(shown.contains(String(line.prefix { $0 != " " }) + " → " + said), "sheet: \(shown)\nnote: \(said)")
        }
    }
}
