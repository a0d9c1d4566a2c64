import Testing
@testable import StorefrontUI

/// The Transaction Manager's keys pressed on the paywall: said where they work, not ignored.
@Suite("Paywall: the Transaction Manager's keys")
struct PaywallManagerKeyHintTests {
    @Test("f, x and e on the paywall say they act in the Transaction Manager (t); no effect, no screen change")
    func managerKeysAreHinted() {
        var state = loadedState()
        assertUpdate(&state, .key(.character("f"))) { $0.flash = "f refunds a transaction in the Transaction Manager: press t" }
        assertUpdate(&state, .key(.character("x"))) { $0.flash = "x deletes a transaction in the Transaction Manager: press t" }
        assertUpdate(&state, .key(.character("e"))) { $0.flash = "e expires a transaction in the Transaction Manager: press t" }
        // In the manager they act: f is a refund there, not a hint.
        state.screen = .transactions
        #expect(ManagerAction(.character("f"), state) == .refund)
    }
}
