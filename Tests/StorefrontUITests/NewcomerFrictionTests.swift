import Foundation
import StoreEngine
import Testing
@testable import StorefrontUI

/// Issue 31's paywall friction, each point through `update`'s effects and the rendered screen.
@Suite("paywall friction: the alert's transaction")
struct AlertFocusTests {
    @Test("t after a Purchase Pending alert opens the manager on that request, so t then v resolves it")
    func managerOpensOnTheAlertsRequest() {
        var state = loadedState(on: .transactions)
        assertUpdate(&state, .manager(.historyLoaded(Array(history.dropFirst(2))))) {
            $0.manager.transactions = Array(history.dropFirst(2))
        }
        // The tester had looked at an older row before.
        selectTransaction(&state, 2)
        assertUpdate(&state, .key(.character("p"))) { $0.screen = .paywall }
        let interrupted = transaction(nightlyRage, id: 2_000_000_005, status: .pending, pending: .interrupted,
                                      purchased: fixedDate.addingTimeInterval(13 * 3600))
        let effects = update(&state, .paywall(.purchased(productID: nightlyRage, .pending(.interrupted, requestID: interrupted.id))))
        #expect(effects == [.load])
        guard case .alert("Purchase Pending", let message)? = state.sheet else {
            Issue.record("no Purchase Pending alert: \(String(describing: state.sheet))")
            return
        }
        #expect(message.contains("(t, then v)") && message.contains("storefront --store /tmp/store.sqlite resolve 2000000005"), "\(message)")
        assertUpdate(&state, .key(.enter)) { $0.sheet = nil }
        assertUpdate(&state, .key(.character("t")), effects: [.loadHistory]) { $0.screen = .transactions }
        // The new request is the newest: the list grows at the top, under the old cursor.
        let grown = [interrupted] + Array(history.dropFirst(2))
        assertUpdate(&state, .manager(.historyLoaded(grown))) {
            $0.manager.transactions = grown
            $0.manager.selection = 0
            $0.manager.focus = nil
        }
        assertUpdate(&state, .key(.character("v")), effects: [.run(.resolve(2_000_000_005))]) {
            $0.busy = .working("Resolving request 2000000005…")
            $0.inFlight = .resolve(2_000_000_005)
        }
    }

    @Test("a pending request is called a request on the manager's line and in its detail pane")
    func requestNotTransaction() {
        var state = loadedState(on: .transactions)
        _ = update(&state, .manager(.historyLoaded(history)))
        selectTransaction(&state, 1)
        let lines = render(state, timeZone: utc).lines
        let line = lines[ManagerLayout(state.size).detailRow]
        #expect(line.contains("request 2000000005") && !line.contains("tx 2000000005"), "\(line)")
        #expect(update(&state, .key(.character("i"))).contains(.loadNotifications(transactionID: 2_000_000_005)))
        #expect(render(state, timeZone: utc).lines.contains { $0.contains("Request 2000000005 · Nightly Rage") })
    }
}

@Suite("paywall friction: quit")
struct QuitPromptTests {
    @Test("Esc then Enter stays; the prompt says q quits and its Quit button sends q")
    func escEnterStays() {
        var state = loadedState(columns: 80, rows: 24)
        assertUpdate(&state, .key(.escape)) { $0.sheet = .confirmQuit }
        let screen = render(state, timeZone: utc)
        let text = screen.lines.joined(separator: "\n")
        #expect(text.contains("[ Quit q ]") && text.contains("[ Stay ⏎ ]"), "\(text)")
        assertUpdate(&state, .key(.enter)) { $0.sheet = nil }
        #expect(state.isRunning)
        assertUpdate(&state, .key(.escape)) { $0.sheet = .confirmQuit }
        let row = screen.lines.firstIndex { $0.contains("[ Quit q ]") }!
        let x = screen.lines[row].distance(of: "[ Quit q ]") + 2
        let target = screen.target(atX: x, y: row)
        #expect(target == .sheetKey("q"))
        assertUpdate(&state, .click(target!)) {
            $0.sheet = nil
            $0.isRunning = false
        }
    }
}

@Suite("paywall friction: the store file on the title line")
struct TitleStoreFileTests {
    @Test("the title names Storefront and the store file at 80, 100 and 200 columns", arguments: [80, 100, 200])
    func storeFileNamed(columns: Int) {
        var state = loadedState(columns: columns, rows: 24)
        state.storePath = "/home/qa/.local/state/storefront/store.sqlite"
        let title = render(state, timeZone: utc).lines[0]
        #expect(title.hasPrefix(" Storefront · store.sqlite · tester@local · USA"), "\(title)")
        #expect(title.hasSuffix(columns == 80 ? "s Set" : "s Settings"), "the tabs stay: \(title)")
    }

