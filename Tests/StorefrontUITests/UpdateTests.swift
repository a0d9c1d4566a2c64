import StoreEngine
import Testing
@testable import StorefrontUI

/// Every paywall flow, by calling `update` and looking at the state and effects (buy, cancel, already
/// owned and restore compare the whole state: WholeStateTests).
@Suite("update")
struct UpdateTests {
    @Test("starting shows the spinner and loads the store")
    func startLoads() {
        var state = State(size: Size(columns: 100, rows: 30), account: "a", storePath: "p", paywall: Paywall())
        #expect(start(&state) == [.load])
        #expect(state.busy == .loading)
        send(&state, .loaded(snapshot()), expecting: [])
        #expect(state.busy == nil)
        #expect(state.products.count == demoCatalog.products.count)
    }

    @Test("arrows and j/k move the selection within the products")
    func movement() {
        var state = loadedState()
        #expect(update(&state, .key(.down)).isEmpty)
        #expect(state.selection == 1)
        send(&state, .key(.character("j")), expecting: [])
        #expect(state.selection == 2)
        send(&state, .key(.character("k")), expecting: [])
        send(&state, .key(.up), expecting: [])
        send(&state, .key(.up), expecting: [])
        #expect(state.selection == 0, "moving up from the top stays at the top")
        send(&state, .key(.end), expecting: [])
        #expect(state.selection == demoCatalog.products.count - 1)
        send(&state, .key(.down), expecting: [])
        #expect(state.selection == demoCatalog.products.count - 1, "moving down from the bottom stays there")
        send(&state, .key(.home), expecting: [])
        #expect(state.selection == 0)
        send(&state, .key(.pageDown), expecting: [])
        #expect(state.selection > 1)
    }

    @Test("consumables can be bought again even when the app holds a balance")
    func consumableRebuy() {
        var state = loadedState(snapshot: snapshot(balances: [coins: 3]))
        state.selection = index(of: coins)
        send(&state, .key(.enter), expecting: [])
        #expect(state.sheet == .confirm(productID: coins))
    }

    @Test("a failed purchase shows an alert with the StoreKit error's name and a sentence")
    func purchaseFailed() {
        var state = loadedState()
        send(&state, .key(.enter), expecting: [])
        send(&state, .key(.enter), expecting: [.purchase(productID: "barcode_year_subscription")])
        let report = PurchaseReport.failed(name: "purchaseNotAllowed", domain: "Product.PurchaseError",
                                           message: "This account is not allowed to make payments.")
        send(&state, .paywall(.purchased(productID: demoCatalog.products[0].id, report)), expecting: [.load])
        guard case .alert(let title, let message) = state.sheet else {
            Issue.record("expected an alert, got \(String(describing: state.sheet))")
            return
        }
        #expect(title == "Purchase Failed")
        #expect(message == "Product.PurchaseError.purchaseNotAllowed: This account is not allowed to make payments.")
        send(&state, .key(.enter), expecting: [])
        #expect(state.sheet == nil, "Enter dismisses the alert")
    }

    @Test("pending and cancelled purchases say so")
    func pendingAndCancelled() {
        var state = loadedState()
        send(&state, .paywall(.purchased(productID: swiftShopping, bought(.pending(pendingRequest(swiftShopping, reason: .askToBuy)), swiftShopping))), expecting: [.load])
        #expect(state.sheet.map { if case .alert(let title, _) = $0 { title } else { "" } } == "Purchase Pending")
        send(&state, .key(.escape), expecting: [])
        #expect(update(&state, .paywall(.purchased(productID: swiftShopping, bought(.userCancelled, swiftShopping)))) == [.load])
        #expect(state.sheet == nil)
        #expect(state.flash == "The purchase of Swift Shopping was cancelled (userCancelled).")
    }

    @Test("c consumes only consumables")
    func consume() {
        var state = loadedState(snapshot: snapshot(balances: [coins: 2]))
        state.selection = index(of: swiftShopping)
        #expect(update(&state, .key(.character("c"))).isEmpty)
        #expect(state.flash == "Only consumables can be consumed")
        state.selection = index(of: coins)
        #expect(update(&state, .key(.character("c"))) == [.consume(productID: coins)])
        #expect(update(&state, .paywall(.consumed(productID: coins, balance: 1))) == [.load])
        #expect(state.flash == "Consumed 1 × 100 Coins: the balance is 1.")
    }

    @Test("l on the Transaction Manager says where the log is (it has none), and leaves the paywall's as it was")
    func logKeyOnTheManager() {
        var state = loadedState()
        state.screen = .transactions
        send(&state, .key(.character("l")), expecting: [])
        #expect(state.showLog, "the paywall's log is still shown")
        #expect(state.flash == "The event log is under the paywall's table: p, then l shows or hides it, [ ] { } scroll it")
        #expect(keyHelp(for: .transactions, .unicode).contains { $0.keys == "l" && $0.does.contains("paywall's (p)") })
    }

