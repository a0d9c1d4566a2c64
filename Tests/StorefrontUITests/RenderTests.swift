import Foundation
@testable import StoreEngine
import Testing
@testable import StorefrontUI

/// Whole screens, compared line by line (ratatui's `Buffer::with_lines` style).
@Suite("render")
struct RenderTests {
    let events = [
        TransactionEvent(id: 1, date: fixedDate.addingTimeInterval(50531), account: "a", state: .purchasing,
                         productID: swiftShopping, transactionID: nil, detail: ""),
        TransactionEvent(id: 2, date: fixedDate.addingTimeInterval(50531), account: "a", state: .purchased,
                         productID: swiftShopping, transactionID: 2_000_000_001, detail: ""),
    ]

    @Test("the main screen at 100×30: groups, checkmarks, prices, statuses, log (dated, in the rows the table leaves), footer")
    func mainScreen100x30() {
        let owned = [purchase(swiftShopping),
                     purchase(monthly, id: 2_000_000_002, expires: fixedDate.addingTimeInterval(86_400 * 30))]
        var state = loadedState(columns: 100, rows: 30,
                                snapshot: snapshot(owned: owned, balances: [coins: 300], events: events))
        state.selection = index(of: iPhoneRage)
        let expected = [
            " Storefront · store.sqlite · tester@local · USA               p Paywall  t Transactions  s Settings",
            "  ★ Barcode Scanner Premium",
            "  Unlimited scans · No ads · Cloud sync",
            "  Scan without limits · Sync your history across devices · Unlock every RazeFace",
            String(repeating: "─", count: 93) + " 5/9 ──",
            "      PRODUCT               KIND                   PRICE   STATUS",
            "  Premium (subscription group)",
            "      Annual Subscription   1 year                 $39.99",
            "   ✓  Monthly Subscription  1 month                $4.99   Renews Dec 31, 2026",
            "      3-Month Subscription  3 months               $12.99",
            "  Non-consumables",
            "   ✓  Swift Shopping        Non-consumable         $0.99   Owned",
            " ▸    iPhone Rage           Non-consumable         $0.99                                   [ Buy ]",
            "      Nightly Rage          Non-consumable         $0.99",
            "      Go Pro                Non-consumable         $0.99",
            "  Consumables",
            "      100 Coins             Consumable             $0.99   Balance: 300",
            "  Non-renewing subscriptions",
            "      Season Pass           Non-renewing 3 months  $9.99",
            "                                                                             [ Restore Purchases ]",
            String(repeating: "─", count: 100),
            " 2026-12-01 14:02:11 purchasing com.razeware.razefaces.swiftshopping",
            " 2026-12-01 14:02:11 purchased  com.razeware.razefaces.swiftshopping  tx 2000000001",
            "",
            "",
            "",
            "",
            "",
            String(repeating: "─", count: 100),
            " ↑↓ move  ⏎ buy  t transactions  s settings  r restore  c consume  + > clock  ? help  q quit",
        ]
        let canvas = render(state, timeZone: utc)
        #expect(canvas.lines == expected)
        // The selected row's head is highlighted (HighlightTests has the rest); others are not.
        #expect(canvas[10, 12].style.reverse)
        #expect(!canvas[10, 11].style.reverse)
    }

