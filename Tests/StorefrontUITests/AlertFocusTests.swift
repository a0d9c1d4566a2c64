import Foundation
import StoreEngine
import Testing
@testable import StorefrontUI

/// After a Purchase Pending alert, t opens the Transaction Manager on that request, called a request.
@Suite("Transaction Manager: opens on the alert's request")
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
        let effects = update(&state, .paywall(.purchased(productID: nightlyRage, bought(.pending(pendingRequest(nightlyRage, id: interrupted.id, reason: .interrupted)), nightlyRage))))
        #expect(effects == [.load])
        guard case .alert("Purchase Pending", let message)? = state.sheet else {
            Issue.record("no Purchase Pending alert: \(String(describing: state.sheet))")
            return
        }
        #expect(message.contains("In the Transaction Manager: t, then v.") && message.contains("storefront --store /tmp/store.sqlite resolve 2000000005"), "\(message)")
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
        send(&state, .manager(.historyLoaded(history)), expecting: [])
        selectTransaction(&state, 1)
        let lines = render(state, timeZone: utc).lines
        let line = lines[ManagerLayout(state.size).detailRow]
        #expect(line.contains("request 2000000005") && !line.contains("tx 2000000005"), "\(line)")
        #expect(update(&state, .key(.character("i"))).contains(.loadNotifications(transactionID: 2_000_000_005)))
        #expect(render(state, timeZone: utc).lines.contains { $0.contains("Request 2000000005 · Nightly Rage") })
    }
}
