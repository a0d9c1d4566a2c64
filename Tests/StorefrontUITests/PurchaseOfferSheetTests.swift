import Foundation
@testable import StoreEngine
import Testing
@testable import StorefrontUI

/// The App Store sheet's offers: a promotional offer signed by the paywall (or badly, on purpose),
/// a win-back offer chosen already for a lapsed subscriber who may take it.
@Suite("App Store sheet offers")
struct PurchaseOfferSheetTests {
    /// A snapshot where the account lapsed from the monthly plan and may take its win-back offer.
    func lapsed() -> StoreSnapshot {
        var lapsed = snapshot()
        let ended = purchase(monthly, expires: fixedDate)
        var info = renewalInfo(monthly)
        info.willAutoRenew = false
        info.eligibleWinBackOfferIDs = ["monthly_winback"]
        lapsed.subscriptions["premium"] = SubscriptionStatus(groupID: "premium", state: .expired, transaction: ended, renewalInfo: info)
        return lapsed
    }

    @Test("a product without offers keeps its sheet: no Offer line, ← → the outcome, ↑ ↓ nothing")
    func noOffers() {
        var state = loadedState()
        state.selection = index(of: monthly)
        send(&state, .key(.enter), expecting: [])
        #expect(state.sheet == .confirm(productID: monthly))
        #expect(!sheetText(state).contains("Offer:"))
        #expect(update(&state, .key(.up)).isEmpty)
        send(&state, .key(.right), expecting: [])
        #expect(state.sheet == .confirm(productID: monthly, outcome: .succeed))
    }

    @Test("a promotional offer: ↑ to the Offer line, → chooses it, ↓ the signature's faults; ⏎ buys with both")
    func promotional() {
        var state = loadedState()
        state.selection = index(of: yearly)
        send(&state, .key(.enter), expecting: [])
        #expect(sheetLines(state).contains("Offer: ‹ none ›"))
        #expect(sheetLines(state).contains("▸ Outcome: ‹ as the settings say ›"))
        send(&state, .key(.up), expecting: [])
        send(&state, .key(.right), expecting: [.predictOffer(OfferAttempt(productID: yearly, offerID: "annual_comeback"))])
        let chosen = OfferSelection(offer: .promotional(id: "annual_comeback"), focus: .offer)
        #expect(state.sheet == .confirm(productID: yearly, offer: chosen))
        #expect(sheetText(state).contains("Promotional offer: $29.99 for 1 year, then $39.99/year"))
        #expect(sheetLines(state).contains("Signature: ‹ valid ›"))
        send(&state, .key(.down), expecting: [])
        for flaw in signatureFlaws[1...2] {
            send(&state, .key(.right), expecting: [.predictOffer(OfferAttempt(productID: yearly, offerID: "annual_comeback", flaw: flaw))])
        }
        #expect(sheetLines(state).contains("▸ Signature: ‹ stale (made 25 hours ago) ›"))
        // ← → on the outcome still choose the outcome.
        send(&state, .key(.down), expecting: [])
        send(&state, .key(.right), expecting: [])
        #expect(update(&state, .key(.enter)) == [.purchase(productID: yearly, outcome: .succeed, offer: .promotional(id: "annual_comeback", flaw: .stale))])
        #expect(state.busy == .purchasing(productID: yearly))
    }

    @Test("the offers cycle round: none, each promotional offer, back to none; the signature line goes with it")
    func cycling() {
        var state = loadedState()
        state.selection = index(of: yearly)
        send(&state, .key(.enter), expecting: [])
        send(&state, .key(.up), expecting: [])
        send(&state, .key(.left), expecting: [.predictOffer(OfferAttempt(productID: yearly, offerID: "annual_comeback"))])
        guard case .confirm(_, _, let selection)? = state.sheet else { Issue.record("no sheet"); return }
        #expect(selection.offer == .promotional(id: "annual_comeback"), "← from none wraps to the last offer")
        send(&state, .key(.right), expecting: [])
        #expect(!sheetText(state).contains("Signature"))
        #expect(update(&state, .key(.enter)) == [.purchase(productID: yearly, offer: nil)])
    }

