import Foundation
@testable import StoreEngine
import Testing
@testable import StorefrontUI

/// The demo paywall with a long catalog: the demo's products, then 100 sticker packs
/// (non-consumables) and 100 gem bundles (consumables): 209 products.
private func longPaywall(columns: Int = 80, rows: Int = 24) -> State {
    var loaded = snapshot()
    let template = loaded.products.first { $0.type == .nonConsumable }!
    let stickers = (1...100).map { number in
        var product = template
        (product.id, product.displayName) = ("com.example.sticker\(number)", "Sticker pack \(number)")
        return product
    }
    let coinTemplate = loaded.products.first { $0.type == .consumable }!
    let gems = (1...100).map { number in
        var product = coinTemplate
        (product.id, product.displayName) = ("com.example.gems\(number)", "\(number * 10) Gems")
        return product
    }
    // In the table's order: the groups as the demo has them, the new ones with their kind.
    let products = loaded.products.filter { $0.type == .autoRenewable } + loaded.products.filter { $0.type == .nonConsumable }
        + stickers + loaded.products.filter { $0.type == .consumable } + gems + loaded.products.filter { $0.type == .nonRenewable }
    loaded.products = products
    return loadedState(columns: columns, rows: rows, snapshot: loaded)
}

private func type(_ text: String, into state: inout State) {
    for character in text { #expect(update(&state, .key(.character(character))).isEmpty) }
}

@Suite("table search")
struct TableSearchTests {
    @Test("/ filters the product table as it is typed; Enter keeps the filter, Esc clears it (and only then asks to quit)")
    func filterKeepClear() {
        var state = loadedState()
        #expect(update(&state, .key(.character("/"))).isEmpty)
        #expect(state.search.isEditing && state.sheet == nil)
        type("coin", into: &state)
        #expect(state.search.matches == [index(of: coins)])
        #expect(state.selection == index(of: coins), "the cursor goes to the first match")
        let typing = render(state, timeZone: utc).lines
        #expect(typing[29].hasPrefix(" /coin   1 of 9 match  ⏎ keep  esc clear"), "the prompt on the bottom line: \(typing[29])")
        #expect(update(&state, .key(.enter)).isEmpty)
        #expect(!state.search.isEditing && state.search.matches == [index(of: coins)])
        let kept = render(state, timeZone: utc).lines
        #expect(kept.contains("  Consumables") && kept.contains { $0.contains("100 Coins") })
        #expect(!kept.contains { $0.contains("Swift Shopping") || $0.contains("Premium (subscription group)") },
                "only the match and its group's heading:\n\(kept.joined(separator: "\n"))")
        #expect(kept[4].hasSuffix(" /coin · 1/1 ──"), "the rule says the filter and where the cursor is: \(kept[4])")
        #expect(kept[29].contains("? help"), "the footer is back")
        // Enter now buys the match: the sheet is the App Store's for 100 Coins.
        #expect(update(&state, .key(.enter)).isEmpty)
        #expect(state.sheet == .confirm(productID: coins))
        send(&state, .key(.escape), expecting: [.purchase(productID: coins, outcome: .cancel)])
        send(&state, .paywall(.purchased(productID: coins, bought(.userCancelled, coins))), expecting: [.load])
        #expect(update(&state, .key(.escape)).isEmpty)
        #expect(state.search == TableSearch() && state.sheet == nil, "Esc clears the search first")
        #expect(state.selection == index(of: coins), "the cursor stays on the product it was on")
        send(&state, .key(.escape), expecting: [])
        #expect(state.sheet == .confirmQuit, "then Esc asks to quit, as before")
    }

    @Test("in the prompt every key types (q does not quit); backspace deletes, and closes it when empty; Esc cancels")
    func promptKeys() {
        var state = loadedState()
        send(&state, .key(.character("/")), expecting: [])
        type("qrage", into: &state)
        #expect(state.isRunning && state.search.query == "qrage" && state.search.matches == [])
        #expect(render(state, timeZone: utc).lines.contains { $0.contains("No product matches “qrage”") })
        #expect(update(&state, .key(.enter)).isEmpty)
        #expect(update(&state, .key(.enter)).isEmpty && state.sheet == nil, "nothing to buy when nothing matches")
        send(&state, .key(.character("/")), expecting: [])
        #expect(state.search.isEditing && state.search.query == "qrage", "/ edits the search kept")
        for _ in 0..<5 { send(&state, .key(.backspace), expecting: []) }
        #expect(state.search.query == "" && state.search.isEditing && state.search.matches == nil)
        send(&state, .key(.backspace), expecting: [])
        #expect(!state.search.isEditing)
        send(&state, .key(.character("/")), expecting: [])
        type("rage", into: &state)
        send(&state, .key(.escape), expecting: [])
        #expect(state.search == TableSearch())
    }

    @Test("n and N go to the next and previous match, round the ends; ↑ ↓ go among the matches only")
    func nextPrevious() {
        var state = loadedState()
        send(&state, .key(.character("/")), expecting: [])
        type("Rage", into: &state)
        #expect(update(&state, .key(.down)).isEmpty, "↓ moves while the prompt is open")
        send(&state, .key(.enter), expecting: [])
        let matches = [index(of: iPhoneRage), index(of: "com.razeware.razefaces.nightlyrage")]
        #expect(state.search.matches == matches)
        #expect(state.selection == matches[1])
        send(&state, .key(.character("n")), expecting: [])
        #expect(state.selection == matches[0], "round from the last to the first")
        send(&state, .key(.character("N")), expecting: [])
        #expect(state.selection == matches[1])
        send(&state, .key(.down), expecting: [])
        #expect(state.selection == matches[1], "no further than the last match")
        send(&state, .key(.home), expecting: [])
        #expect(state.selection == matches[0])
        // Without a search n and N do nothing.
        var plain = loadedState()
        #expect(update(&plain, .key(.character("n"))).isEmpty && plain.selection == 0)
    }

    @Test("the position on the rule: 37/209 on a long table; case and accents ignored (munzen finds Münzen)")
    func positionAndFolding() {
        var state = longPaywall()
        for _ in 0..<36 { send(&state, .key(.down), expecting: []) }
        #expect(render(state, timeZone: utc).lines[3].hasSuffix(" 37/209 ──"))
        var german = loadedState(snapshot: {
            var loaded = snapshot()
            loaded.storefront = demoCatalog.storefront("DEU")!
            loaded.products = demoCatalog.products(in: loaded.storefront)
            return loaded
        }())
        send(&german, .key(.character("/")), expecting: [])
        type("MUNZEN", into: &german)
        #expect(german.search.matches == [index(of: coins)], "\(german.products.map(\.displayName))")
    }

    @Test("sticky headings: scrolled into a group, its heading stays on the table's top row; the cursor never hides under it")
    func stickyHeadings() {
        var state = longPaywall()
        let layout = Layout(state)
        for _ in 0..<40 { send(&state, .key(.down), expecting: []) }
        var screen = render(state, timeZone: utc).lines
        #expect(screen[layout.tableTop].hasPrefix("  Non-consumables    ") && screen[layout.tableTop].hasSuffix("↑"),
                "the heading, and the mark that rows are above:\n\(screen.joined(separator: "\n"))")
        #expect(screen.contains { $0.hasPrefix(" ▸") && $0.contains("Sticker pack 34") })
        // Up, row by row, to the top of the view and past it: the cursor's row is always drawn, below the heading.
        for _ in 0..<30 {
            send(&state, .key(.up), expecting: [])
            screen = render(state, timeZone: utc).lines
            let cursor = screen.firstIndex { $0.hasPrefix(" ▸") }
            #expect(cursor.map { $0 > layout.tableTop } == true, "\n\(screen.joined(separator: "\n"))")
            #expect(screen[layout.tableTop].hasPrefix("  Non-consumables") || screen[layout.tableTop].hasPrefix("  Premium"))
        }
        // Into the consumables: their heading takes the top row.
        send(&state, .key(.end), expecting: [])
        for _ in 0..<20 { send(&state, .key(.up), expecting: []) }
        screen = render(state, timeZone: utc).lines
        #expect(screen[layout.tableTop].hasPrefix("  Consumables    "), "\n\(screen.joined(separator: "\n"))")
        #expect(render(state, timeZone: utc)[2, layout.tableTop].style == Style(bold: true, color: .cyan))
    }

    @Test("at 80 columns a selected row's status its column cuts is said whole on the status line (nothing else to say)")
    func wholeStatusOnTheStatusLine() {
        var state = loadedState(columns: 80, rows: 24, snapshot: snapshot(owned: [purchase(seasonPass)]))
        // The last row, below the fold at 80×24: End moves there and scrolls it into view.
        #expect(update(&state, .key(.end)).isEmpty && state.selection == index(of: seasonPass))
        let whole = "Bought Dec 1, 2026 · 3 months (app's count)"
        var screen = render(state, timeZone: utc).lines
        let row = screen.first { $0.contains("Season Pass") } ?? ""
        #expect(row.contains("…") && !row.contains(whole), "cut in its column: \(row)")
        #expect(screen.contains { $0.hasPrefix("  \(whole)") && $0.hasSuffix("[ Restore Purchases ]") }, "\n\(screen.joined(separator: "\n"))")
        state.flash = "Purchased Go Pro"
        screen = render(state, timeZone: utc).lines
        #expect(!screen.contains { $0.hasPrefix("  \(whole)") }, "a note goes first")
        state.flash = nil
        state.selection = index(of: swiftShopping)
        #expect(!render(state, timeZone: utc).lines.contains { $0.contains("Owned") && $0.contains("Restore Purchases") }, "a whole status is not repeated")
    }

    @Test("the manager: / filters by id, product or state; Enter keeps, Esc clears before going back; n still renews")
    func managerSearch() {
        var state = loadedState(on: .transactions)
        var sub = transaction(monthly, id: 2_000_000_004, expires: fixedDate.addingTimeInterval(30 * 86_400))
        sub.subscriptionGroupID = "premium"
        send(&state, .manager(.historyLoaded([
            transaction(iPhoneRage, id: 2_000_000_006, status: .pending, pending: .askToBuy),
            transaction(swiftShopping, id: 2_000_000_005, refunded: true), sub,
            transaction(coins, id: 2_000_000_003, status: .pending, pending: .interrupted),
        ])), expecting: [])
        send(&state, .key(.character("/")), expecting: [])
        type("pending", into: &state)
        #expect(state.manager.search.matches == [0, 3])
        send(&state, .key(.enter), expecting: [])
        send(&state, .key(.down), expecting: [])
        #expect(state.manager.selection == 3, "↓ goes to the next match")
        let screen = render(state, timeZone: utc).lines
        #expect(screen[2].hasSuffix(" /pending · 2/2 ──"))
        #expect(screen[4].contains("2000000006") && screen[5].contains("2000000003") && !screen[6].contains("2000"),
                "\n\(screen.joined(separator: "\n"))")
        #expect(update(&state, .key(.escape)).isEmpty)
        #expect(state.screen == .transactions && state.manager.search == TableSearch())
        send(&state, .key(.character("/")), expecting: [])
        type("monthly", into: &state)
        send(&state, .key(.enter), expecting: [])
        #expect(state.manager.selected?.id == 2_000_000_004)
        #expect(update(&state, .key(.character("n"))) == [.run(.renew(groupID: "premium"))], "n is renew now here, as before")
        // A new list keeps the filter on what it now holds.
        send(&state, .commandFinished(.renew(groupID: "premium"), .success("Renewed")), expecting: [.load, .loadHistory])
        send(&state, .manager(.historyLoaded([transaction(swiftShopping, id: 2_000_000_005)])), expecting: [])
        #expect(state.manager.search.matches == [])
        send(&state, .key(.escape), expecting: [])
        send(&state, .key(.escape), expecting: [])
        #expect(state.screen == .paywall)
    }
}
