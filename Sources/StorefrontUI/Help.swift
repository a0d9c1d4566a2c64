// Every key of each screen, said once: the help sheet lists them all, wrapped to the
// width; the footer shows the ones that fit, most used first, and always "? help".

/// A key of a screen and what it does; `hint` is its short form for the footer (nil: help only).
struct KeyHelp: Equatable {
    var keys: String
    var does: String
    var hint: String?
}

/// The keys of `screen`, in the order the help sheet lists them; `recording` adds `=` to the paywall's.
func keyHelp(for screen: Screen, _ g: Glyphs, recording: Bool = false) -> [KeyHelp] {
    let move = KeyHelp(keys: "\(g.up) \(g.down)  k j", does: "move", hint: "\(g.up)\(g.down) move")
    let scroll = KeyHelp(keys: "PgUp PgDn Home End g G", does: "page, first, last")
    let clock = KeyHelp(keys: "+  >", does: "advance the store's clock a day, a month (renewals follow)", hint: "+ > clock")
    let help = KeyHelp(keys: "?  h", does: "this help", hint: "? help")
    let quit = KeyHelp(keys: "q  Ctrl-C", does: "quit", hint: "q quit")
    switch screen {
    case .paywall:
        // One line a key, so every key fits the first page at 80×24 (the issue's newcomer never
        // found o, b and m); the footer starts with "move" (footerHints). While recording, `=` comes
        // right after buy, so the footer has room for it (issue 40: it was in neither).
        let expect = recording
            ? [KeyHelp(keys: "=", does: "record an expectation: the selected row as it shows now (--record)", hint: "= expect")] : []
        return [
            KeyHelp(keys: "\(g.enter)  space", does: "buy the selected product: the App Store sheet", hint: "\(g.enter) buy"),
        ] + expect + [
            KeyHelp(keys: "t", does: "the Transaction Manager: approve, decline, refund, renew", hint: "t transactions"),
            KeyHelp(keys: "s", does: "settings, testers and resets", hint: "s settings"),
            KeyHelp(keys: "r", does: "restore purchases (after a failed load: retry)", hint: "r restore"),
            KeyHelp(keys: "c", does: "consume one of the selected consumable", hint: "c consume"),
            KeyHelp(keys: "o", does: "Redeem Code: type an offer code, \(g.enter) redeems it"),
            KeyHelp(keys: "b", does: "request a refund, as the app's beginRefundRequest"),
            KeyHelp(keys: "m", does: "the App Store's messages: shown at once, or deferred"),
            clock,
            KeyHelp(keys: "/  n N", does: "search by name, id, kind, price, status; n N next, previous",
                    hint: "/ search"),
            KeyHelp(keys: "esc", does: "quit, after asking (\(g.enter) stays); first clears a search"),
            KeyHelp(keys: "\(g.left) \(g.right)  o  tab", does: "on the App Store sheet: how it ends; \(g.up) \(g.down) offer, plan"),
            KeyHelp(keys: "\(g.up) \(g.down)  k j", does: "move; PgUp PgDn Home End g G: page, first, last",
                    hint: "\(g.up)\(g.down) move"),
            KeyHelp(keys: "l  [ ]  { }", does: "show or hide the event log; scroll it a line, a page", hint: "l log"),
            help,
            KeyHelp(keys: "q  Ctrl-C", does: "quit", hint: "q quit"),
            KeyHelp(keys: "mouse", does: "click a row, [ Buy ], [ Restore Purchases ], a tab"),
        ]
    case .transactions:
        return [
            move, scroll,
            KeyHelp(keys: "a", does: "approve the selected Ask to Buy request", hint: "a approve"),
            KeyHelp(keys: "d", does: "decline the selected Ask to Buy request", hint: "d decline"),
            KeyHelp(keys: "v", does: "resolve the selected interrupted purchase", hint: "v resolve"),
            KeyHelp(keys: "f", does: "refund the selected transaction: choose the reason (developerIssue, other) with ← →", hint: "f refund"),
            KeyHelp(keys: "b", does: "request a refund of the selected transaction as the app does (Transaction.beginRefundRequest): "
                        + "choose the reason; the sheet says what Submit does (the App Store decides later, or at once as "
                        + "refundRequestOutcome says, or the error), the state says refund requested"),
            KeyHelp(keys: "e", does: "expire the selected subscription now", hint: "e expire"),
            KeyHelp(keys: "n", does: "renew the selected subscription now", hint: "n renew"),
            KeyHelp(keys: "u", does: "turn the selected subscription's auto-renew on or off (the line under the list says which)", hint: "u auto-renew"),
            KeyHelp(keys: "x", does: "delete the selected transaction (asks first)", hint: "x delete"),
            KeyHelp(keys: "\(g.enter)  i", does: "the selected transaction's details: a subscription's timeline (trial, paid "
                        + "periods, upgrades and downgrades, grace period, billing retry, expiry, refund, now), price, offer, reason, "
                        + "dates, the request, the signed payload and its verification, the server notifications; \(g.up) \(g.down) "
                        + "scroll, w wraps long values whole (w again cuts them), esc (or i) closes",
                    hint: "i details"),
            KeyHelp(keys: "o", does: "buy from outside the app (another device): arrives as an update", hint: "o outside"),
            clock, KeyHelp(keys: "l", does: "the event log is the paywall's (p): l there shows or hides it, [ ] { } scroll it"),
            KeyHelp(keys: "/", does: "search: the list shows the transactions whose id, product or state match what you type "
                        + "(pending, refunded, expired); \(g.enter) keeps the filter, esc clears it; \(g.up) \(g.down) go from match "
                        + "to match (n is renew here)", hint: "/ search"),
            KeyHelp(keys: "p  esc", does: "back to the paywall (esc first clears a search)", hint: "esc back"),
            KeyHelp(keys: "s", does: "settings, testers and resets"),
            help, quit,
            KeyHelp(keys: "mouse", does: "click a row to select it, a tab to switch screens"),
        ]
    case .settings:
        return [
            move, KeyHelp(keys: "Home End g G", does: "first, last"),
            KeyHelp(keys: "\(g.left) \(g.right)  \(g.enter)  space", does: "change the selected setting, switch tester, or run the action",
                    hint: "\(g.left)\(g.right) change"),
            KeyHelp(keys: "o", does: "make the selected error setting apply once (the next call only)", hint: "o once"),
            clock,
            KeyHelp(keys: "p  esc", does: "back to the paywall", hint: "esc back"),
            KeyHelp(keys: "t", does: "Transaction Manager"),
            help, quit,
            KeyHelp(keys: "mouse", does: "click a row to select it, a tab to switch screens"),
        ]
    }
}

