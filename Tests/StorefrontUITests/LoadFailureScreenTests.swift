import Foundation
import StoreEngine
import Testing
@testable import StorefrontUI

/// When the products cannot load: what the event log says, and r retrying visibly.
@Suite("a failed load: the event log and retry")
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