    @Test("80×24: a trial's sheet says the trial, then the price, and what the settings make of it; a pending request on its row")
    func confirmationSheet80x24() {
        var loaded = snapshot(owned: [purchase(seasonPass, expires: fixedDate.addingTimeInterval(86_400 * 90))])
        loaded.introEligibleGroups = ["premium"]
        loaded.pending = [pendingRequest(goPro, reason: .askToBuy)]
        loaded.conditions.askToBuy = true
        var state = loadedState(columns: 80, rows: 24, snapshot: loaded)
        state.selection = index(of: monthly)
        send(&state, .key(.enter), expecting: [])
        let expected = [
            " Storefront · store.sqlite · tester@local · USA           p Pay  t Trans  s Set",
            "  ★ Barcode Scanner Premium",
            "  Unlimited scans · No ads · Cloud sync",
            String(repeating: "─", count: 73) + " 2/9 ──",
            "      PRODUCT               PRICE   STATUS",
            "  Premium (subscription group)",
            "      Annual Subscription   $39.99",
            "            ┌───────────────────── App Store ──────────────────────┐",
            "            │ Monthly Subscription                                 │",
            "            │ 1 month · 1 week free, then $4.99/month              │",
            "            │ Account: tester@local  [Environment: Xcode]          │",
            "            │ Outcome: ‹ as the settings say ›                     │",
            "            │ › pending Ask to Buy (askToBuy)                      │",
            "            │                                                      │",
            "            │            [ Confirm ⏎ ]   [ Cancel esc ]            │",
            "            └──────────────────────────────────────────────────────┘",
            // Season Pass, owned, is below the fold: the mark says rows are below.
            "  Non-renewing subscriptions                                                  ↓",
            "                                                         [ Restore Purchases ]",
            String(repeating: "─", count: 80),
            " No transactions yet. Press ⏎ to buy, r to restore.",
            "",
            "",
            String(repeating: "─", count: 80),
            // The sheet's keys, not the paywall's behind it (issue 40: "⏎ buy … r restore" under the sheet).
            " ‹› change  ⏎ confirm  esc cancel                             /tmp/store.sqlite",
        ]
        let canvas = render(state, timeZone: utc)
        // The rows the sheet spans are blank beside it: no "Monthl", no half of [ Buy ].
        #expect(canvas.lines == expected, "\(goldenDiff(expected, canvas.lines))")
        // The sheet's buttons are clickable.
        let row = canvas.lines.firstIndex { $0.contains("[ Confirm") }!
        let confirm = canvas.lines[row].distance(of: "[ Confirm")
        #expect(canvas.target(atX: confirm + 2, y: row) == .confirm)
        #expect(canvas.target(atX: confirm + 20, y: row) == .cancel)
    }

    @Test("the already-purchased sheet asks to get it again for free")
    func alreadyOwnedSheet() {
        var state = loadedState(snapshot: snapshot(owned: [purchase(swiftShopping)]))
        state.selection = index(of: swiftShopping)
        send(&state, .key(.enter), expecting: [])
        let text = render(state, timeZone: utc).lines.joined(separator: "\n")
        #expect(text.contains("You've already purchased this. Would you like to get"))
        #expect(text.contains("it again for free?"))
        #expect(text.contains("[ Get It Free ⏎ ]"))
    }

    @Test("a monochrome, non-UTF-8 terminal gets ASCII: [x] checkmarks, > pointer, - rules")
    func asciiFallback() {
        var state = loadedState(columns: 80, rows: 24, snapshot: snapshot(owned: [purchase(swiftShopping)]))
        state.glyphs = .ascii
        state.selection = index(of: swiftShopping)
        let canvas = render(state, timeZone: utc)
        let row = canvas.lines.first { $0.contains("Swift Shopping") }!
        #expect(row.hasPrefix(" >[x] Swift Shopping"))
        #expect(canvas.lines.first { $0.contains("iPhone Rage") }!.hasPrefix("  [ ] iPhone Rage"))
        #expect(canvas.lines[3] == String(repeating: "-", count: 73) + " 4/9 --", "the rule, with where the cursor is")
        for line in canvas.lines {
            let isASCII = line.unicodeScalars.allSatisfy { $0.isASCII }
            #expect(isASCII, "non-ASCII on an ASCII screen: \(line)")
        }
    }

    @Test("below the minimum size the screen says how much room it needs")
    func tooSmall() {
        let state = loadedState(columns: 40, rows: 10)
        let text = render(state).lines.joined(separator: "\n")
        #expect(text.contains("Storefront needs 60×16;"))
        #expect(text.contains("this terminal is 40×10."))
        #expect(!text.contains("Swift Shopping"))
        // And it comes back when the window grows.
        var grown = state
        send(&grown, .resized(Size(columns: 80, rows: 24)), expecting: [])
        #expect(render(grown).lines.joined().contains("Swift Shopping"))
    }