/// The help sheet's lines for a screen, wrapped to `width` columns: keys in a column of
/// their own, what they do wrapped beside them.
func helpLines(for screen: Screen, _ g: Glyphs, width: Int, recording: Bool = false) -> [String] {
    let keys = keyHelp(for: screen, g, recording: recording)
    let keyWidth = min(keys.map { TerminalText.width($0.keys) }.max() ?? 0, max(4, width / 3))
    let room = max(8, width - keyWidth - 2)
    var lines: [String] = []
    for key in keys {
        // Keys wider than their column get a line of their own, never cut.
        let ownLine = TerminalText.width(key.keys) > keyWidth
        if ownLine { lines.append(key.keys) }
        for (index, part) in wrap(key.does, room).enumerated() {
            let left = index == 0 && !ownLine ? TerminalText.padded(key.keys, to: keyWidth) : String(repeating: " ", count: keyWidth)
            lines.append(left + "  " + part)
        }
    }
    return lines
}

/// The footer's hints for a screen that fit in `width` columns, in the help's order,
/// always ending with "? help" (and "q quit" when it fits).
/// `offered` keeps a hint or drops it (the manager's actions the selected transaction does not allow).
func footerHints(for screen: Screen, _ g: Glyphs, width: Int, recording: Bool = false,
                 offered: (String) -> Bool = { _ in true }) -> String {
    let hints = keyHelp(for: screen, g, recording: recording).compactMap(\.hint).filter(offered)
    // "move" leads the footer wherever the help lists it.
    let isMove = { (hint: String) in hint.hasSuffix(" move") }
    return fitHints(hints.filter(isMove) + hints.filter { !isMove($0) }, width: width)
}

