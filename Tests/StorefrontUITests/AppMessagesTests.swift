import Foundation
@testable import StoreEngine
import Testing
@testable import StorefrontUI

/// The App Store's messages in the paywall: shown at once as a device's sheet (or deferred, as an app
/// may choose), each once, never over another sheet or screen; m lists those not shown.
@Suite("App Store messages")
struct AppMessagesTests {
    func message(_ id: Int64, _ reason: MessageReason, productID: String? = nil, offerID: String? = nil,
                 state: StoreMessage.State = .pending) -> StoreMessage {
        StoreMessage(id: id, account: Store.defaultAccount, reason: reason, productID: productID, offerID: offerID,
                     created: fixedDate, state: state)
    }

    func with(_ messages: [StoreMessage]) -> StoreSnapshot {
        var withMessages = snapshot()
        withMessages.messages = messages
        return withMessages
    }

    @Test("shown at once: the first message's sheet, then the next once it is closed; each once")
    func showNow() {
        var state = loadedState()
        let billing = message(1, .billingIssue, productID: monthly)
        let generic = message(2, .generic)
        #expect(update(&state, .loaded(with([billing, generic]))) == [.displayMessage(1)])
        #expect(state.sheet == .message(billing))
        #expect(sheetTitle(state) == "Billing Problem")
        #expect(sheetText(state).contains("There is a problem with your current payment method. To avoid interruptions to your "
                                          + "subscriptions and purchases, update your payment method."))
        #expect(update(&state, .key(.escape)) == [.displayMessage(2)], "the next one follows when the sheet closes")
        #expect(state.sheet == .message(generic))
        #expect(update(&state, .key(.enter)).isEmpty)
        #expect(update(&state, .loaded(with([billing, generic]))).isEmpty, "handled already this run")
    }

    @Test("a message waits while another sheet is open, a search is typed or another screen shows")
    func waits() {
        var state = loadedState()
        send(&state, .key(.character("?")), expecting: [])
        let generic = message(3, .generic)
        #expect(update(&state, .loaded(with([generic]))).isEmpty)
        #expect(state.sheet == .help)
        send(&state, .key(.character("t")), expecting: [])   // help's keys: t does nothing there
        #expect(update(&state, .key(.escape)) == [.displayMessage(3)])

        state = loadedState(on: .transactions)
        #expect(update(&state, .loaded(with([message(4, .generic)]))).isEmpty)
        #expect(update(&state, .key(.character("p"))) == [.displayMessage(4)], "back on the paywall")
    }

    @Test("deferred: each new message is held (deferMessage) and said on the status line; m lists them, ⏎ shows one")
    func deferred() {
        var state = loadedState()
        send(&state, .key(.character("m")), expecting: [])
        #expect(state.sheet == .messages(selection: 0))
        #expect(sheetText(state).contains("When one arrives: ‹ show it now ›"))
        #expect(sheetText(state).contains("No message waiting."))
        send(&state, .key(.right), expecting: [])
        #expect(state.messages.policy == .deferred)
        send(&state, .key(.escape), expecting: [])
        let billing = message(1, .billingIssue, productID: monthly)
        let held = message(2, .generic, state: .deferred)
        #expect(update(&state, .loaded(with([billing, held]))) == [.deferMessage(1)], "one deferred before is not deferred again")
        #expect(state.sheet == nil)
        #expect(state.flash == "2 messages from the App Store deferred: m shows them")
        send(&state, .key(.character("m")), expecting: [])
        let lines = sheetLines(state)
        #expect(lines.contains("▸ billingIssue · Monthly Subscription · deferred"), "\(lines)")
        #expect(lines.contains("generic · deferred"))
        send(&state, .key(.down), expecting: [])
        #expect(update(&state, .key(.enter)) == [.displayMessage(2)])
        #expect(state.sheet == .message(held))
    }

    @Test("Billing Problem's Continue updates the payment method; a win-back message's Subscribe opens the App Store sheet with it")
    func actions() {
        var state = loadedState(snapshot: with([message(1, .billingIssue, productID: monthly)]))
        #expect(update(&state, .key(.enter)) == [.run(.updatePaymentMethod)])

        state = loadedState(snapshot: with([message(2, .winBackOffer, productID: monthly, offerID: "monthly_winback")]))
        #expect(sheetTitle(state) == "Come Back to Monthly Subscription")
        #expect(sheetText(state).contains("Resubscribe with this offer: $1.99/month for 3 months, then $4.99/month."))
        #expect(update(&state, .key(.enter)).isEmpty)
        #expect(state.selectedProduct?.id == monthly)
        #expect(state.sheet == .confirm(productID: monthly, offer: OfferSelection(offer: .winBack(id: "monthly_winback"), focus: .offer)))
    }

    @Test("each sheet fits 80×24 and 60×16 with its buttons; ASCII in the C locale")
    func fits() {
        let all = [message(1, .billingIssue, productID: monthly), message(2, .winBackOffer, productID: monthly, offerID: "monthly_winback"),
                   message(3, .generic), message(4, .priceIncreaseConsent, productID: monthly)]
        for (columns, rows) in [(80, 24), (60, 16)] {
            for shown in all {
                var state = loadedState(columns: columns, rows: rows, snapshot: with([shown]))
                #expect(sheetText(state).contains("[ "), "\(shown.reason) at \(columns)×\(rows): no buttons")
                state.glyphs = .ascii
                #expect(render(state).lines.allSatisfy { $0.unicodeScalars.allSatisfy(\.isASCII) })
            }
        }
    }

    @Test("catalog text on a message's sheet never reaches the terminal as control sequences")
    func sanitized() {
        var hostile = with([message(1, .winBackOffer, productID: monthly, offerID: "monthly_winback")])
        let at = hostile.products.firstIndex { $0.id == monthly }!
        hostile.products[at].displayName = "Monthly\u{1B}[2J\u{202E}Plan"
        let state = loadedState(snapshot: hostile)
        let lines = render(state, timeZone: utc).lines
        #expect(lines.allSatisfy { !$0.unicodeScalars.contains { $0 == "\u{1B}" || $0 == "\u{202E}" } })
        #expect(sheetText(state).contains("Monthly\\e[2J"), "\(sheetText(state))")
    }

    @Test("on the engine: a failed renewal's Billing Problem shows at load; Continue renews the subscription")
    func onTheEngine() async throws {
        try await withDemoStore { store, clock in
            _ = try await store.app.buy(monthly)
            try await store.testSession.setSetting("billingIssues", to: "true")
            clock.set(fixedDate.addingTimeInterval(8 * 86_400))
            _ = try await store.appStore.processRenewals()
            var (state, engine) = try await enginePaywall(store)
            #expect(sheetTitle(state) == "Billing Problem")
            await settle(&state, update(&state, .key(.enter)), on: engine)
            #expect(try await store.app.subscriptionStatuses().first?.state == .subscribed)
            #expect(state.sheet == nil)

            // The app that defers: held in the store, and shown again at the next launch.
            _ = try await store.testSession.sendMessage(.generic)
            let (deferring, _) = try await enginePaywall(store, policy: .deferred)
            #expect(deferring.sheet == nil)
            #expect(try await store.app.messages().last?.state == .deferred)
            let (relaunched, _) = try await enginePaywall(store)
            #expect(relaunched.sheet.map { if case .message(let shown) = $0 { shown.reason == .generic } else { false } } == true)
        }
    }
}
