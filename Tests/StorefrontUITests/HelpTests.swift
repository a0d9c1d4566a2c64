import StoreEngine
import Testing
@testable import StorefrontUI

/// Help per screen, wrapped to the width, every key listed; footers that name the keys that fit.
@Suite("help")
struct HelpTests {
    /// Every help line the sheet would show, scrolled through to the end.
    func helpText(_ screen: Screen, columns: Int, rows: Int) -> [String] {
        var state = loadedState(on: screen, columns: columns, rows: rows)
        #expect(update(&state, .key(.character("?"))) == [])
        #expect(state.sheet == .help)
        var seen: [String] = []
        for _ in 0..<60 {
            seen += render(state, timeZone: utc).lines
            #expect(update(&state, .key(.down)) == [])
        }
        return seen
    }

    @Test("no help line is cut, at 60, 80, 120 and 200 columns, on any screen; every key is there",
          arguments: [(60, 16), (80, 24), (120, 40), (200, 50)])
    func notCut(columns: Int, rows: Int) {
        for screen in Screen.allCases {
            let lines = helpText(screen, columns: columns, rows: rows)
            // What is inside the sheet's borders (the screen behind it may cut its own texts).
            let inside = lines.compactMap { line -> String? in
                guard let first = line.firstIndex(of: "│"), let last = line.lastIndex(of: "│"), first < last else { return nil }
                return String(line[first...last])
            }
            #expect(!inside.contains { $0.contains("…") }, "\(screen) at \(columns): \(inside.filter { $0.contains("…") })")
            let text = lines.joined(separator: "\n")
            for key in keyHelp(for: screen, .unicode) {
                for word in key.does.split(separator: " ").suffix(1) {
                    #expect(text.contains(word), "\(screen) at \(columns)×\(rows) lacks \(key.keys) (\(word))")
                }
            }
        }
    }

    @Test("at 80×24 every paywall key is on the help's first page, one line each, o b m among them")
    func paywallFirstPage() {
        var state = loadedState(on: .paywall, columns: 80, rows: 24)
        #expect(update(&state, .key(.character("?"))) == [])
        let page = render(state, timeZone: utc).lines.joined(separator: "\n")
        #expect(!page.contains("more:"), "nothing left for a second page")
        for key in keyHelp(for: .paywall, .unicode) {
            #expect(page.contains("│ " + TerminalText.padded(key.keys, to: 11) + "  " + key.does), "first page lacks \(key.keys)")
        }
        for key in ["o", "b", "m"] {
            #expect(keyHelp(for: .paywall, .unicode).contains { $0.keys == key }, "\(key) is a paywall key")
        }
    }

    @Test("each screen's help names its own keys")
    func perScreen() {
        let manager = helpText(.transactions, columns: 100, rows: 30).joined(separator: "\n")
        for words in ["approve the selected Ask to Buy request", "auto-renew on or off", "buy from outside the app",
                      "refund the selected transaction", "Keys: Transaction Manager"] {
            #expect(manager.contains(words), "manager help lacks \(words)")
        }
        #expect(!manager.contains("consume one"))
        let settings = helpText(.settings, columns: 100, rows: 30).joined(separator: "\n")
        for words in ["change the selected setting", "apply once", "Keys: Settings"] {
            #expect(settings.contains(words), "settings help lacks \(words)")
        }
    }

    @Test("while a sheet is open the footer names the sheet's keys, not the screen's behind it (⏎ buy, r restore)",
          arguments: [80, 100])
    func sheetFooters(columns: Int) {
        var state = loadedState(columns: columns, rows: 24)
        state.selection = index(of: iPhoneRage)
        let footer = { (state: State) in render(state, timeZone: utc).lines.last ?? "" }
        #expect(footer(state).contains("⏎ buy") && footer(state).contains("r restore"))
        #expect(update(&state, .key(.enter)).isEmpty)
        #expect(footer(state).hasPrefix(" ‹› change  ⏎ confirm  esc cancel "), "\(footer(state))")
        #expect(!footer(state).contains("buy") && !footer(state).contains("restore"))
        #expect(update(&state, .key(.escape)) == [.purchase(productID: iPhoneRage, outcome: .cancel)])
        state.busy = nil
        #expect(update(&state, .key(.character("?"))).isEmpty)
        #expect(footer(state).hasPrefix(" ↑↓ PgDn scroll  esc close "), "\(footer(state))")
        state.sheet = .confirmQuit
        #expect(footer(state).hasPrefix(" q quit  ⏎ stay "), "\(footer(state))")
        state.sheet = .alert(title: "Purchase Failed", message: "networkError")
        #expect(footer(state).hasPrefix(" ⏎ OK "), "\(footer(state))")
        // Every sheet's footer fits and says how to leave it.
        for sheet in [Sheet.redeemCode(), .refund(id: 1, reason: .other), .outsidePurchase(selection: 0), .messages(selection: 0),
                      .alreadyOwned(productID: swiftShopping), .priceIncrease(productID: monthly),
                      .refundRequest(transactionID: 1, productID: swiftShopping, reason: .other), .confirmCommand(.delete(1))] {
            state.sheet = sheet
            let text = sheetFooterHints(sheet, state, width: columns - 1)
            #expect(TerminalText.width(text) <= columns - 1 && (text.contains("esc") || text.contains("⏎")), "\(sheet): \(text)")
            #expect(!text.contains("⏎ buy") || sheet == .outsidePurchase(selection: 0), "\(sheet): \(text)")
        }
    }

    @Test("the 80-column footers name the other screens and help; none is cut")
    func footers() {
        #expect(footerHints(for: .paywall, .unicode, width: 79) == " ↑↓ move  ⏎ buy  t transactions  s settings  r restore  l log  ? help  q quit")
        for screen in Screen.allCases {
            let hints = footerHints(for: screen, .unicode, width: 79)
            #expect(TerminalText.width(hints) <= 79)
            #expect(hints.hasSuffix("? help  q quit"))
        }
    }
}
