import Foundation
@testable import StoreEngine
import Testing
@testable import StorefrontUI

/// The refund request sheet (b): the customer's reason, submitted as the app's
/// Transaction.beginRefundRequest; the rows say "Refund requested" until the App Store decides.
@Suite("refund request sheet")
struct RefundRequestSheetTests {
    func request(_ id: Int64, _ status: RefundRequest.Status) -> RefundRequest {
        RefundRequest(transactionID: id, account: Store.defaultAccount, reason: .fulfillmentIssue, requestDate: fixedDate, status: status)
    }

    @Test("b on an owned row opens the sheet on its transaction; ↑ ↓ choose the reason, ⏎ submits it, Esc is userCancelled")
    func paywall() {
        let owned = purchase(swiftShopping, id: 2_000_000_005)
        var state = loadedState(snapshot: snapshot(owned: [owned]))
        state.selection = index(of: swiftShopping)
        #expect(update(&state, .key(.character("b"))) == [.previewRefundRequest(transactionID: owned.id)])
        #expect(state.sheet == .refundRequest(transactionID: owned.id, productID: swiftShopping, reason: .unintendedPurchase))
        #expect(sheetTitle(state) == "Request a Refund")
        #expect(sheetLines(state).contains { $0.hasPrefix("▸ unintendedPurchase") && $0.hasSuffix("I didn't mean to buy it") })
        send(&state, .key(.down), expecting: [])
        send(&state, .key(.up), expecting: [])
        send(&state, .key(.up), expecting: [])
        #expect(state.sheet == .refundRequest(transactionID: owned.id, productID: swiftShopping, reason: .other), "round from the first to the last")
        send(&state, .key(.down), expecting: [])
        send(&state, .key(.down), expecting: [])
        #expect(update(&state, .key(.enter)) == [.run(.requestRefund(owned.id, reason: .fulfillmentIssue))])
        #expect(state.busy == .working("Requesting a refund of \(owned.id)…"))

        state = loadedState(snapshot: snapshot(owned: [owned]))
        state.selection = index(of: swiftShopping)
        send(&state, .key(.character("b")), expecting: [.previewRefundRequest(transactionID: owned.id)])
        #expect(update(&state, .key(.escape)).isEmpty)
        #expect(state.flash == "Refund request for Swift Shopping cancelled (userCancelled): nothing asked")

        state.selection = index(of: iPhoneRage)
        #expect(update(&state, .key(.character("b"))).isEmpty)
        #expect(state.sheet == nil && state.flash == "iPhone Rage: no purchase to ask a refund for (t lists every transaction)")
    }