    @Test("before the first load a spinner says products are loading")
    func loading() {
        var state = State(size: Size(columns: 80, rows: 24), account: "a", storePath: "p", paywall: Paywall(title: "T"))
        _ = start(&state)
        let text = render(state).lines.joined(separator: "\n")
        #expect(text.contains("Loading products…"))
        send(&state, .tick, expecting: [])
        #expect(render(state).lines != render(loadedState(columns: 80, rows: 24)).lines)
    }

    @Test("the spinner turns while a purchase runs")
    func spinner() {
        var state = loadedState()
        send(&state, .key(.enter), expecting: [])
        send(&state, .key(.enter), expecting: [.purchase(productID: "barcode_year_subscription")])
        let first = render(state).lines.first { $0.contains("Purchasing Annual Subscription…") }
        send(&state, .tick, expecting: [])
        let second = render(state).lines.first { $0.contains("Purchasing Annual Subscription…") }
        #expect(first != nil && second != nil)
        #expect(first != second, "the spinner frame changes with each tick")
    }

    @Test("hostile catalog text is shown escaped and cannot break the layout")
    func hostileText() {
        var snap = snapshot()
        snap.products[0].displayName = "Evil\u{1B}[2J\u{1B}]0;pwned\u{07}\u{202E}txt.exe\nnext"
        let state = loadedState(snapshot: snap)
        let canvas = render(state, timeZone: utc)
        for cell in canvas.cells {
            #expect(!cell.text.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F || $0.value == 0x202E })
        }
        let row = canvas.lines[7]
        #expect(row.contains("Evil\\e[2J"), "ESC is shown as \\e")
        // The kind column still starts where it does on the other rows.
        #expect(row.distance(of: "1 year") == canvas.lines[8].distance(of: "1 month"))
    }

    @Test("wide characters (CJK, emoji) keep the columns aligned")
    func wideCharacters() {
        var snap = snapshot()
        snap.products[0].displayName = "年間プラン 🎉"
        let canvas = render(loadedState(snapshot: snap), timeZone: utc)
        // Measured in columns: the kind column starts at the same column on both rows.
        func column(of text: String, in line: String) -> Int {
            TerminalText.width(String(line[..<line.range(of: text)!.lowerBound]))
        }
        #expect(column(of: "1 year", in: canvas.lines[7]) == column(of: "1 month", in: canvas.lines[8]))
        // A wide character takes two cells, the second left empty.
        let x = canvas.lines[7].distance(of: "年")
        #expect(canvas[x, 7].text == "年")
        #expect(canvas[x + 1, 7].text == "")
    }