    @Test("a lapsed subscriber's Buy offers the win-back offer, chosen; Esc is still userCancelled without it")
    func winBack() {
        var state = loadedState(snapshot: lapsed())
        state.selection = index(of: monthly)
        send(&state, .key(.enter), expecting: [])
        #expect(state.sheet == .confirm(productID: monthly, offer: OfferSelection(offer: .winBack(id: "monthly_winback"), focus: .offer)))
        #expect(sheetLines(state).contains("▸ Offer: ‹ win-back monthly_winback ›"))
        #expect(sheetText(state).contains("Win-back offer: $1.99/month for 3 months, then $4.99/month"))
        #expect(update(&state, .key(.enter)) == [.purchase(productID: monthly, offer: .winBack(id: "monthly_winback"))])
        state.busy = nil
        send(&state, .key(.enter), expecting: [])
        send(&state, .key(.right), expecting: [])
        #expect(update(&state, .key(.enter)) == [.purchase(productID: monthly, offer: nil)], "the tester chose none")
        state.busy = nil
        send(&state, .key(.enter), expecting: [])
        #expect(update(&state, .key(.escape)) == [.purchase(productID: monthly, outcome: .cancel)])
    }

    @Test("drawn at 80×24 with every line: offer, signature, outcome and conditions inside the sheet; ASCII")
    func drawnSmall() {
        for glyphs in [Glyphs.unicode, .ascii] {
            var state = loadedState(columns: 80, rows: 24)
            state.glyphs = glyphs
            state.selection = index(of: yearly)
            send(&state, .key(.enter), expecting: [])
            send(&state, .key(.up), expecting: [])
            send(&state, .key(.right), expecting: [.predictOffer(OfferAttempt(productID: yearly, offerID: "annual_comeback"))])
            let text = sheetText(state)
            #expect(text.contains("Offer: \(glyphs.left) promotional annual_comeback \(glyphs.right)"), "\(text)")
            #expect(text.contains("Signature: \(glyphs.left) valid \(glyphs.right)"))
            #expect(text.contains("Outcome:") && text.contains("[ Confirm \(glyphs.enter) ]"))
            if glyphs == .ascii { #expect(render(state).lines.allSatisfy { $0.unicodeScalars.allSatisfy(\.isASCII) }) }
        }
    }

    @Test("on the engine: signed with the store's key it is bought at the offer's price; each fault is invalidOfferSignature; no key says how to make one")
    func onTheEngine() async throws {
        try await withDemoStore { store, _ in
            _ = try await store.app.buy(monthly)
            try await store.appStore.expireSubscription(groupID: "premium")
            var (state, engine) = try await enginePaywall(store)
            func buy(_ flaw: PromotionalOfferSignature.Flaw?) async -> Sheet? {
                state.sheet = .confirm(productID: yearly, offer: OfferSelection(offer: .promotional(id: "annual_comeback", flaw: flaw)))
                await settle(&state, update(&state, .key(.enter)), on: engine)
                return state.sheet
            }
            guard case .alert("Cannot Sign the Offer", let message)? = await buy(nil) else { Issue.record("signed without a key"); return }
            #expect(message.contains("`storefront offer-keys create` makes one"))
            _ = try await store.appStore.createOfferKey(keyID: "OFFERKEY")
            for flaw in PromotionalOfferSignature.Flaw.allCases {
                guard case .alert("Purchase Failed", let failure)? = await buy(flaw) else { Issue.record("\(flaw) bought"); continue }
                #expect(failure.hasPrefix("Product.PurchaseError.invalidOfferSignature:"), "\(flaw): \(failure)")
                state.sheet = nil
            }
            #expect(await buy(nil) == nil)
            #expect(state.snapshot?.owned[yearly]?.offerType == .promotional)
            #expect(state.snapshot?.owned[yearly]?.price == Decimal(string: "29.99"))
        }
    }

    @Test("the sheet asks the engine once for each attempt it shows, again when the store changes, and shows only that attempt's answer")
    func predictionIsAskedPerAttempt() {
        var state = loadedState()
        state.selection = index(of: yearly)
        #expect(!update(&state, .key(.enter)).contains { if case .predictOffer = $0 { true } else { false } }, "no offer chosen: nothing to ask")
        #expect(update(&state, .key(.up)).isEmpty)
        let valid = OfferAttempt(productID: yearly, offerID: "annual_comeback")
        #expect(update(&state, .key(.right)) == [.predictOffer(valid)])
        #expect(!update(&state, .tick).contains(.predictOffer(valid)), "asked once, not at every tick")
        // The answer about another attempt (a fault chosen since) is not this one's.
        let stale = OfferAttempt(productID: yearly, offerID: "annual_comeback", flaw: .stale)
        let refused = OfferRefusal.refused(.purchaseError(.invalidOfferSignature, reason: "the signature is stale"))
        #expect(update(&state, .sheet(.offerPredicted(stale, refused))).isEmpty)
        #expect(!sheetText(state).contains("fails with"), "\(sheetText(state))")
        let ineligible = OfferRefusal.refused(.purchaseError(.ineligibleForOffer, reason: "for subscribers"))
        #expect(update(&state, .sheet(.offerPredicted(valid, ineligible))).isEmpty)
        #expect(sheetText(state).contains("fails with ineligibleForOffer: The account is not eligible for the offer. (for subscribers)"), "\(sheetText(state))")
        // Another fault: asked; the store changed: asked again, the last answer shown meanwhile.
        #expect(update(&state, .key(.down)).isEmpty)
        #expect(update(&state, .key(.right)) == [.predictOffer(OfferAttempt(productID: yearly, offerID: "annual_comeback", flaw: signatureFlaws[1]))])
        #expect(update(&state, .key(.left)).isEmpty, "back to the attempt answered already")
        #expect(update(&state, .loaded(snapshot())).contains(.predictOffer(valid)))
        #expect(sheetText(state).contains("fails with ineligibleForOffer"))
        // Closed when the store changes: the answer is forgotten, and asked again at the next opening.
        state.sheet = nil
        #expect(!update(&state, .loaded(snapshot())).contains { if case .predictOffer = $0 { true } else { false } })
        #expect(state.offerPrediction == OfferPrediction())
    }

    @Test("the sheet predicts what Confirm does with a promotional offer: no key, a new customer, each fault, a lapsed subscriber")
    func predictionIsThePurchase() async throws {
        try await withDemoStore { store, _ in
            var (state, engine) = try await enginePaywall(store)
            /// The sheet's prediction (the line after the outcome), then what Confirm did: the alert's title, or nil when bought.
            func attempt(_ flaw: PromotionalOfferSignature.Flaw?) async -> (prediction: String, result: String?) {
                state.sheet = .confirm(productID: yearly, offer: OfferSelection(offer: .promotional(id: "annual_comeback", flaw: flaw)))
                // The sheet asks the engine what Confirm meets with the attempt it now shows.
                let asked = update(&state, .tick)
                #expect(asked.contains(.predictOffer(OfferAttempt(productID: yearly, offerID: "annual_comeback", flaw: flaw))), "\(asked)")
                await settle(&state, asked, on: engine)
                let lines = sheetLines(state)
                let prediction = lines.drop { !$0.contains("Outcome:") }.dropFirst().prefix { !$0.contains("Confirm") }
                    .joined(separator: " ")
                await settle(&state, update(&state, .key(.enter)), on: engine)
                guard case .alert(let title, let message)? = state.sheet else { return (prediction, nil) }
                state.sheet = nil
                return (prediction, "\(title): \(message)")
            }
            let unsigned = await attempt(nil)
            #expect(unsigned.prediction.contains("cannot be signed: No offer key"), "\(unsigned.prediction)")
            #expect(unsigned.result?.hasPrefix("Cannot Sign the Offer") == true, "\(unsigned.result ?? "bought")")
            _ = try await store.appStore.createOfferKey(keyID: "OFFERKEY")
            await settle(&state, [.load], on: engine)
            // Never subscribed to the group: the purchase refuses the offer, and the sheet says so first.
            let newCustomer = await attempt(nil)
            #expect(newCustomer.prediction.contains("fails with ineligibleForOffer"), "\(newCustomer.prediction)")
            #expect(newCustomer.result?.contains("ineligibleForOffer") == true, "\(newCustomer.result ?? "bought")")
            _ = try await store.app.buy(monthly)
            try await store.appStore.expireSubscription(groupID: "premium")
            await settle(&state, [.load], on: engine)
            for flaw in PromotionalOfferSignature.Flaw.allCases {
                let flawed = await attempt(flaw)
                #expect(flawed.prediction.contains("fails with invalidOfferSignature"), "\(flaw): \(flawed.prediction)")
                #expect(flawed.result?.contains("invalidOfferSignature") == true, "\(flaw): \(flawed.result ?? "bought")")
                await settle(&state, [.load], on: engine)
            }
            let lapsed = await attempt(nil)
            #expect(lapsed.prediction.contains("succeeds"), "\(lapsed.prediction)")
            #expect(lapsed.result == nil, "\(lapsed.result ?? "")")
        }
    }
}
