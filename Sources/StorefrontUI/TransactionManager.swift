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

func act(_ state: inout State, _ command: (Int64) -> StoreCommand, when allowed: (Transaction) -> Bool,
                 otherwise message: String) -> [Effect] {
    guard let selected = state.manager.selected else { return [] }
    guard allowed(selected) else {
        state.flash = message
        return []
    }
    return run(command(selected.id), &state)
}

/// A subscription control for the selected transaction's group.
func subscriptionCommand(_ state: inout State, _ command: (String) -> StoreCommand) -> [Effect] {
    guard let selected = state.manager.selected else { return [] }
    guard let group = selected.subscriptionGroupID, selected.productType == .autoRenewable else {
        state.flash = "e, n and u act on an auto-renewable subscription"
        return []
    }
    return run(command(group), &state)
}

extension ManagerState {
    /// The transactions the list shows, as indices: all, or the search's matches.
    var rows: [Int] { search.matches ?? Array((transactions ?? []).indices) }
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

extension Transaction {
    func isWaiting(for reason: PendingReason) -> Bool { status == .pending && pendingReason == reason }

    /// The manager's state column: purchased, pending (Ask to Buy), refunded, expired, …
    /// `now` is the store's time: a subscription period that ended by then is expired.
    func managerState(at now: Date?) -> String {
        if revocationDate != nil { return "refunded" }
        if status == .purchased, !isUpgraded, productType == .autoRenewable, let end = expirationDate, let now, end <= now {
            return "expired"
        }
        if !verification.isVerified { return "unverified" }
        switch status {
        case .pending: return pendingReason == .interrupted ? "pending (interrupted)" : "pending (Ask to Buy)"
        case .declined: return "declined"
        case .purchased: return isUpgraded ? "upgraded" : isFinished ? "purchased" : "purchased, unfinished"
        }
    }

    /// What the tester can do with it, for the line under the list.
    var managerHint: String {
        if status == .pending {
            return pendingReason == .interrupted ? "i details  v resolve (complete it)  x delete" : "i details  a approve  d decline  x delete"
        }
        if status == .purchased, revocationDate == nil {
            // b (the app's refund request) last: the line is cut at the right on narrow screens.
            return productType == .autoRenewable ? "i details  f refund  e expire now  n renew now  u auto-renew  x delete  b ask refund"
                : "i details  f refund  x delete  b ask refund"
        }
        return "i details  x delete"
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
    let stateWidth = 21
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
        var stateStyle = Style.plain
        // A purchase the app asked a refund for says so until the App Store decides (declined stays said).
        let plain = transaction.managerState(at: state.snapshot?.storeTime)
        let requested = plain.hasPrefix("purchased") ? state.snapshot.flatMap { refundRequestMark(transaction, $0) }?.lowercased() : nil
        let stateText = requested ?? plain
        switch stateText {
        case "refunded", "unverified", "declined", "refund declined": stateStyle.color = .red
        case "refund requested": stateStyle.color = .yellow
        case "expired": stateStyle.dim = !selected
        case let text where text.hasPrefix("pending"): stateStyle.color = .yellow
        default: break
        }
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
        var detail = "tx \(selected.id)"
        // What was charged, and the offer it was charged under.
        detail += " \(dot) \(selected.displayPrice)"
        if let offer = selected.offerType {
            detail += " \(dot) \(offer.rawValue) offer" + (selected.offerPaymentMode.map { " (\($0.rawValue))" } ?? "")
        }
        if selected.productType == .autoRenewable, let group = selected.subscriptionGroupID,
           let status = state.snapshot?.subscriptions[group], status.transaction.originalID == selected.originalID {
            detail += " \(dot) auto-renew \(status.renewalInfo.willAutoRenew ? "on" : "off")"
        }
        if let reason = selected.revocationReason { detail += " \(dot) refunded (\(reason.rawValue))" }
        if case .unverified(let reason) = selected.verification { detail += " \(state.glyphs.dot) \(reason)" }
        detail += "  \(state.glyphs.dot)  \(selected.managerHint)"
        canvas.put(TerminalText.truncated(detail, to: canvas.width - 3), x: 2, y: layout.detailRow)
    }
}

/// "2026-11-30 14:02" in the screen's time zone.
func shortDate(_ date: Date, _ timeZone: TimeZone) -> String {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = timeZone
    let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute], from: date)
    let two = { (value: Int?) in (value ?? 0) < 10 ? "0\(value ?? 0)" : "\(value ?? 0)" }
    return "\(parts.year ?? 0)-\(two(parts.month))-\(two(parts.day)) \(two(parts.hour)):\(two(parts.minute))"
}
