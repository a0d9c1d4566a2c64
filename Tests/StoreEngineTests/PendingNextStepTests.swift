import Foundation
import Testing
@testable import StoreEngine

/// The command a pending purchase's message gives, to paste in another terminal: it names the
/// store the purchase is on, from any folder, as one shell word.
@Suite("Transaction.PendingReason.nextStep")
struct PendingNextStepTests {
    @Test("names the store: an absolute path as it is, a relative one from the current folder, quoted when the shell would split it")
    func namesTheStore() {
        let reason = Transaction.PendingReason.askToBuy
        #expect(reason.nextStep(id: 12) == "storefront approve 12 (or decline 12)")
        #expect(reason.nextStep(id: 12, store: "/tmp/qa/store.sqlite") == "storefront --store /tmp/qa/store.sqlite approve 12 (or decline 12)")
        let here = FileManager.default.currentDirectoryPath
        #expect(reason.nextStep(id: 3, store: "team.sqlite").hasPrefix("storefront --store \(here)/team.sqlite approve 3")
                || here.contains(" "))
        #expect(reason.nextStep(id: 3, store: "/tmp/Q A/it's.sqlite") == #"storefront --store '/tmp/Q A/it'\''s.sqlite' approve 3 (or decline 3)"#)
        #expect(Transaction.PendingReason.interrupted.nextStep(id: nil, store: "postgresql://qa@db/team")
                == "storefront --store postgresql://qa@db/team resolve")
    }
}
