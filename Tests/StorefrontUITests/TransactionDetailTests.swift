import Foundation
@testable import StoreEngine
import Testing
@testable import StorefrontUI

/// A JWS whose payload is these fields (the signature is not checked here: `verification` says).
private func jws(_ fields: [(String, JSON)]) -> String {
    let header = Base64URL.encode(Array(#"{"alg":"ES256"}"#.utf8))
    let payload = Base64URL.encode(Array(JSON.object(fields.map { JSON.Member($0.0, $0.1) })
        .serialized(pretty: false).utf8))
    return "\(header).\(payload).c2ln"
}

private let subscriptionID: Int64 = 2_000_000_004

/// A trial of the monthly plan, signed, with the request it answered.
private func trial(verification: StoreEngine.Transaction.Verification = .verified) -> StoreEngine.Transaction {
    var trial = transaction(monthly, id: subscriptionID, expires: fixedDate.addingTimeInterval(7 * 86_400))
    (trial.price, trial.offerType, trial.offerPaymentMode, trial.subscriptionGroupID) = (0, .introductory, .freeTrial, "premium")
    trial.offerPeriod = ISODuration(days: 7)
    trial.pendingReason = .askToBuy
    trial.jwsRepresentation = jws([
        ("transactionId", .string(String(subscriptionID))), ("productId", .string(monthly)),
        ("purchaseDate", .number("1796083200000")), ("offerType", .number("1")), ("environment", .string("Xcode")),
    ])
    trial.verification = verification
    return trial
}

private func notification(_ id: Int64, _ type: String, _ subtype: String?, attempts: [SendAttemptResult]) -> ServerNotification {
    ServerNotification(id: id, uuid: "uuid-\(id)", account: Store.defaultAccount, type: type, subtype: subtype,
                       transactionID: subscriptionID, originalTransactionID: subscriptionID, signedDate: fixedDate,
                       signedPayload: "x.y.z",
                       attempts: attempts.map { NotificationAttempt(url: "http://127.0.0.1:9000/asn", date: fixedDate, result: $0) })
}

/// The manager at 100×30 with the trial and a one-time purchase listed, the trial selected.
private func managerWithTrial(_ trial: StoreEngine.Transaction = trial(), columns: Int = 100, rows: Int = 30) -> State {
    var state = loadedState(on: .transactions, columns: columns, rows: rows)
    state.snapshot?.storeTime = fixedDate.addingTimeInterval(2 * 86_400)
    send(&state, .manager(.historyLoaded([trial, transaction(swiftShopping, id: 2_000_000_001)])), expecting: [])
    return state
}

@Suite("transaction detail pane")
struct TransactionDetailTests {
    @Test("Enter or i opens the pane on the selected row and asks for its notifications; Esc, i or Enter close it")
    func opensAndCloses() {
        for key in [Key.enter, .character("i")] {
            var state = managerWithTrial()
            #expect(update(&state, .key(key)) == [.loadNotifications(transactionID: subscriptionID),
                                                  .loadSubscriptionHistory(groupID: "premium")])
            #expect(state.manager.detail == TransactionDetailState(transactionID: subscriptionID))
            #expect(state.screen == .transactions)
        }
        for key in [Key.escape, .character("i"), .enter] {
            var state = managerWithTrial()
            send(&state, .key(.enter), expecting: [.loadNotifications(transactionID: 2_000_000_004), .loadSubscriptionHistory(groupID: "premium")])
            #expect(update(&state, .key(key)).isEmpty)
            #expect(state.manager.detail == nil, "\(key) closes the pane")
            #expect(state.screen == .transactions, "\(key) stays in the manager")
        }
        var empty = loadedState(on: .transactions)
        send(&empty, .manager(.historyLoaded([])), expecting: [])
        #expect(update(&empty, .key(.enter)).isEmpty && empty.manager.detail == nil)
    }

    @Test("notifications arrive for the open transaction only; a reload asks again; a deleted transaction closes it")
    func notificationsAndReload() {
        var state = managerWithTrial()
        send(&state, .key(.enter), expecting: [.loadNotifications(transactionID: 2_000_000_004), .loadSubscriptionHistory(groupID: "premium")])
        let sent = [notification(1, "SUBSCRIBED", "INITIAL_BUY", attempts: [.success])]
        #expect(update(&state, .manager(.notificationsLoaded(transactionID: 2_000_000_001, sent))).isEmpty)
        #expect(state.manager.detail?.notifications == nil)
        #expect(update(&state, .manager(.notificationsLoaded(transactionID: subscriptionID, sent))).isEmpty)
        #expect(state.manager.detail?.notifications == sent)
        #expect(update(&state, .manager(.notificationsFailed(transactionID: subscriptionID, "disk I/O error"))).isEmpty)
        #expect(state.manager.detail?.notificationsError == "disk I/O error")

        #expect(update(&state, .manager(.historyLoaded([trial()])))
                == [.loadNotifications(transactionID: subscriptionID), .loadSubscriptionHistory(groupID: "premium")])
        #expect(update(&state, .manager(.historyLoaded([transaction(swiftShopping, id: 2_000_000_001)]))).isEmpty)
        #expect(state.manager.detail == nil)
    }

    @Test("the pane's keys: ↑ ↓ scroll it, the actions still act on its transaction, t p s switch screens")
    func keysWhileOpen() {
        var state = managerWithTrial(rows: 16)
        send(&state, .key(.enter), expecting: [.loadNotifications(transactionID: 2_000_000_004), .loadSubscriptionHistory(groupID: "premium")])
        #expect(update(&state, .key(.down)).isEmpty)
        #expect(state.manager.detail?.scroll == 1 && state.manager.selection == 0)
        send(&state, .key(.end), expecting: [])
        let bottom = state.manager.detail?.scroll ?? 0
        #expect(bottom > 1)
        send(&state, .key(.down), expecting: [])
        #expect(state.manager.detail?.scroll == bottom, "no scrolling past the last line")
        send(&state, .key(.home), expecting: [])
        #expect(state.manager.detail?.scroll == 0)
        #expect(update(&state, .key(.character("e"))) == [.run(.expire(groupID: "premium"))])
        #expect(update(&state, .key(.character("p"))).isEmpty && state.screen == .paywall)
    }

    @Test("it names price, offer, reason, ownership, the dates, the request, the payload and its verification")
    func contents() {
        var state = managerWithTrial()
        send(&state, .key(.enter), expecting: [.loadNotifications(transactionID: 2_000_000_004), .loadSubscriptionHistory(groupID: "premium")])
        send(&state, .manager(.notificationsLoaded(transactionID: subscriptionID, [
            notification(1, "SUBSCRIBED", "INITIAL_BUY", attempts: [.success]),
            notification(2, "DID_RENEW", nil, attempts: [.timedOut, .noResponse]),
            notification(3, "DID_CHANGE_RENEWAL_STATUS", "AUTO_RENEW_DISABLED", attempts: []),
        ])), expecting: [])
        let lines = detailLines(state, timeZone: utc).map { "\($0.label): \($0.value)" }
        for expected in ["Price: $0.00 (USA)", "Offer: introductory · freeTrial · P7D", "Reason: purchase",
                         "Ownership: purchased", "Purchased: 2026-12-01 00:00", "Original: 2026-12-01 00:00 (tx 2000000004)",
                         "Expires: 2026-12-08 00:00", "Revoked: —", "Request: Ask to Buy", "Signature: verified",
                         "2026-12-01 00:00: SUBSCRIBED (INITIAL_BUY) · delivered",
                         "2026-12-01 00:00: DID_RENEW · NO_RESPONSE ×2",
                         "2026-12-01 00:00: DID_CHANGE_RENEWAL_STATUS (AUTO_RENEW_DISABLED) · waiting",
                         "transactionId: 2000000004", "purchaseDate: 1796083200000", "offerType: 1"] {
            #expect(lines.contains(expected), "missing \(expected) in\n\(lines.joined(separator: "\n"))")
        }
        var tampered = managerWithTrial(trial(verification: .unverified(reason: LedgerTransactionsReason.edited)))
        send(&tampered, .key(.enter), expecting: [.loadNotifications(transactionID: 2_000_000_004), .loadSubscriptionHistory(groupID: "premium")])
        let verdict = detailLines(tampered, timeZone: utc).first { $0.label == "Signature" }
        #expect(verdict?.value == "unverified: \(LedgerTransactionsReason.edited)" && verdict?.style.color == .red)

        var pending = loadedState(on: .transactions)
        send(&pending, .manager(.historyLoaded([transaction(swiftShopping, id: 7, status: .pending, pending: .interrupted)])), expecting: [])
        send(&pending, .key(.enter), expecting: [.loadNotifications(transactionID: 7)])
        let text = detailLines(pending, timeZone: utc).map { "\($0.label): \($0.value)" }
        #expect(text.contains("Request: interrupted purchase"), "\(text)")
        #expect(text.contains(": none: a pending request carries no signature"), "\(text)")
        #expect(text.contains(": \(spinner(pending)) loading…"), "\(text)")
    }

    @Test("the whole screen at 100×30: facts and notifications left, the signed payload right, the keys below")
    func wholeScreen() throws {
        var state = managerWithTrial()
        send(&state, .key(.enter), expecting: [.loadNotifications(transactionID: 2_000_000_004), .loadSubscriptionHistory(groupID: "premium")])
        // The group's history, as the pane's effect reads it from the engine.
        let now = try #require(state.snapshot?.storeTime)
        let history = try #require(SubscriptionHistory(groupID: "premium", transactions: state.manager.transactions ?? [],
                                                       status: state.snapshot?.subscriptions["premium"], failures: [], expiries: [:],
                                                       products: state.products, now: now))
        send(&state, .manager(.subscriptionHistoryLoaded(groupID: "premium", history)), expecting: [])
        send(&state, .manager(.notificationsLoaded(transactionID: subscriptionID, [
            notification(1, "SUBSCRIBED", "INITIAL_BUY", attempts: [.success]),
            notification(2, "DID_RENEW", nil, attempts: [.timedOut]),
        ])), expecting: [])
        let screen = render(state, timeZone: utc).lines.map { $0.replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression) }
        #expect(screen.count == 30)
        #expect(screen.joined(separator: "\n") == expectedScreen, "\n\(screen.joined(separator: "\n"))")
    }
    @Test("a long payload value is cut with …; w wraps it whole on the rows below, w again cuts it")
    func longValues() {
        var state = managerWithTrial()
        send(&state, .key(.enter), expecting: [.loadNotifications(transactionID: 2_000_000_004), .loadSubscriptionHistory(groupID: "premium")])
        let cut = render(state, timeZone: utc).lines
        #expect(cut.contains { $0.hasSuffix("productId     barcode_month_subscripti…") }, "\n\(cut.joined(separator: "\n"))")
        #expect(update(&state, .key(.character("w"))).isEmpty)
        #expect(state.manager.detail?.wrapsValues == true)
        let wrapped = render(state, timeZone: utc).lines
        let at = wrapped.firstIndex { $0.hasSuffix("productId     barcode_month_subscriptio") }
        #expect(at.map { wrapped[$0 + 1].hasSuffix(String(repeating: " ", count: 14) + "n") } == true,
                "the rest of the value under it:\n\(wrapped.joined(separator: "\n"))")
        send(&state, .key(.character("w")), expecting: [])
        #expect(render(state, timeZone: utc).lines == cut)
        // A field name wider than its column has a row of its own, whole, with its value under it.
        let rows = columnRows([DetailLine(label: "subscriptionGroupIdentifier", value: "premium"),
                               DetailLine(label: "bundleId", value: "com.example.storefront")], width: 39, wraps: true)
        #expect(rows == [[PaneRun(x: 0, text: "subscriptionGroupIdentifier", style: dim)],
                         [PaneRun(x: 22, text: "premium")],
                         [PaneRun(x: 0, text: "bundleId", style: dim), PaneRun(x: 22, text: "com.example.")],
                         [PaneRun(x: 22, text: "storefront")]])
    }
}