    @Test("with the store's clock, the store file stays and the account gives way; at 60 columns the account is cut with …")
    func longAccount() {
        var state = loadedState(columns: 80, rows: 24)
        state.account = "a-very-long-sandbox-tester-name@example.com"
        var snap = snapshot()
        snap.clock = fixedDate
        _ = update(&state, .loaded(snap))
        let title = render(state, timeZone: utc).lines[0]
        #expect(title.hasPrefix(" Storefront · store.sqlite · USA · 2026-12-01 00:00 UTC") && title.hasSuffix("s Set"), "\(title)")
        _ = update(&state, .resized(Size(columns: 60, rows: 16)))
        let narrow = render(state, timeZone: utc).lines[0]
        #expect(narrow.hasPrefix(" Storefront · a-ver") && narrow.contains("…") && narrow.hasSuffix("s Set"), "\(narrow)")
    }
}

@Suite("paywall friction: a failed load")
struct LoadFailureScreenTests {
    @Test("when the products cannot load, the log does not say no transactions, and r retries visibly")
    func truthAndRetry() {
        var state = State(size: Size(columns: 80, rows: 24), account: Store.defaultAccount,
                          storePath: "/tmp/store.sqlite", paywall: demoCatalog.paywall)
        assertUpdate(&state, .loadFailed("StoreKitError.networkError")) { $0.loadError = "StoreKitError.networkError" }
        var text = render(state, timeZone: utc).lines.joined(separator: "\n")
        #expect(!text.contains("No transactions yet"), "\(text)")
        #expect(text.contains("The event log is not loaded"), "\(text)")
        assertUpdate(&state, .key(.character("r")), effects: [.load]) { $0.busy = .loading }
        text = render(state, timeZone: utc).lines.joined(separator: "\n")
        #expect(text.contains("[ Retrying "), "\(text)")
        assertUpdate(&state, .loadFailed("StoreKitError.networkError")) {
            $0.busy = nil
            $0.failedRetries = 1
        }
        text = render(state, timeZone: utc).lines.joined(separator: "\n")
        #expect(text.contains("retried 1×, still failing"), "the retry's result shows:\n\(text)")
    }
}

@Suite("paywall friction: 80 columns")
struct EightyColumnTests {
    @Test("a text cut at the edge ends with …, never mid-word in silence")
    func cutWithEllipsis() {
        var canvas = Canvas(width: 10, height: 1)
        canvas.put("Settings · simulated", x: 0, y: 0)
        #expect(canvas.lines[0] == "Settings …")
        var limited = Canvas(width: 20, height: 1)
        limited.put("abcdefgh", x: 2, y: 0, limit: 5)
        #expect(limited.lines[0].hasPrefix("  abcd…"))
        var fits = Canvas(width: 5, height: 1)
        fits.put("abcde", x: 0, y: 0)
        #expect(fits.lines[0] == "abcde", "a text that fits is whole")
    }

    @Test("no fragment of the paywall shows beside a sheet's borders at 80×24")
    func noFragmentsBesideSheets() {
        var state = loadedState(columns: 80, rows: 24, snapshot: snapshot(owned: [purchase(swiftShopping)]))
        for sheet: Sheet in [.confirmQuit, .help, .confirm(productID: iPhoneRage)] {
            state.sheet = sheet
            let lines = render(state, timeZone: utc).lines
            for line in lines where line.contains("│") {
                let first = line.firstIndex(of: "│")!, last = line.lastIndex(of: "│")!
                let outside = String(line[..<first]) + String(line[line.index(after: last)...])
                #expect(outside.allSatisfy { $0 == " " }, "\(sheet): \(line)")
            }
        }
    }
}

@Suite("paywall friction: catalog notes")
struct CatalogNotesTests {
    @Test("the .storekit file's repair notes show in the paywall when it opens, once")
    func notesShown() {
        var state = State(size: Size(columns: 100, rows: 30), account: Store.defaultAccount,
                          storePath: "/tmp/store.sqlite", paywall: demoCatalog.paywall)
        state.catalogNotes = ["locale \"fr\" repeats in this product's localizations: the first is used",
                              "a free trial costs 0; the leftover price 1.99 is ignored"]
        let effects = update(&state, .loaded(snapshot()))
        #expect(effects == [])
        guard case .alert(let title, let message)? = state.sheet else {
            Issue.record("no alert: \(String(describing: state.sheet))")
            return
        }
        #expect(title == "Catalog Notes")
        #expect(message.contains("2 notes") && message.contains("locale \"fr\" repeats") && message.contains("free trial costs 0"))
        assertUpdate(&state, .key(.enter)) { $0.sheet = nil }
        // A second load does not show them again.
        #expect(update(&state, .loaded(snapshot())) == [])
        #expect(state.sheet == nil)
    }
}