    @Test("100 columns: one long status is cut with … before its key, the KIND column stays; the action row says the status whole",
          arguments: [100, 80])
    func longStatusKeepsKind(columns: Int) {
        var snap = snapshot()
        snap.entitled.insert(iPhoneRage)  // bought, not on this device: the longest status of the demo
        var state = loadedState(columns: columns, rows: 30, snapshot: snap)
        #expect(update(&state, .paywall(.select(index(of: iPhoneRage)))).isEmpty)
        let lines = render(state, timeZone: utc).lines
        let whole = "Purchased, not on this device: r restores"
        let row = lines.first { $0.contains("iPhone Rage") } ?? ""
        if columns == 100 {
            #expect(lines.contains { $0.contains("KIND") }, "\n\(lines.joined(separator: "\n"))")
            // The words are cut, the key stays (tester's day, finding 7).
            #expect(row.contains("Non-consumable") && row.contains("$0.99   Purchased, not on") && row.contains("…: r restores")
                    && row.contains("[ Buy ]"), "\(row)")
        } else {
            // At 80 the KIND column goes first, as before (docs/paywall.md): the status keeps its words.
            #expect(!lines.contains { $0.contains("KIND") } && !row.contains("Non-consumable"), "\n\(lines.joined(separator: "\n"))")
        }
        #expect(lines.contains { $0.hasPrefix("  \(whole)") }, "the action row: \n\(lines.joined(separator: "\n"))")
    }

    /// Tester's day, finding 8: a note longer than the room beside [ Restore Purchases ] lost its end,
    /// often the useful part ("… (t lists every transaction)"), and it is gone after a few seconds.
    @Test("a note too long to sit beside the Restore button takes the whole line while it shows", arguments: [80, 100])
    func longNoteTakesTheLine(columns: Int) {
        var state = loadedState(columns: columns, rows: 24)
        let note = String("Crossgrade scheduled for Feb 6, 2027: nothing charged now; 3-Month Subscription starts then, at its price"
            .prefix(columns - 6))
        state.flash = note
        let lines = render(state).lines
        #expect(lines.contains { $0.hasPrefix("  \(note)") }, "\(lines.joined(separator: "\n"))")
        #expect(!lines.contains { $0.contains("[ Restore Purchases ]") })
        state.flash = "Restored 1 purchase"
        #expect(render(state).lines.contains { $0.hasPrefix("  Restored 1 purchase") && $0.contains("[ Restore Purchases ]") })
    }

    @Test("rows and the Restore button are clickable where they are drawn")
    func hotspots() {
        let state = loadedState()
        let canvas = render(state)
        let row = canvas.lines.firstIndex { $0.contains("Swift Shopping") }!
        #expect(canvas.target(atX: 10, y: row) == .product(index(of: swiftShopping)))
        let restoreRow = canvas.lines.firstIndex { $0.contains("[ Restore Purchases ]") }!
        let x = canvas.lines[restoreRow].distance(of: "[ Restore")
        #expect(canvas.target(atX: x + 3, y: restoreRow) == .restore)
        #expect(canvas.target(atX: 2, y: 0) == nil)
        let buyX = canvas.lines[7].distance(of: "[ Buy ]")
        #expect(canvas.target(atX: buyX + 1, y: 7) == .buy(0))
    }

    @Test("a product whose transaction fails verification gets a warning and no checkmark")
    func unverified() {
        var snap = snapshot()
        snap.unverified = [iPhoneRage: "the stored transaction does not match its signed payload (edited data)"]
        let canvas = render(loadedState(snapshot: snap), timeZone: utc)
        let row = canvas.lines.first { $0.contains("iPhone Rage") }!
        #expect(row.hasSuffix("⚠ Unverified"))
        #expect(!row.contains("✓"))
        let x = row.distance(of: "⚠")
        let y = canvas.lines.firstIndex(of: row)!
        #expect(canvas[x, y].style.color == .red)
    }

    @Test("the help sheet lists every key")
    func help() {
        var state = loadedState()
        #expect(update(&state, .key(.character("?"))) == [])
        let text = render(state).lines.joined(separator: "\n")
        for words in ["move", "page, first, last", "buy the selected product", "restore purchases", "consume one",
                      "event log", "this help", "quit", "mouse"] {
            #expect(text.contains(words), "help lacks \(words)")
        }
    }

    @Test("a tall catalog scrolls, with arrows showing rows hidden above and below")
    func scrollHints() {
        var state = loadedState(columns: 80, rows: 18)
        send(&state, .key(.end), expecting: [])
        let canvas = render(state)
        #expect(canvas.lines.contains { $0.hasSuffix("↑") })
        #expect(canvas.lines.contains { $0.contains("Season Pass") })
        #expect(!canvas.lines.contains { $0.contains("Annual Subscription") })
    }

    @Test("after deleting the app, a subscription the App Store still has shows at once, as currentEntitlements has it")
    func resetAppRow() {
        var snap = snapshot()
        var bought = purchase(monthly, expires: fixedDate.addingTimeInterval(86_400 * 30))
        bought.subscriptionGroupID = "premium"
        snap.subscriptions["premium"] = SubscriptionStatus(groupID: "premium", state: .subscribed, transaction: bought,
                                                           renewalInfo: renewalInfo(monthly))
        let state = loadedState(snapshot: snap)
        let row = render(state, timeZone: utc).lines.first { $0.contains("Monthly Subscription") }!
        #expect(row.contains("Renews") && row.contains(state.glyphs.check), "\(row)")
        #expect(!row.contains("not on this device") && !row.contains("r restores"), "\(row)")
    }

    @Test("a trial is shown as a trial on its row: when it ends and what it costs then")
    func trialRow() {
        var trial = purchase(monthly, expires: fixedDate.addingTimeInterval(7 * 86_400))
        (trial.price, trial.offerType, trial.offerPaymentMode, trial.subscriptionGroupID) = (0, .introductory, .freeTrial, "premium")
        var snap = snapshot(owned: [trial])
        snap.subscriptions["premium"] = SubscriptionStatus(groupID: "premium", state: .subscribed, transaction: trial,
                                                           renewalInfo: renewalInfo(monthly))
        var state = loadedState(snapshot: snap)
        let lines = render(state, timeZone: utc).lines
        let row = lines.first { $0.contains("Monthly Subscription") }!
        // At 100 columns the KIND column stays and the status is cut (issue 40); the selected row's is whole under the table.
        #expect(row.contains("1 month") && row.contains("Free trial until Dec 8, 2026, …"), "\(row)")
        #expect(update(&state, .paywall(.select(index(of: monthly)))).isEmpty)
        #expect(render(state, timeZone: utc).lines.contains { $0.hasPrefix("  Free trial until Dec 8, 2026, then $4.99/month ") })
        let wide = render(loadedState(columns: 120, snapshot: snap), timeZone: utc).lines.first { $0.contains("Monthly Subscription") }!
        #expect(wide.contains("Free trial until Dec 8, 2026, then $4.99/month"), "\(wide)")
    }
}

