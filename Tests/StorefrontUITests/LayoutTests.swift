import Foundation
import StoreEngine
import Testing
@testable import StorefrontUI

/// What 80×24, the most common size, must show: [ Buy ], the tabs, the trial text, the keys.
@Suite("layout at 80×24")
struct LayoutTests {
    @Test("the selected row has [ Buy ], the trial text is whole, KIND is the column traded")
    func eightyByTwentyFour() {
        var eligible = snapshot()
        eligible.introEligibleGroups = ["premium"]
        var state = loadedState(columns: 80, rows: 24, snapshot: eligible)
        #expect(update(&state, .key(.down)) == [])
        let lines = render(state, timeZone: utc).lines
        #expect(lines[0].hasPrefix(" Storefront · store.sqlite · ") && lines[0].hasSuffix("p Pay  t Trans  s Set"), "the store file named, the tabs shortened")
        #expect(lines[4] == "      PRODUCT               PRICE   STATUS")
        #expect(lines[7] == " ▸    Monthly Subscription  $4.99   1 week free, then $4.99/month      [ Buy ]")
        #expect(lines[23].contains("t transactions") && lines[23].contains("s settings") && lines[23].contains("? help"))
    }

    @Test("with the store's clock shown, the tabs stay at 80 columns")
    func tabsWithClock() throws {
        var state = loadedState(columns: 80, rows: 24)
        var changed = try #require(state.snapshot)
        changed.clock = fixedDate
        changed.timeRate = .monthlyRenewalEveryThirtySeconds
        #expect(update(&state, .loaded(changed)) == [])
        let title = render(state, timeZone: utc).lines[0]
        #expect(title.contains("2026-12-01 00:00 UTC (fast)"), "\(title)")
        #expect(title.contains("p ") && title.contains("t ") && title.contains("s "), "\(title)")
        #expect(render(state, timeZone: utc).target(atX: 79 - 3, y: 0) == .screen(.settings))
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
