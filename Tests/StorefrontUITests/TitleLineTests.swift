import Foundation
import StoreEngine
import Testing
@testable import StorefrontUI

/// The title line names Storefront and the store file at every width; the account gives way first.
@Suite("title line: the store file, the account and the clock")
struct TitleLineTests {
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
        send(&state, .loaded(snap), expecting: [])
        let title = render(state, timeZone: utc).lines[0]
        #expect(title.hasPrefix(" Storefront · store.sqlite · USA · 2026-12-01 00:00 UTC") && title.hasSuffix("s Set"), "\(title)")
        send(&state, .resized(Size(columns: 60, rows: 16)), expecting: [])
        let narrow = render(state, timeZone: utc).lines[0]
        #expect(narrow.hasPrefix(" Storefront · a-ver") && narrow.contains("…") && narrow.hasSuffix("s Set"), "\(narrow)")
    }
}