extension String {
    /// The character offset of the first occurrence of `text` (tests only).
    func distance(of text: String, sourceLocation: SourceLocation = #_sourceLocation) -> Int {
        guard let range = range(of: text) else {
            Issue.record("\"\(text)\" is not in \"\(self)\"", sourceLocation: sourceLocation)
            return 0
        }
        return distance(from: startIndex, to: range.lowerBound)
    }
}

/// The QA screens on a terminal without UTF-8.
@Suite("render, ASCII glyphs: the Transaction Manager, the settings screen and the outcome sheet")
struct ASCIIManagerScreenTests {
    @Test("the manager, the settings screen and the outcome sheet use only ASCII glyphs, none replaced by ?")
    func asciiScreens() {
        var manager = loadedState(on: .transactions)
        manager.glyphs = .ascii
        send(&manager, .manager(.historyLoaded(history)), expecting: [])
        var settings = loadedState(on: .settings)
        settings.glyphs = .ascii
        send(&settings, .settings(.loaded(settingRows(["purchaseError": "networkError"], once: ["purchaseError"]),
                                              accounts: ["tester@local"])), expecting: [])
        settings.settings.selection = 6
        var sheet = loadedState()
        sheet.glyphs = .ascii
        send(&sheet, .key(.enter), expecting: [])
        send(&sheet, .key(.right), expecting: [])
        var picker = manager
        send(&picker, .key(.character("o")), expecting: [])
        for state in [manager, settings, sheet, picker] {
            for line in render(state, timeZone: utc).lines {
                let isASCII = line.unicodeScalars.allSatisfy { $0.isASCII }
                #expect(isASCII, "\(line)")
                // The paywall behind the sheet shows catalog text ("·" in the subtitle) and "? help".
                if state.screen != .paywall || line.hasPrefix("  ") && line.contains("|") {
                    #expect(!line.replacingOccurrences(of: "? help", with: "").contains("?"), "a glyph without an ASCII stand-in: \(line)")
                }
            }
        }
        let settingsLines = render(settings, timeZone: utc).lines
        #expect(settingsLines.contains { $0.contains("< networkError (once) >") })
        #expect(render(manager, timeZone: utc).lines.contains { $0.hasPrefix("> 2000000006") })
        #expect(render(sheet, timeZone: utc).lines.contains { $0.contains("Outcome: < succeed >") })
    }
}
