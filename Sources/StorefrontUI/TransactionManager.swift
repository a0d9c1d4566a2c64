import Foundation
import StoreEngine

// The Transaction Manager screen (t): the account's history, newest first, and
// what a tester does to it — approve, decline, resolve, refund, delete, and buy
// from outside the app — as Xcode's Transaction Manager offers.

/// Where the manager's parts go for a screen size.
struct ManagerLayout {
    let listTop = 4
    let listHeight: Int
    /// The line that says what the selected transaction allows.
    let detailRow: Int
    let statusRow: Int

    init(_ size: Size) {
        statusRow = size.rows - 2
        detailRow = size.rows - 3
        listHeight = max(0, detailRow - 1 - listTop)
    }
}

// MARK: - Keys

/// A tester's action on the selected transaction, when the engine allows it; else its refusal as the note.
func act(_ state: inout State, _ action: TransactionAction, _ command: (Transaction) -> StoreCommand) -> [Effect] {
    guard let selected = state.manager.selected else { return [] }
    let facts = state.manager.facts(of: selected, state)
    if let refusal = facts.refusal(of: action) {
        state.flash = "\(refusalTitle(action)): \(refusal)"
        return []
    }
    return run(command(selected), &state)
}

/// The note's head for a refused action: what was asked.
func refusalTitle(_ action: TransactionAction) -> String {
    switch action {
    case .refund: "No refund"
    case .requestRefund: "No refund request"
    case .approve: "Cannot approve"
    case .decline: "Cannot decline"
    case .resolve: "Cannot resolve"
    case .extendRenewalDate: "Cannot extend"
    case .expireSubscription: "Cannot expire"
    case .renewSubscription: "Cannot renew"
    case .setAutoRenew: "Cannot change auto-renew"
    case .delete: "Cannot delete"
    }
}

extension ManagerState {
    /// The transactions the list shows, as indices: all, or the search's matches.
    var rows: [Int] { search.matches ?? Array((transactions ?? []).indices) }

    /// The engine's facts of `transaction`: as the face read them with the list, else (a list given
    /// without them) the engine's pure rule against the snapshot's time and the group's status.
    func facts(of transaction: Transaction, _ state: State) -> TransactionFacts {
        if let facts = facts[transaction.id] { return facts }
        return TransactionFacts(transaction, at: state.snapshot?.storeTime ?? .distantPast,
                                subscription: transaction.subscriptionGroupID.flatMap { state.snapshot?.subscriptions[$0] })
    }
}

/// Moves the cursor `offset` rows among those shown.
func moveTransaction(_ state: inout State, by offset: Int) {
    let rows = state.manager.rows
    guard !rows.isEmpty else { return }
    let at = min(state.manager.search.position(of: state.manager.selection), rows.count - 1)
    selectTransaction(&state, rows[min(max(0, at + offset), rows.count - 1)])
}

/// Puts the cursor on transaction `index` (kept within the list) and scrolls so it stays on screen;
/// `scroll` counts the rows shown.
func selectTransaction(_ state: inout State, _ index: Int) {
    let count = state.manager.transactions?.count ?? 0
    state.manager.selection = min(max(0, index), max(0, count - 1))
    let shown = state.manager.search.matches?.count ?? count
    let position = min(state.manager.search.position(of: state.manager.selection), max(0, shown - 1))
    let height = ManagerLayout(state.size).listHeight
    guard height > 0 else { return }
    if position < state.manager.scroll { state.manager.scroll = position }
    if position >= state.manager.scroll + height { state.manager.scroll = position - height + 1 }
    state.manager.scroll = max(0, min(state.manager.scroll, max(0, shown - height)))
}

/// The keys the line under the list offers for a transaction: those the engine allows on it, in the
/// order of the keys' use (b, the app's refund request, last: the line is cut at the right on narrow screens).
func managerHint(_ facts: TransactionFacts) -> String {
    let keys: [(String, TransactionAction?)] = [
        ("i details", nil), ("a approve", .approve), ("d decline", .decline), ("v resolve (complete it)", .resolve),
        ("f refund", .refund), ("e expire now", .expireSubscription), ("n renew now", .renewSubscription),
        ("u auto-renew", .setAutoRenew), ("x delete", .delete), ("b ask refund", .requestRefund),
    ]
    return keys.filter { $0.1.map(facts.allows) ?? true }.map(\.0).joined(separator: "  ")
}