/// The reason the ledger gives an edited transaction.
private enum LedgerTransactionsReason {
    static let edited = "the stored transaction does not match its signed payload (edited data)"
}

private let expectedScreen = """
     Storefront · store.sqlite · tester@local · USA               p Paywall  t Transactions  s Settings
      Transaction Manager · tester@local · 2 transactions, newest first
    ────────────────────────────────────────────────────────────────────────────────────────────────────
      Transaction 2000000004 · Monthly Subscription  (Esc closes)
      Subscription timeline · Premium · store clock
      Monthly Subscription ░░░░░░░░░░░░░░░░░░░░░░░░░░░░░░░░░░░░░░░░░░░░░░░░░░░░░░░░░░░░░░░░░░░░░░░░░░
                2026-12-01 ──────────────────────┴───────────────────────────────────────────────────
                                                 now 2026-12-03                            2026-12-08
      ░ trial  │ now
      ▸ trial     Monthly Subscription                2026-12-01 to 2026-12-08

      Price            $0.00 (USA)                            Signed payload
      Offer            introductory · freeTrial · P7D         transactionId 2000000004
      Reason           purchase                               productId     barcode_month_subscripti…
      Ownership        purchased                              purchaseDate  1796083200000
      State            purchased                              offerType     1
      Purchased        2026-12-01 00:00                       environment   Xcode
      Original         2026-12-01 00:00 (tx 2000000004)
      Expires          2026-12-08 00:00
      Revoked          —
      Request          Ask to Buy
      Signature        verified
      Server notifications
      2026-12-01 00:00 SUBSCRIBED (INITIAL_BUY) · delivered
      2026-12-01 00:00 DID_RENEW · TIMED_OUT ×1

    ────────────────────────────────────────────────────────────────────────────────────────────────────
      tx 2000000004 · $0.00 · introductory offer (freeTrial)  ·  i details  f refund  e expire now  n …

     ↑↓ scroll  w wrap  esc close  f refund  e expire  n renew  u auto-renew  ? help  q quit
    """
