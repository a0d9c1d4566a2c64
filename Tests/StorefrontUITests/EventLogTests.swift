import Foundation
import StoreEngine
import Testing
@testable import StorefrontUI

/// The event log: dated lines on the store's clock, in the rows the table leaves free, scrolled with [ ].
@Suite("event log")
struct EventLogTests {
    func event(_ id: Int64, _ state: TransactionEvent.State, _ product: String, days: Double, detail: String = "") -> TransactionEvent {
        TransactionEvent(id: id, date: fixedDate.addingTimeInterval(days * 86_400), account: Store.defaultAccount, state: state,
                         productID: product, transactionID: 2_000_000_000 + id, detail: detail)
    }

    func events(_ count: Int) -> [TransactionEvent] {
        (1...count).map { event(Int64($0), .purchased, monthly, days: Double($0) * 30, detail: "renewal") }
    }

    func logRows(_ state: State) -> [String] {
        let layout = Layout(state)
        let lines = render(state, timeZone: utc).lines
        return Array(lines[layout.logTop..<(layout.logTop + layout.logHeight)])
    }

    @Test("each line is dated on the store's clock, so renewals months apart read apart")
    func dated() {
        let state = loadedState(snapshot: snapshot(events: events(2)))
        let rows = logRows(state).filter { !$0.isEmpty }
        #expect(rows == [" 2026-12-31 00:00:00 purchased  barcode_month_subscription  tx 2000000001  (renewal)",
                         " 2027-01-30 00:00:00 purchased  barcode_month_subscription  tx 2000000002  (renewal)"])
    }

    @Test("the log takes the rows the table does not need: at 120×40 more than the four it keeps")
    func usesFreeRows() {
        let small = Layout(loadedState(columns: 100, rows: 30))
        let tall = Layout(loadedState(columns: 120, rows: 40))
        #expect(small.logHeight >= 4)
        #expect(tall.logHeight == small.logHeight + 10, "every row more goes to the log")
        #expect(tall.tableHeight == small.tableHeight, "the table has all its lines either way")
        #expect(tall.tableHeight >= tall.lines.count)
    }

    @Test("[ scrolls back a line, { a page, ] and } forward, never past the ends; a mark says so")
    func scrolls() {
        var state = loadedState(columns: 80, rows: 24, snapshot: snapshot(events: events(30)))
        let height = Layout(state).logHeight
        #expect(logRows(state).last?.contains("tx 2000000030") == true, "the newest shows first")
        #expect(update(&state, .key(.character("["))).isEmpty)
        #expect(state.logScroll == 1)
        #expect(logRows(state).last?.contains("tx 2000000029") == true)
        send(&state, .key(.character("{")), expecting: [])
        #expect(state.logScroll == 1 + max(1, height - 1))
        for _ in 0..<40 { send(&state, .key(.character("[")), expecting: []) }
        #expect(state.logScroll == 30 - height, "stops at the oldest")
        #expect(logRows(state).first?.contains("tx 2000000001 ") == true)
        let screen = render(state, timeZone: utc).lines
        #expect(screen[Layout(state).logTop - 1].contains("newer [ ] scroll"))
        send(&state, .key(.character("}")), expecting: [])
        for _ in 0..<40 { send(&state, .key(.character("]")), expecting: []) }
        #expect(state.logScroll == 0)
    }

    @Test("lines keep the order they happened even when recorded later; long ones end in …, clear of the scroll marks")
    func orderAndCut() {
        // The engine hands them in store-time order (renewals caught up late included).
        let long = event(1, .failed, "com.example.an.extremely.long.product.identifier.that.goes.on", days: 1,
                         detail: "purchaseNotAllowed (SKError.paymentNotAllowed, code 4)")
        let state = loadedState(columns: 80, rows: 24, snapshot: snapshot(events: [long]))
        let row = logRows(state)[0]
        #expect(row.hasSuffix("…"))
        #expect(TerminalText.width(row) == 77, "cut before the last columns, where ↑ ↓ go")
    }

    @Test("an expiry is logged as expired, not failed")
    func expiredState() {
        let state = loadedState(snapshot: snapshot(events: [event(1, .expired, monthly, days: 1, detail: "expired now by the tester")]))
        #expect(logRows(state)[0].contains("expired    barcode_month_subscription"))
        #expect(TransactionEvent.State(rawValue: "expired") == .expired)
    }
}
