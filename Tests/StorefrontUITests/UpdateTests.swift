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
        _ = update(&state, .loaded(snapshot()))
        #expect(state.busy == nil)
        #expect(state.products.count == demoCatalog.products.count)
    }

    @Test("arrows and j/k move the selection within the products")
    func movement() {
        var state = loadedState()
        #expect(update(&state, .key(.down)).isEmpty)
        #expect(state.selection == 1)
        _ = update(&state, .key(.character("j")))
        #expect(state.selection == 2)
        _ = update(&state, .key(.character("k")))
        _ = update(&state, .key(.up))
        _ = update(&state, .key(.up))
        #expect(state.selection == 0, "moving up from the top stays at the top")
        _ = update(&state, .key(.end))
        #expect(state.selection == demoCatalog.products.count - 1)
        _ = update(&state, .key(.down))
        #expect(state.selection == demoCatalog.products.count - 1, "moving down from the bottom stays there")
        _ = update(&state, .key(.home))
        #expect(state.selection == 0)
        _ = update(&state, .key(.pageDown))
        #expect(state.selection > 1)
    }

    @Test("consumables can be bought again even when the app holds a balance")
    func consumableRebuy() {
        var state = loadedState(snapshot: snapshot(balances: [coins: 3]))
        state.selection = index(of: coins)
        _ = update(&state, .key(.enter))
        #expect(state.sheet == .confirm(productID: coins))
    }

    @Test("a failed purchase shows an alert with the StoreKit error's name and a sentence")
    func purchaseFailed() {
        var state = loadedState()
        _ = update(&state, .key(.enter))
        _ = update(&state, .key(.enter))
        let report = PurchaseReport.failed(name: "purchaseNotAllowed", domain: "Product.PurchaseError",
                                           message: "This account is not allowed to make payments.")
        _ = update(&state, .paywall(.purchased(productID: demoCatalog.products[0].id, report)))
        guard case .alert(let title, let message) = state.sheet else {
            Issue.record("expected an alert, got \(String(describing: state.sheet))")
            return
        }
        #expect(title == "Purchase Failed")
        #expect(message == "Product.PurchaseError.purchaseNotAllowed: This account is not allowed to make payments.")
        _ = update(&state, .key(.enter))
        #expect(state.sheet == nil, "Enter dismisses the alert")
    }

    @Test("pending and cancelled purchases say so")
    func pendingAndCancelled() {
        var state = loadedState()
        _ = update(&state, .paywall(.purchased(productID: swiftShopping, .pending(.askToBuy))))
        #expect(state.sheet.map { if case .alert(let title, _) = $0 { title } else { "" } } == "Purchase Pending")
        _ = update(&state, .key(.escape))
        #expect(update(&state, .paywall(.purchased(productID: swiftShopping, .userCancelled))) == [.load])
        #expect(state.sheet == nil)
        #expect(state.flash == "Purchase of Swift Shopping cancelled (userCancelled)")
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
        #expect(state.flash == "Consumed 1 × 100 Coins · balance 1")
    }

    @Test("l toggles the log, ? opens help, q and Esc quit, Ctrl-C quits even on a sheet")
    func keys() {
        var state = loadedState()
        _ = update(&state, .key(.character("l")))
        #expect(!state.showLog)
        _ = update(&state, .key(.character("?")))
        #expect(state.sheet == .help)
        _ = update(&state, .key(.character("q")))
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
        _ = update(&other, .key(.enter))
        _ = update(&other, .key(.interrupt))
        #expect(!other.isRunning)
        var third = loadedState()
        _ = update(&third, .terminate)
        #expect(!third.isRunning)
    }

    @Test("clicks select rows and press buttons")
    func clicks() {
        var state = loadedState()
        _ = update(&state, .click(.product(4)))
        #expect(state.selection == 4)
        #expect(state.sheet == nil)
        _ = update(&state, .click(.buy(2)))
        #expect(state.selection == 2)
        #expect(state.sheet == .confirm(productID: demoCatalog.products[2].id))
        #expect(update(&state, .click(.confirm)) == [.purchase(productID: demoCatalog.products[2].id)])
        _ = update(&state, .paywall(.purchased(productID: demoCatalog.products[2].id, .success(transactionID: 1, restored: false))))
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
        _ = update(&state, .key(.end))
        let line = layout.lines.firstIndex(of: .product(state.selection))!
        #expect(line >= state.scroll && line < state.scroll + layout.tableHeight)
        _ = update(&state, .key(.home))
        #expect(state.scroll == 0, "back at the top the first group heading shows again")
    }

    @Test("resize changes the size and keeps the selection visible")
    func resize() {
        var state = loadedState()
        _ = update(&state, .key(.end))
        _ = update(&state, .resized(Size(columns: 80, rows: 18)))
        #expect(state.size == Size(columns: 80, rows: 18))
        let layout = Layout(state)
        let line = layout.lines.firstIndex(of: .product(state.selection))!
        #expect(line >= state.scroll && line < state.scroll + layout.tableHeight)
    }

    @Test("a load failure is shown, and a later load clears it")
    func loadFailure() {
        var state = State(size: Size(columns: 100, rows: 30), account: "a", storePath: "p", paywall: Paywall())
        _ = start(&state)
        _ = update(&state, .loadFailed("database is locked"))
        #expect(state.loadError == "database is locked")
        #expect(state.busy == nil)
        _ = update(&state, .loaded(snapshot()))
        #expect(state.loadError == nil)
    }

    @Test("a status note goes after six seconds of ticks; an alert stays")
    func flashExpires() {
        var state = loadedState()
        _ = update(&state, .paywall(.purchased(productID: swiftShopping, .success(transactionID: 1, restored: false))))
        #expect(state.flash == "Purchased Swift Shopping")
        for _ in 0..<(flashTicks - 1) { _ = update(&state, .tick) }
        #expect(state.flash != nil, "still there before its time")
        #expect(update(&state, .tick).isEmpty || true)
        #expect(state.flash == nil)
    }
}
