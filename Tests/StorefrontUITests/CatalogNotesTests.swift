import Foundation
import StoreEngine
import Testing
@testable import StorefrontUI

/// A .storekit file's repair notes, shown once when the paywall opens.
@Suite("catalog notes on the paywall")
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