/// Whether the footer offers a hint: on the manager, an action key only when the engine allows it on
/// the selected transaction (its ``TransactionFacts``); every other hint always.
func offersHint(_ hint: String, _ state: State) -> Bool {
    guard state.screen == .transactions, let selected = state.manager.selected, let key = hint.first, hint.dropFirst().first == " "
    else { return true }
    let actions: [Character: TransactionAction] = [
        "a": .approve, "d": .decline, "v": .resolve, "f": .refund, "e": .expireSubscription, "n": .renewSubscription,
        "u": .setAutoRenew, "x": .delete, "b": .requestRefund,
    ]
    return actions[key].map(state.manager.facts(of: selected, state).allows) ?? true
}

extension TransactionState {
    /// The state column's look: trouble red, waiting yellow, an ended period dim (unless selected).
    func style(selected: Bool) -> Style {
        var style = Style.plain
        switch self {
        case .refunded, .revoked, .unverified, .declined: style.color = .red
        case .pending: style.color = .yellow
        case .expired: style.dim = !selected
        case .inGracePeriod: style.color = .yellow
        case .purchased, .unfinished, .upgraded: break
        }
        return style
    }
}

// MARK: - Drawing

func drawManager(_ state: State, timeZone: TimeZone, into canvas: inout Canvas) {
    let layout = ManagerLayout(state.size)
    let count = state.manager.transactions?.count
    canvas.put("Transaction Manager", x: 2, y: 1, style: Style(bold: true, color: .yellow))
    canvas.put(" \(state.glyphs.dot) \(state.account)" + (count.map { " \(state.glyphs.dot) \($0) transaction\($0 == 1 ? "" : "s"), newest first" } ?? ""),
               x: 21, y: 1, limit: canvas.width - 22)
    rule(2, state, into: &canvas)
    guard let transactions = state.manager.transactions else {
        canvas.put("\(spinner(state)) Loading transactions…", x: 2, y: layout.listTop)
        return
    }
    if state.manager.detail != nil {
        drawDetail(state, timeZone: timeZone, into: &canvas)
    } else {
        drawList(state, transactions, layout: layout, timeZone: timeZone, into: &canvas)
    }
    drawDetailLine(state, layout: layout, into: &canvas)
    drawStatus(state, row: layout.statusRow, into: &canvas)
}

private func drawList(_ state: State, _ transactions: [Transaction], layout: ManagerLayout, timeZone: TimeZone,
                      into canvas: inout Canvas) {
    // Columns shrink from the right: EXPIRES, then PURCHASED, give way to the product.
    let dateWidth = 16
    let showExpires = canvas.width >= 98
    let showPurchased = canvas.width >= 72
    // Wide enough for every state the list shows ("revoked (family share)", "expired, in grace period"
    // were cut), from the width of "pending (interrupted)": the columns stay put as the list scrolls.
    let stateTexts = transactions.map { stateText(of: $0, state).text }
    let stateWidth = max(21, stateTexts.map(\.count).max() ?? 0)
    let idX = 2, productX = 14
    // Three columns kept at the right: the scroll marks go there, never over a date's digit.
    let fixed = 2 + stateWidth + (showPurchased ? 2 + dateWidth : 0) + (showExpires ? 2 + dateWidth : 0) + 3
    let productWidth = max(8, canvas.width - productX - fixed)
    let purchasedX = productX + productWidth + 2
    let stateX = purchasedX + (showPurchased ? dateWidth + 2 : 0)
    let expiresX = stateX + stateWidth + 2
    canvas.put("ID", x: idX, y: 3, style: dim)
    canvas.put("PRODUCT", x: productX, y: 3, style: dim)
    if showPurchased { canvas.put("PURCHASED", x: purchasedX, y: 3, style: dim) }
    canvas.put("STATE", x: stateX, y: 3, style: dim)
    if showExpires { canvas.put("EXPIRES", x: expiresX, y: 3, style: dim) }

    if transactions.isEmpty {
        canvas.put(TerminalText.truncated("No transactions for this tester yet. Buy on the paywall (p), or press o to buy from outside the app.",
                                          to: canvas.width - 3), x: 2, y: layout.listTop, style: dim)
    } else if state.manager.search.matches?.isEmpty == true {
        canvas.put("No transaction matches \u{201C}\(state.manager.search.query)\u{201D}. Esc clears the search, / changes it.",
                   x: 2, y: layout.listTop, limit: canvas.width - 3, style: dim)
    }
    let rows = state.manager.rows
    drawPosition(state.manager.search, position: state.manager.search.position(of: state.manager.selection),
                 count: transactions.count, row: 2, state, into: &canvas)
    for (offset, index) in rows.dropFirst(state.manager.scroll).prefix(layout.listHeight).enumerated() {
        let transaction = transactions[index]
        let row = layout.listTop + offset
        let selected = index == state.manager.selection
        // The row's head (pointer, id, product) is the highlight, as on the paywall.
        let head = selected ? Style(reverse: true) : .plain
        if selected { highlight(row: row, pointerAt: 0, through: productX + productWidth, state, into: &canvas) }
        let name = state.products.first { $0.id == transaction.productID }?.displayName ?? transaction.productID
        canvas.put(String(transaction.id), x: idX, y: row, style: head)
        canvas.put(TerminalText.truncated(name, to: productWidth), x: productX, y: row, style: head)
        if showPurchased { canvas.put(shortDate(transaction.purchaseDate, timeZone), x: purchasedX, y: row) }
        let (stateText, stateStyle) = stateText(of: transaction, state, selected: selected)
        canvas.put(stateText, x: stateX, y: row, limit: stateWidth, style: stateStyle)
        if showExpires, let expiration = transaction.expirationDate {
            canvas.put(shortDate(expiration, timeZone), x: expiresX, y: row)
        }
        canvas.addHotspot(x: 0, y: row, width: canvas.width, target: .row(index))
    }
    if state.manager.scroll > 0 { canvas.put(state.glyphs.up, x: canvas.width - 2, y: layout.listTop, style: dim) }
    if state.manager.scroll + layout.listHeight < rows.count {
        canvas.put(state.glyphs.down, x: canvas.width - 2, y: layout.listTop + layout.listHeight - 1, style: dim)
    }
}