    @Test("in the Transaction Manager b asks about the selected transaction, whatever it is: the engine decides")
    func manager() {
        var state = loadedState(on: .transactions)
        let history = [transaction(coins, id: 2_000_000_003), transaction(swiftShopping, id: 2_000_000_002, refunded: true)]
        send(&state, .manager(.historyLoaded(history)), expecting: [])
        send(&state, .key(.character("b")), expecting: [.previewRefundRequest(transactionID: 2_000_000_003)])
        #expect(state.sheet == .refundRequest(transactionID: 2_000_000_003, productID: coins, reason: .unintendedPurchase))
        send(&state, .key(.escape), expecting: [])
        send(&state, .key(.down), expecting: [])
        send(&state, .key(.character("b")), expecting: [.previewRefundRequest(transactionID: 2_000_000_002)])
        #expect(state.sheet == .refundRequest(transactionID: 2_000_000_002, productID: swiftShopping, reason: .unintendedPurchase),
                "a refunded one too: Apple's failed error says why")
    }

    @Test("the rows say Refund requested, then Refund declined with a note when the App Store declines")
    func rows() {
        let owned = purchase(swiftShopping, id: 2_000_000_005)
        var asked = snapshot(owned: [owned])
        asked.refundRequests = [owned.id: request(owned.id, .pending)]
        var state = loadedState(snapshot: asked)
        #expect(statusText(state.products[index(of: swiftShopping)], state) == "Owned · Refund requested")
        send(&state, .key(.character("t")), expecting: [.loadHistory])
        send(&state, .manager(.historyLoaded([owned])), expecting: [])
        #expect(render(state, timeZone: utc).lines.contains { $0.contains("2000000005") && $0.contains("refund requested") })
        var declined = asked
        declined.refundRequests = [owned.id: request(owned.id, .declined)]
        send(&state, .loaded(declined), expecting: [])
        #expect(state.flash == "The App Store declined the refund request for Swift Shopping (REFUND_DECLINED)")
        #expect(render(state, timeZone: utc).lines.contains { $0.contains("2000000005") && $0.contains("refund declined") })
        #expect(statusText(state.products[index(of: swiftShopping)], state) == "Owned · Refund declined")
    }

    @Test("fits 80×24 and 60×16 with every reason and its buttons; ASCII in the C locale")
    func fits() {
        let owned = purchase(swiftShopping, id: 2_000_000_005)
        for (columns, rows) in [(80, 24), (60, 16)] {
            var state = loadedState(columns: columns, rows: rows, snapshot: snapshot(owned: [owned]))
            state.selection = index(of: swiftShopping)
            send(&state, .key(.character("b")), expecting: [.previewRefundRequest(transactionID: owned.id)])
            let text = sheetText(state)
            for reason in RefundRequestReason.allCases { #expect(text.contains(reason.rawValue), "\(columns)×\(rows): \(reason)") }
            #expect(text.contains("[ Submit ⏎ ]   [ Cancel esc ]"))
            state.glyphs = .ascii
            #expect(render(state).lines.allSatisfy { $0.unicodeScalars.allSatisfy(\.isASCII) })
        }
    }

    @Test("on the engine: submitted, requested; approved in another process, refunded as an update; a second request is duplicateRequest")
    func onTheEngine() async throws {
        try await withDemoStore { store, _ in
            let bought = try await store.app.buy(swiftShopping)
            let id = try #require(bought.outcome.transaction?.id)
            var (state, engine) = try await enginePaywall(store)
            state.selection = index(of: swiftShopping)
            send(&state, .key(.character("b")), expecting: [.previewRefundRequest(transactionID: id)])
            await settle(&state, update(&state, .key(.enter)), on: engine)
            #expect(state.flash == "Asked for a refund of transaction \(id) (Swift Shopping), unintendedPurchase: the App Store decides "
                    + "(refund-request approve \(id), or decline \(id)).")
            #expect(statusText(state.products[index(of: swiftShopping)], state) == "Owned · Refund requested")

            _ = try await store.appStore.approveRefundRequest(id)
            await settle(&state, [.load], on: engine)
            #expect(state.flash == "Arrived as an update: Swift Shopping (refunded)")
            #expect(state.snapshot?.owned[swiftShopping] == nil)

            state.screen = .transactions
            await settle(&state, [.loadHistory], on: engine)
            state.manager.selection = try #require(state.manager.transactions?.firstIndex { $0.id == id })
            send(&state, .key(.character("b")), expecting: [.previewRefundRequest(transactionID: id)])
            await settle(&state, update(&state, .key(.enter)), on: engine)
            guard case .alert(_, let message)? = state.sheet else { Issue.record("no alert"); return }
            #expect(message.hasPrefix("Transaction.RefundRequestError.duplicateRequest"), "\(message)")
        }
    }

    @Test("the sheet asks the engine what Submit does when it opens, again after a load, shows only its transaction's answer and drops a stale one")
    func predictionIsAskedPerOpening() {
        let owned = purchase(swiftShopping, id: 2_000_000_005)
        var state = loadedState(snapshot: snapshot(owned: [owned]))
        state.selection = index(of: swiftShopping)
        #expect(update(&state, .key(.character("b"))) == [.previewRefundRequest(transactionID: owned.id)])
        #expect(sheetText(state).contains("Submit: asking the App Store..."), "\(sheetText(state))")
        #expect(update(&state, .key(.down)).isEmpty, "asked once, not with every key")
        #expect(update(&state, .tick).isEmpty)
        // An answer about another transaction is not this sheet's.
        let elsewhere = RefundRequestPreview.requested(transactionID: 7, status: .approved)
        #expect(update(&state, .sheet(.refundRequestPreviewed(transactionID: 7, elsewhere))).isEmpty)
        #expect(!sheetText(state).contains("approved at once") && sheetText(state).contains("asking the App Store"))
        let approved = RefundRequestPreview.requested(transactionID: owned.id, status: .approved)
        #expect(update(&state, .sheet(.refundRequestPreviewed(transactionID: owned.id, approved))).isEmpty)
        #expect(sheetText(state).contains(
            "Submit: approved at once (refundRequestOutcome approve): refunded; the app gets the revocation as an update."), "\(sheetText(state))")
        // The store changed under the open sheet: asked again, the last answer shown meanwhile.
        #expect(update(&state, .loaded(snapshot(owned: [owned]))) == [.previewRefundRequest(transactionID: owned.id)])
        #expect(sheetText(state).contains("approved at once"))
        // Closed, then the store changes: forgotten; an answer arriving after that is dropped; the next opening asks again.
        send(&state, .key(.escape), expecting: [])
        send(&state, .loaded(snapshot(owned: [owned])), expecting: [])
        #expect(state.refundRequestPrediction == SheetPrediction())
        send(&state, .sheet(.refundRequestPreviewed(transactionID: owned.id, approved)), expecting: [])
        #expect(state.refundRequestPrediction == SheetPrediction(), "a stale answer is dropped")
        #expect(update(&state, .key(.character("b"))) == [.previewRefundRequest(transactionID: owned.id)])
        #expect(sheetText(state).contains("Submit: asking the App Store..."))
        let refused = RefundRequestPreview.refused(.duplicateRequest(transactionID: owned.id))
        send(&state, .sheet(.refundRequestPreviewed(transactionID: owned.id, refused)), expecting: [])
        #expect(sheetText(state).contains("Submit fails: Transaction.RefundRequestError.duplicateRequest: a refund of transaction "
                                          + "\(owned.id) was requested before"), "\(sheetText(state))")
    }

    @Test("the sheet predicts what Submit does: the App Store waits, approves or declines at once as refundRequestOutcome says, a second request, offline")
    func predictionIsTheRequest() async throws {
        try await withDemoStore { store, _ in
            var ids: [Int64] = []
            for product in [swiftShopping, iPhoneRage, seasonPass] { ids.append(try #require(try await store.app.buy(product).outcome.transaction).id) }
            var (state, engine) = try await enginePaywall(store)
            /// The sheet's Submit line for a transaction once the engine answered, then what Submit did: the note, or the alert's message.
            func submit(_ id: Int64, _ productID: String) async -> (prediction: String, result: String) {
                state.sheet = .refundRequest(transactionID: id, productID: productID, reason: .unintendedPurchase)
                let asked = update(&state, .tick)
                #expect(asked.contains(.previewRefundRequest(transactionID: id)), "\(asked)")
                await settle(&state, asked, on: engine)
                let prediction = sheetLines(state).drop { !$0.hasPrefix("Submit") }.prefix { !$0.isEmpty }.joined(separator: " ")
                // The request's own note, before the load after it says what arrived.
                let submitted = update(&state, .key(.enter))
                guard submitted.count == 1, let done = await engine.perform(submitted[0]) else { return (prediction, "\(submitted)") }
                await settle(&state, update(&state, done), on: engine)
                if case .commandFinished(_, .success(let note)) = done { return (prediction, note) }
                guard case .alert(_, let message)? = state.sheet else { return (prediction, "no alert") }
                state.sheet = nil
                return (prediction, message)
            }
            /// The request's note ends with what the sheet said Submit would do.
            func said(_ answer: (prediction: String, result: String)) -> Bool {
                answer.prediction.hasPrefix("Submit: ") && answer.result.hasSuffix(": " + answer.prediction.dropFirst("Submit: ".count))
            }
            let waits = await submit(ids[0], swiftShopping)
            #expect(waits.prediction == "Submit: the App Store decides (refund-request approve \(ids[0]), or decline \(ids[0])).")
            #expect(said(waits), "\(waits)")
            _ = try await store.testSession.setSetting("refundRequestOutcome", to: "approve")
            await settle(&state, [.load], on: engine)
            let approved = await submit(ids[1], iPhoneRage)
            #expect(approved.prediction.hasPrefix("Submit: approved at once"), "\(approved)")
            #expect(said(approved), "\(approved)")
            _ = try await store.testSession.setSetting("refundRequestOutcome", to: "decline")
            await settle(&state, [.load], on: engine)
            let declined = await submit(ids[2], seasonPass)
            #expect(declined.prediction.hasPrefix("Submit: declined at once"), "\(declined)")
            #expect(said(declined), "\(declined)")
            // Asked before: the sheet says the error Submit then shows.
            let again = await submit(ids[2], seasonPass)
            #expect(again.prediction == "Submit fails: " + again.result, "\(again)")
            #expect(again.result.hasPrefix("Transaction.RefundRequestError.duplicateRequest"), "\(again)")
            let refunded = await submit(ids[1], iPhoneRage)
            #expect(refunded.prediction == "Submit fails: " + refunded.result, "\(refunded)")
            _ = try await store.testSession.setSetting("offline", to: "true")
            await settle(&state, [.load], on: engine)
            let offline = await submit(ids[0], swiftShopping)
            #expect(offline.prediction == "Submit fails: " + offline.result && offline.result.contains("networkError"), "\(offline)")
        }
    }
}
