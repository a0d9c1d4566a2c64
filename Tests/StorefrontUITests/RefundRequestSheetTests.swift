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
        #expect(update(&state, .key(.character("b"))).isEmpty)
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
        send(&state, .key(.character("b")), expecting: [])
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
        send(&state, .key(.character("b")), expecting: [])
        #expect(state.sheet == .refundRequest(transactionID: 2_000_000_003, productID: coins, reason: .unintendedPurchase))
        send(&state, .key(.escape), expecting: [])
        send(&state, .key(.down), expecting: [])
        send(&state, .key(.character("b")), expecting: [])
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
            send(&state, .key(.character("b")), expecting: [])
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
            send(&state, .key(.character("b")), expecting: [])
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
            send(&state, .key(.character("b")), expecting: [])
            await settle(&state, update(&state, .key(.enter)), on: engine)
            guard case .alert(_, let message)? = state.sheet else { Issue.record("no alert"); return }
            #expect(message.hasPrefix("Transaction.RefundRequestError.duplicateRequest"), "\(message)")
        }
    }
}