/// The line under the list: what was charged, the offer, auto-renew, and the keys.
private func drawDetailLine(_ state: State, layout: ManagerLayout, into canvas: inout Canvas) {
    rule(layout.detailRow - 1, state, into: &canvas)
    if let selected = state.manager.selected {
        let dot = state.glyphs.dot
        // A pending purchase is a request (Apple's word), not a transaction, until it completes.
        var detail = "\(selected.status == .pending ? "request" : "tx") \(selected.id)"
        // What was charged, and the offer it was charged under.
        detail += " \(dot) \(selected.displayPrice)"
        if let offer = selected.offerType {
            detail += " \(dot) \(offer.rawValue) offer" + (selected.offerPaymentMode.map { " (\($0.rawValue))" } ?? "")
        }
        if selected.productType == .autoRenewable, let group = selected.subscriptionGroupID,
           let status = state.snapshot?.subscriptions[group], status.transaction.originalID == selected.originalID {
            detail += " \(dot) auto-renew \(status.renewalInfo.willAutoRenew ? "on" : "off")"
        }
        // The engine's words, as the row's: a family member's share is revoked, not refunded.
        if let revoked = state.manager.facts(of: selected, state).state.revocationText { detail += " \(dot) \(revoked)" }
        if case .unverified(let reason) = selected.verification { detail += " \(state.glyphs.dot) \(reason)" }
        detail += "  \(state.glyphs.dot)  \(managerHint(state.manager.facts(of: selected, state)))"
        canvas.put(TerminalText.truncated(detail, to: canvas.width - 3), x: 2, y: layout.detailRow)
    }
}

/// A row's state in the engine's words, and its style: a purchase the app asked a refund for says
/// so until the App Store decides (declined stays said).
private func stateText(of transaction: Transaction, _ state: State, selected: Bool = false) -> (text: String, style: Style) {
    let facts = state.manager.facts(of: transaction, state)
    let request = transaction.revocationDate == nil ? state.snapshot?.refundRequests[transaction.id]?.status : nil
    let text = facts.state.text(refundRequest: request)
    let style = text != facts.state.text ? Style(color: request == .declined ? .red : .yellow) : facts.state.style(selected: selected)
    return (text, style)
}

/// "2026-11-30 14:02" in the screen's time zone.
func shortDate(_ date: Date, _ timeZone: TimeZone) -> String {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = timeZone
    let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute], from: date)
    let two = { (value: Int?) in (value ?? 0) < 10 ? "0\(value ?? 0)" : "\(value ?? 0)" }
    return "\(parts.year ?? 0)-\(two(parts.month))-\(two(parts.day)) \(two(parts.hour)):\(two(parts.minute))"
}
