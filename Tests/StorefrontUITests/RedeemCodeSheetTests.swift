import Foundation
import StoreEngine
import Testing
@testable import StorefrontUI

/// The Redeem Code sheet (o): a field, ⏎ redeems through the engine, what a good code gave, and
/// StoreKit's error on the sheet for a bad one.
@Suite("Redeem Code sheet")
struct RedeemCodeSheetTests {
    func typed(_ text: String, into state: inout State) {
        for character in text { #expect(update(&state, .key(.character(character))).isEmpty) }
    }

    @Test("o opens an empty field; typing, ⌫ and ⏎ edit and redeem; control characters and an empty code do nothing")
    func typing() {
        var state = loadedState()
        #expect(update(&state, .key(.character("o"))).isEmpty)
        #expect(state.sheet == .redeemCode())
        #expect(update(&state, .key(.enter)).isEmpty, "an empty code is not sent")
        typed("FREE3AX", into: &state)
        #expect(update(&state, .key(.backspace)).isEmpty)
        typed("\u{1B}\u{7}", into: &state)
        // q, t and s type into the field rather than quitting or switching screens.
        typed("qts", into: &state)
        #expect(state.sheet == .redeemCode(code: "FREE3Aqts"))
        #expect(state.isRunning && state.screen == .paywall)
        for _ in 0..<3 { send(&state, .key(.backspace), expecting: []) }
        #expect(update(&state, .key(.enter)) == [.redeem(code: "FREE3A")])
        #expect(state.busy == .working("Redeeming FREE3A…"))
        #expect(update(&state, .key(.character("x"))).isEmpty && update(&state, .key(.enter)).isEmpty, "nothing while it redeems")
        #expect(state.sheet == .redeemCode(code: "FREE3A"))
        send(&state, .key(.escape), expecting: [])
        #expect(state.sheet == .redeemCode(code: "FREE3A"), "Esc waits for the answer too")
    }

    @Test("a good code: an alert says the offer and what it gives, and the load that delivers the transaction")
    func success() {
        var state = loadedState()
        send(&state, .key(.character("o")), expecting: [])
        typed("FREE3A", into: &state)
        send(&state, .key(.enter), expecting: [.redeem(code: "FREE3A")])
        let redemption = ActionOutcome.redeemed(code: "FREE3A", .purchased(purchase(yearly), change: nil), product: "Annual Subscription",
                                                offer: "Three months free", terms: "3 months free, then $39.99/year")
        #expect(update(&state, .sheet(.redeemed(code: "FREE3A", .success(redemption)))) == [.load])
        #expect(state.busy == nil)
        guard case .alert(let title, let message)? = state.sheet else { Issue.record("no alert: \(String(describing: state.sheet))"); return }
        #expect(title == "Offer Code Redeemed")
        #expect(message == redemption.sentence, "the engine's sentence, as redeem prints it")
    }

    @Test("a bad code stays on the sheet with StoreKit's error, the code kept to correct; an edit clears the error")
    func failure() {
        var state = loadedState()
        send(&state, .key(.character("o")), expecting: [])
        typed("NOPE", into: &state)
        send(&state, .key(.enter), expecting: [.redeem(code: "NOPE")])
        let error = "Product.PurchaseError.invalidOfferIdentifier: The offer identifier is not valid. (no offer code \"NOPE\" in the catalog)"
        #expect(update(&state, .sheet(.redeemed(code: "NOPE", .failure(CommandFailure(error))))) == [.load], "the log shows the attempt")
        #expect(state.sheet == .redeemCode(code: "NOPE", error: error))
        #expect(sheetText(state).contains("Product.PurchaseError.invalidOfferIdentifier"))
        send(&state, .key(.backspace), expecting: [])
        #expect(state.sheet == .redeemCode(code: "NOP"))
    }

    @Test("drawn at 100×30 and 80×24: the field with its cursor and the buttons; ASCII in the C locale")
    func drawn() {
        for (columns, rows, glyphs) in [(100, 30, Glyphs.unicode), (80, 24, .unicode), (80, 24, .ascii)] {
            var state = loadedState(columns: columns, rows: rows)
            state.glyphs = glyphs
            send(&state, .key(.character("o")), expecting: [])
            typed("FREE3A", into: &state)
            let lines = sheetLines(state)
            #expect(lines.contains { $0.hasPrefix("Code: [ FREE3A_") && $0.hasSuffix("]") }, "\(lines)")
            #expect(lines.contains("[ Redeem \(glyphs.enter) ]   [ Cancel esc ]"))
            if glyphs == .ascii {
                #expect(render(state, timeZone: utc).lines.allSatisfy { $0.unicodeScalars.allSatisfy(\.isASCII) })
            } else {
                #expect(sheetTitle(state) == "Redeem Code")
            }
        }
    }

    @Test("on the engine: a new customer's code gives three months free and arrives as an update; a second use is ineligibleForOffer")
    func onTheEngine() async throws {
        try await withDemoStore { store, _ in
            var (state, engine) = try await enginePaywall(store)
            send(&state, .key(.character("o")), expecting: [])
            typed("free3a", into: &state)
            let effects = update(&state, .key(.enter))
            #expect(effects == [.redeem(code: "free3a")])
            await settle(&state, effects, on: engine)
            guard case .alert(_, let message)? = state.sheet else { Issue.record("no alert"); return }
            #expect(message.contains("Annual Subscription, offer \"Three months free\": 3 months free, then $39.99/year"), "\(message)")
            #expect(state.flash == "Arrived as an update: Annual Subscription")
            #expect(state.snapshot?.owned[yearly]?.offerType == .code)

            let other = try Store(catalog: demoCatalog, path: store.path, account: "other@local")
            var (second, otherEngine) = try await enginePaywall(other)
            send(&second, .key(.character("o")), expecting: [])
            typed("FREE3A", into: &second)
            await settle(&second, update(&second, .key(.enter)), on: otherEngine)
            guard case .redeemCode("FREE3A", let error?)? = second.sheet else { Issue.record("no error: \(String(describing: second.sheet))"); return }
            #expect(error.hasPrefix("Product.PurchaseError.ineligibleForOffer:"), "\(error)")
        }
    }
}
