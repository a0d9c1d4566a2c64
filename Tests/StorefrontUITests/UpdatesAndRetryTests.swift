import Foundation
import StoreEngine
import Testing
@testable import StorefrontUI

/// Other processes' writes, transactions that arrive as updates, and a load that fails (offline).
@Suite("updates and retry")
struct UpdatesAndRetryTests {
    @Test("a new data version reloads once; the same version again does not, even when the load failed")
    func reloadOncePerChange() {
        var state = loadedState(snapshot: snapshot(dataVersion: 7))
        #expect(update(&state, .dataVersion(7)).isEmpty, "nothing changed")
        #expect(update(&state, .dataVersion(8)) == [.load])
        send(&state, .loadFailed("networkError: offline is true"), expecting: [])
        // The loop keeps asking twice a second; the failed load is not repeated for the same version.
        for _ in 0..<5 { #expect(update(&state, .dataVersion(8)).isEmpty) }
        #expect(update(&state, .dataVersion(9)) == [.load], "the next write (offline turned off) loads again")
        send(&state, .loaded(snapshot(dataVersion: 9)), expecting: [])
        #expect(state.loadError == nil)
        #expect(update(&state, .dataVersion(9)).isEmpty)
    }

    @Test("the change check reloads what the current screen shows")
    func reloadFollowsScreen() {
        var state = loadedState(on: .transactions, snapshot: snapshot(dataVersion: 1))
        #expect(update(&state, .dataVersion(2)) == [.load, .loadHistory])
        state = loadedState(on: .settings, snapshot: snapshot(dataVersion: 1))
        #expect(update(&state, .dataVersion(2)) == [.load, .loadSettings])
    }

    @Test("a change seen while the engine is busy is not lost: it reloads once the work is done")
    func changeWhileBusy() {
        var state = loadedState(snapshot: snapshot(dataVersion: 1))
        send(&state, .key(.enter), expecting: [])
        send(&state, .key(.enter), expecting: [.purchase(productID: "barcode_year_subscription")])
        #expect(update(&state, .dataVersion(2)).isEmpty, "no load in the middle of a purchase")
        send(&state, .paywall(.purchased(productID: state.products[0].id, bought(.userCancelled, state.products[0].id))), expecting: [.load])
        #expect(update(&state, .dataVersion(2)) == [.load])
    }

    @Test("the change check runs every fifth tick once there is something on screen, the load error too")
    func ticksCheck() {
        var state = State(size: Size(columns: 100, rows: 30), account: "a", storePath: "p", paywall: Paywall())
        _ = start(&state)
        for _ in 0..<10 { #expect(update(&state, .tick).isEmpty, "no check before the first load ends") }
        send(&state, .loadFailed("networkError: offline is true"), expecting: [])
        let effects = (0..<10).flatMap { _ in update(&state, .tick) }
        #expect(effects == [.checkForChanges, .checkForChanges])
        // The failed first load left no version: the first one seen loads.
        #expect(update(&state, .dataVersion(3)) == [.load])
        #expect(update(&state, .dataVersion(3)).isEmpty)
    }

    @Test("on a fast clock the screen is read again each second; at real time only the change check runs")
    func fastClockReloads() throws {
        var state = loadedState()
        let realTime = (0..<10).flatMap { _ in update(&state, .tick) }
        #expect(realTime == [.checkForChanges, .checkForChanges])
        var snapshot = try #require(state.snapshot)
        snapshot.timeRate = .monthlyRenewalEveryThirtySeconds
        send(&state, .loaded(snapshot), expecting: [])
        let fast = (0..<10).flatMap { _ in update(&state, .tick) }
        #expect(fast == [.checkForChanges, .checkForChanges, .load])
        state.busy = .restoring
        #expect(!(0..<10).flatMap { _ in update(&state, .tick) }.contains(.load), "not while the engine works")
    }

    @Test("what arrived as an update during a load is named in the status line")
    func arrived() {
        var state = loadedState()
        var snap = snapshot(owned: [purchase(swiftShopping)], dataVersion: 2)
        snap.arrived = [swiftShopping, "com.example.gone"]
        send(&state, .loaded(snap), expecting: [])
        #expect(state.flash == "Arrived as an update: Swift Shopping, com.example.gone")
        let canvas = render(state, timeZone: utc)
        #expect(canvas.lines.contains { $0.hasPrefix("  Arrived as an update: Swift Shopping") })
        #expect(canvas.lines.contains { $0.contains("✓  Swift Shopping") })
        // A load with nothing new keeps the note rather than clearing it.
        send(&state, .loaded(snapshot(owned: [purchase(swiftShopping)], dataVersion: 3)), expecting: [])
        #expect(state.flash == "Arrived as an update: Swift Shopping, com.example.gone")
    }

    @Test("offline after a load: the products stay, the status says the store is unreachable, [ Retry r ] replaces Restore")
    func offlineKeepsProducts() throws {
        var state = loadedState(snapshot: snapshot(owned: [purchase(swiftShopping)]))
        #expect(update(&state, .loadFailed("networkError (StoreKitError): The network is not available. (offline is true)")).isEmpty)
        let canvas = render(state, timeZone: utc)
        let lines = canvas.lines
        let layout = Layout(state)
        #expect(lines.contains { $0.contains("✓  Swift Shopping") && $0.contains("Owned") }, "the loaded products stay")
        #expect(lines[layout.actionRow] == "  ⚠ Store unreachable, showing the products loaded before: networkError (StoreKitErr…  [ Retry r ]")
        let retryX = lines[layout.actionRow].distance(of: "[ Retry r ]")
        #expect(canvas.target(atX: retryX + 2, y: layout.actionRow) == .retry)
        #expect(canvas[4, layout.actionRow].style.color == .red)
    }

    @Test("offline after a load, Enter still buys (the purchase meets the network error), c consumes, r retries visibly")
    func buyWhileOffline() {
        var state = loadedState(snapshot: snapshot(balances: [coins: 3]))
        state.selection = index(of: coins)
        send(&state, .loadFailed("networkError"), expecting: [])
        #expect(update(&state, .key(.enter)).isEmpty)
        #expect(state.sheet == .confirm(productID: coins), "loaded, network drops, Buy: reproducible")
        send(&state, .key(.escape), expecting: [.purchase(productID: coins, outcome: .cancel)])
        send(&state, .paywall(.purchased(productID: coins, bought(.userCancelled, coins))), expecting: [.load])
        #expect(update(&state, .key(.character("c"))) == [.consume(productID: coins)], "the balance is the app's own")
        send(&state, .paywall(.consumed(productID: coins, balance: 2)), expecting: [.load])
        #expect(update(&state, .key(.character("r"))) == [.load], "r retries, not restores")
        #expect(state.busy == .loading)
        let retrying = render(state, timeZone: utc).lines
        #expect(retrying.contains { $0.contains("Retrying: loading the products again…") && $0.contains("[ Retrying ") })
        send(&state, .loadFailed("networkError"), expecting: [])
        #expect(state.failedRetries == 1)
        #expect(render(state, timeZone: utc).lines.contains { $0.contains("retried 1×") }, "each retry's result shows")
        send(&state, .key(.character("r")), expecting: [.load])
        send(&state, .loaded(snapshot(balances: [coins: 2])), expecting: [])
        #expect(state.loadError == nil && state.failedRetries == 0)
        #expect(state.flash == "Retried: the store is reachable again")
        #expect(render(state, timeZone: utc).lines.contains { $0.contains("[ Restore Purchases ]") })
    }

    @Test("r and a click on Retry retry the load (not restore); success brings the table back")
    func retry() {
        for input in [Action.key(.character("r")), .click(.retry)] {
            var state = loadedState()
            send(&state, .loadFailed("networkError"), expecting: [])
            #expect(update(&state, input) == [.load], "\(input)")
            #expect(state.busy == .loading)
            #expect(state.sheet == nil, "\(input) opens no purchase sheet")
            #expect(update(&state, input).isEmpty, "\(input) again while loading starts nothing")
            send(&state, .loadFailed("networkError"), expecting: [])
            #expect(state.busy == nil)
            #expect(state.loadError == "networkError")
            #expect(update(&state, input) == [.load])
            send(&state, .loaded(snapshot()), expecting: [])
            #expect(state.loadError == nil)
            #expect(render(state).lines.contains { $0.contains("Swift Shopping") })
            // With the store back, r restores again.
            #expect(update(&state, .key(.character("r"))) == [.restore])
        }
    }

    @Test("a load error before the first load: a retry that works shows the table")
    func firstLoadFails() {
        var state = State(size: Size(columns: 80, rows: 24), account: "a", storePath: "p", paywall: demoCatalog.paywall)
        _ = start(&state)
        send(&state, .loadFailed("networkError"), expecting: [])
        let lines = render(state).lines
        #expect(lines.contains { $0.contains("[ Retry r ]") })
        #expect(!lines.contains { $0.contains("Loading products") })
        #expect(update(&state, .key(.enter)) == [.load], "Enter retries when no product is on screen")
        #expect(render(state).lines.contains { $0.contains("[ Retrying ") })
        send(&state, .loadFailed("networkError"), expecting: [])
        #expect(update(&state, .key(.character("r"))) == [.load])
        send(&state, .loaded(snapshot()), expecting: [])
        #expect(render(state).lines.contains { $0.contains("Swift Shopping") })
    }

    @Test("a year of renewals arriving is one name with its count, not the name twelve times")
    func countedNames() {
        var state = loadedState()
        var snap = snapshot(dataVersion: 2)
        snap.arrived = Array(repeating: monthly, count: 12) + [swiftShopping]
        send(&state, .loaded(snap), expecting: [])
        #expect(state.flash == "Arrived as an update: Monthly Subscription ×12, Swift Shopping")
    }
}
