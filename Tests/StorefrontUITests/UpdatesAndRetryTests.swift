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
        _ = update(&state, .loadFailed("networkError: offline is true"))
        // The loop keeps asking twice a second; the failed load is not repeated for the same version.
        for _ in 0..<5 { #expect(update(&state, .dataVersion(8)).isEmpty) }
        #expect(update(&state, .dataVersion(9)) == [.load], "the next write (offline turned off) loads again")
        _ = update(&state, .loaded(snapshot(dataVersion: 9)))
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
        _ = update(&state, .key(.enter))
        _ = update(&state, .key(.enter))
        #expect(update(&state, .dataVersion(2)).isEmpty, "no load in the middle of a purchase")
        _ = update(&state, .purchased(productID: state.products[0].id, .userCancelled))
        #expect(update(&state, .dataVersion(2)) == [.load])
    }

    @Test("the change check runs every fifth tick once there is something on screen, the load error too")
    func ticksCheck() {
        var state = State(size: Size(columns: 100, rows: 30), account: "a", storePath: "p", paywall: Paywall())
        _ = start(&state)
        for _ in 0..<10 { #expect(update(&state, .tick).isEmpty, "no check before the first load ends") }
        _ = update(&state, .loadFailed("networkError: offline is true"))
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
        _ = update(&state, .loaded(snapshot))
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
        _ = update(&state, .loaded(snap))
        #expect(state.flash == "Arrived as an update: Swift Shopping, com.example.gone")
        let canvas = render(state, timeZone: utc)
        #expect(canvas.lines.contains { $0.hasPrefix("  Arrived as an update: Swift Shopping") })
        #expect(canvas.lines.contains { $0.contains("✓  Swift Shopping") })
        // A load with nothing new keeps the note rather than clearing it.
        _ = update(&state, .loaded(snapshot(owned: [purchase(swiftShopping)], dataVersion: 3)))
        #expect(state.flash == "Arrived as an update: Swift Shopping, com.example.gone")
    }

    @Test("a failed load shows the error and [ Retry r ] instead of the table")
    func loadErrorScreen() throws {
        var state = loadedState(snapshot: snapshot(owned: [purchase(swiftShopping)]))
        _ = update(&state, .loadFailed("networkError (StoreKitError): The network is not available. (offline is true)"))
        let canvas = render(state, timeZone: utc)
        let lines = canvas.lines
        #expect(lines[6] == "  Could not load the products: networkError (StoreKitError): The network is not available.")
        #expect(lines[7] == "  (offline is true)")
        #expect(lines[9] == "  [ Retry r ]  offline or loadProductsError? change it on the settings screen (s)")
        #expect(!lines.contains { $0.contains("Swift Shopping") }, "no stale table under an error")
        #expect(!lines.contains { $0.contains("PRODUCT") })
        #expect(canvas.target(atX: 5, y: 9) == .retry)
        #expect(canvas[4, 6].style.color == .red)
    }

    @Test("r and Enter retry the load (not restore, not buy); a click on Retry too; success brings the table back")
    func retry() {
        for input in [Action.key(.character("r")), .key(.enter), .click(.retry)] {
            var state = loadedState()
            _ = update(&state, .loadFailed("networkError"))
            #expect(update(&state, input) == [.load], "\(input)")
            #expect(state.busy == .loading)
            #expect(state.sheet == nil, "\(input) opens no purchase sheet")
            #expect(update(&state, input).isEmpty, "\(input) again while loading starts nothing")
            _ = update(&state, .loadFailed("networkError"))
            #expect(state.busy == nil)
            #expect(state.loadError == "networkError")
            #expect(update(&state, input) == [.load])
            _ = update(&state, .loaded(snapshot()))
            #expect(state.loadError == nil)
            #expect(render(state).lines.contains { $0.contains("Swift Shopping") })
            // With the table back, r restores again.
            #expect(update(&state, .key(.character("r"))) == [.restore])
        }
    }

    @Test("under a load error, space and c act on no product: the table with the selection is not on screen")
    func noHiddenPurchase() {
        var state = loadedState(snapshot: snapshot(balances: [coins: 3]))
        state.selection = index(of: coins)
        _ = update(&state, .loadFailed("networkError"))
        #expect(update(&state, .key(.character(" "))).isEmpty)
        #expect(state.sheet == nil, "no App Store sheet for a product the screen does not show")
        #expect(update(&state, .key(.character("c"))).isEmpty)
        #expect(state.busy == nil)
        _ = update(&state, .loaded(snapshot(balances: [coins: 3])))
        #expect(update(&state, .key(.character("c"))) == [.consume(productID: coins)], "with the table back they work")
    }

    @Test("a load error before the first load: a retry that works shows the table")
    func firstLoadFails() {
        var state = State(size: Size(columns: 80, rows: 24), account: "a", storePath: "p", paywall: demoCatalog.paywall)
        _ = start(&state)
        _ = update(&state, .loadFailed("networkError"))
        let lines = render(state).lines
        #expect(lines.contains { $0.contains("[ Retry r ]") })
        #expect(!lines.contains { $0.contains("Loading products") })
        #expect(update(&state, .key(.character("r"))) == [.load])
        _ = update(&state, .loaded(snapshot()))
        #expect(render(state).lines.contains { $0.contains("Swift Shopping") })
    }
}