    @Test("l toggles the log, ? opens help, q and Esc quit, Ctrl-C quits even on a sheet")
    func keys() {
        var state = loadedState()
        send(&state, .key(.character("l")), expecting: [])
        #expect(!state.showLog)
        send(&state, .key(.character("?")), expecting: [])
        #expect(state.sheet == .help)
        send(&state, .key(.character("q")), expecting: [])
        #expect(state.sheet == nil && state.isRunning, "q closes help first")
        #expect(update(&state, .key(.escape)).isEmpty)
        #expect(state.sheet == .confirmQuit && state.isRunning, "Esc asks first")
        #expect(update(&state, .key(.escape)).isEmpty)
        #expect(state.sheet == nil && state.isRunning, "Esc, Esc stays")
        #expect(update(&state, .key(.escape)).isEmpty)
        #expect(update(&state, .key(.enter)).isEmpty)
        #expect(state.sheet == nil && state.isRunning, "Esc, Enter stays")
        #expect(update(&state, .key(.escape)).isEmpty)
        #expect(update(&state, .key(.character("q"))).isEmpty)
        #expect(!state.isRunning, "Esc, q quits")

        var other = loadedState()
        send(&other, .key(.enter), expecting: [])
        send(&other, .key(.interrupt), expecting: [])
        #expect(!other.isRunning)
        var third = loadedState()
        send(&third, .terminate, expecting: [])
        #expect(!third.isRunning)
    }

    @Test("clicks select rows and press buttons")
    func clicks() {
        var state = loadedState()
        send(&state, .click(.product(4)), expecting: [])
        #expect(state.selection == 4)
        #expect(state.sheet == nil)
        send(&state, .click(.buy(2)), expecting: [])
        #expect(state.selection == 2)
        #expect(state.sheet == .confirm(productID: demoCatalog.products[2].id))
        #expect(update(&state, .click(.confirm)) == [.purchase(productID: demoCatalog.products[2].id)])
        send(&state, .paywall(.purchased(productID: demoCatalog.products[2].id, bought(.purchased(purchase(demoCatalog.products[2].id), change: nil), demoCatalog.products[2].id))), expecting: [.load])
        #expect(update(&state, .click(.restore)) == [.restore])
    }

    @Test("another process's write is noticed from the data version and reloads")
    func externalChanges() {
        var state = loadedState(snapshot: snapshot(dataVersion: 5))
        let effects = (1...5).flatMap { _ in update(&state, .tick) }
        #expect(effects == [.checkForChanges], "the store is checked twice a second, not every tick")
        #expect(update(&state, .dataVersion(5)).isEmpty, "no reload when nothing changed")
        #expect(update(&state, .dataVersion(6)) == [.load])
    }

    @Test("the table scrolls to keep the selection on screen")
    func scrolling() {
        var state = loadedState(columns: 80, rows: 20)
        let layout = Layout(state)
        #expect(layout.lines.count > layout.tableHeight, "the demo catalog must not fit in 80×20 for this test")
        send(&state, .key(.end), expecting: [])
        let line = layout.lines.firstIndex(of: .product(state.selection))!
        #expect(line >= state.scroll && line < state.scroll + layout.tableHeight)
        send(&state, .key(.home), expecting: [])
        #expect(state.scroll == 0, "back at the top the first group heading shows again")
    }

    @Test("resize changes the size and keeps the selection visible")
    func resize() {
        var state = loadedState()
        send(&state, .key(.end), expecting: [])
        send(&state, .resized(Size(columns: 80, rows: 18)), expecting: [])
        #expect(state.size == Size(columns: 80, rows: 18))
        let layout = Layout(state)
        let line = layout.lines.firstIndex(of: .product(state.selection))!
        #expect(line >= state.scroll && line < state.scroll + layout.tableHeight)
    }

    @Test("a load failure is shown, and a later load clears it")
    func loadFailure() {
        var state = State(size: Size(columns: 100, rows: 30), account: "a", storePath: "p", paywall: Paywall())
        _ = start(&state)
        send(&state, .loadFailed("database is locked"), expecting: [])
        #expect(state.loadError == "database is locked")
        #expect(state.busy == nil)
        send(&state, .loaded(snapshot()), expecting: [])
        #expect(state.loadError == nil)
    }

    @Test("a status note goes after six seconds of ticks; an alert stays")
    func flashExpires() {
        var state = loadedState()
        send(&state, .paywall(.purchased(productID: swiftShopping, bought(.purchased(purchase(swiftShopping), change: nil), swiftShopping))),
             expecting: [.load])
        #expect(state.flash == "Purchased Swift Shopping for $0.99 (transaction 2000000001).")
        // Every fifth tick looks for another process's changes; no tick does anything else here.
        let due = { (tick: Int) -> [Effect] in tick % 5 == 0 ? [.checkForChanges] : [] }
        for tick in 1..<flashTicks { send(&state, .tick, expecting: due(tick)) }
        #expect(state.flash != nil, "still there before its time")
        send(&state, .tick, expecting: due(flashTicks))
        #expect(state.flash == nil)
    }
}