/// The footer while the manager's detail pane is open: its own keys first, then the actions.
func detailFooterHints(_ g: Glyphs, width: Int, offered: (String) -> Bool = { _ in true }) -> String {
    let actions = keyHelp(for: .transactions, g).compactMap(\.hint)
        .filter { !$0.hasSuffix(" move") && $0 != "i details" && $0 != "esc back" && offered($0) }
    return fitHints(["\(g.up)\(g.down) scroll", "w wrap", "esc close"] + actions, width: width)
}

/// The footer while a sheet is open: the sheet's own keys, in the order it is used. The keys of the
/// screen behind (`⏎ buy … r restore`) do not act while a sheet is open (issue 40), and `? help`
/// and `q quit` neither: q cancels most sheets.
func sheetFooterHints(_ sheet: Sheet, _ state: State, width: Int) -> String {
    let g = state.glyphs
    let cancel = "esc cancel"
    let hints: [String] = switch sheet {
    case .confirm(let productID, _, let selection):
        (sheetFields(state.products.first { $0.id == productID }, selection, state).count > 1 ? ["\(g.up)\(g.down) line"] : [])
            + ["\(g.left)\(g.right) change", "\(g.enter) confirm", cancel]
    case .alreadyOwned: ["\(g.enter) get it free", cancel]
    case .confirmCommand(let command): ["\(g.enter) \(command.verb)", cancel]
    case .outsidePurchase: ["\(g.up)\(g.down) choose", "PgUp PgDn Home End", "\(g.enter) buy", cancel]
    case .alert: ["\(g.enter) OK"]
    case .help: ["\(g.up)\(g.down) PgDn scroll", "esc close"]
    case .refund: ["\(g.left)\(g.right) reason", "\(g.enter) refund", cancel]
    case .confirmQuit: ["q quit", "\(g.enter) stay"]
    case .redeemCode: ["type the code", "\(g.enter) redeem", cancel]
    case .message(let message):
        switch message.reason {
        case .billingIssue: ["\(g.enter) continue: the payment method works", "esc close"]
        case .winBackOffer: ["\(g.enter) subscribe", "esc close"]
        case .generic, .priceIncreaseConsent: ["\(g.enter) OK", "esc close"]
        }
    case .priceIncrease(let productID):
        pendingConsent(productID, state) != nil ? ["\(g.enter) agree", "x cancel the subscription", "esc not now"] : ["\(g.enter) OK"]
    case .messages: ["\(g.up)\(g.down) choose", "\(g.left)\(g.right) when shown", "\(g.enter) show", "esc close"]
    case .refundRequest: ["\(g.up)\(g.down) reason", "\(g.enter) submit", cancel]
    }
    var chosen: [String] = []
    var used = 1
    for hint in hints where used + TerminalText.width(hint) + 2 <= width {
        chosen.append(hint)
        used += TerminalText.width(hint) + 2
    }
    return " " + chosen.joined(separator: "  ")
}

private func fitHints(_ hints: [String], width: Int) -> String {
    let always = hints.filter { $0.hasPrefix("?") || $0.hasPrefix("q ") }
    var chosen: [String] = []
    var used = always.map { TerminalText.width($0) + 2 }.reduce(0, +) + 1
    for hint in hints where !always.contains(hint) {
        let w = TerminalText.width(hint) + 2
        if used + w <= width {
            chosen.append(hint)
            used += w
        }
    }
    return " " + (chosen + always).joined(separator: "  ")
}

// MARK: - Keys

/// Keys on the help sheet: ↑ ↓ PgUp PgDn scroll it, ⏎ Esc q ? close it.
func helpKey(_ state: inout State, _ key: Key) {
    switch key {
    case .down, .character("j"): state.helpScroll += 1
    case .up, .character("k"): state.helpScroll = max(0, state.helpScroll - 1)
    case .pageDown, .character(" "): state.helpScroll += max(1, state.size.rows - 8)
    case .pageUp: state.helpScroll = max(0, state.helpScroll - max(1, state.size.rows - 8))
    case .enter, .escape, .character("q"), .character("?"): state.sheet = nil
    default: break
    }
}
