import Foundation
import StoreEngine

/// Draws the whole paywall for a state: pure, so whole screens can be compared in tests.
public func render(_ state: State, timeZone: TimeZone = .current) -> Canvas {
    var canvas = Canvas(width: state.size.columns, height: state.size.rows, asciiOnly: state.glyphs == .ascii)
    guard state.size.fits(.minimum) else {
        drawTooSmall(state, into: &canvas)
        return canvas
    }
    switch state.screen {
    case .paywall:
        let layout = Layout(state)
        drawHeader(state, layout, into: &canvas)
        drawTable(state, layout, into: &canvas)
        drawActions(state, layout, into: &canvas)
        if layout.logHeight > 0 { drawLog(state, layout, timeZone: timeZone, into: &canvas) }
        drawFooter(state, row: layout.footerRow, into: &canvas)
        if state.search.isEditing {
            drawSearchPrompt(state.search, total: state.products.count, row: layout.footerRow, state, into: &canvas)
        }
    case .transactions:
        drawTitleBar(state, into: &canvas)
        drawManager(state, timeZone: timeZone, into: &canvas)
        drawFooter(state, row: canvas.height - 1, into: &canvas)
        if state.manager.search.isEditing {
            drawSearchPrompt(state.manager.search, total: state.manager.transactions?.count ?? 0, row: canvas.height - 1, state,
                             into: &canvas)
        }
    case .settings:
        drawTitleBar(state, into: &canvas)
        drawSettings(state, into: &canvas)
        drawFooter(state, row: canvas.height - 1, into: &canvas)
    }
    if let sheet = state.sheet { drawSheet(sheet, state, into: &canvas) }
    return canvas
}

// MARK: - Parts of the main screen

let bold = Style(bold: true)
let dim = Style(dim: true)

func rule(_ row: Int, _ state: State, into canvas: inout Canvas) {
    canvas.put(String(repeating: state.glyphs.horizontal, count: canvas.width), x: 0, y: row, style: dim)
}

/// The reverse-video top line: account and storefront on the left, the screens' tabs on the right.
private func drawTitleBar(_ state: State, into canvas: inout Canvas) {
    let g = state.glyphs
    let storefront = state.snapshot?.storefront.countryCode ?? "…"
    let bar = Style(reverse: true)
    canvas.put(String(repeating: " ", count: canvas.width), x: 0, y: 0, style: bar)
    var clock = ""
    if let snapshot = state.snapshot, let date = snapshot.clock {
        clock = " \(g.dot) \(clockText(date))\(snapshot.timeRate == .realTime ? "" : " (fast)")"
    }
    let full: [(String, Screen)] = [("p Paywall", .paywall), ("t Transactions", .transactions), ("s Settings", .settings)]
    let short: [(String, Screen)] = [("p Pay", .paywall), ("t Trans", .transactions), ("s Set", .settings)]
    let tabsWidth = { (tabs: [(String, Screen)]) in tabs.map { TerminalText.width($0.0) + 2 }.reduce(0, +) }
    // The tabs stay, and so does "Storefront". The store file's name comes next (a paywall started
    // without --store quietly uses the default one), then the account (the sheet names it too)
    // unless the store's clock needs the room; the tabs shorten first; at the last the account is
    // cut with "…", never the name.
    let file = StoreAddress(state.storePath).name
    // While --record writes, "● REC" follows the name on every screen, and stays: the tester
    // sees that what they do is written down (issue 40).
    let rec = state.recording == nil ? "" : "\(g.recordMark) REC "
    func title(_ file: String?, _ account: String?) -> String {
        " Storefront \(rec)\(g.dot) " + [file, account, storefront].compactMap { $0 }.joined(separator: " \(g.dot) ") + clock
    }
    var choice: (String, [(String, Screen)])?
    search: for (name, account) in [(file, state.account), (file, nil), (nil, state.account)] as [(String?, String?)] {
        for tabs in [full, short] where TerminalText.width(title(name, account)) + 1 + tabsWidth(tabs) <= canvas.width {
            choice = (title(name, account), tabs)
            break search
        }
    }
    let tabs = choice?.1 ?? short
    let room = max(0, canvas.width - tabsWidth(short) - 1)
    let title = choice?.0 ?? {
        let over = TerminalText.width(title(nil, state.account)) - room
        let account = TerminalText.truncated(state.account, to: max(6, TerminalText.width(state.account) - over))
        return TerminalText.truncated(title(nil, account), to: room)
    }()
    canvas.put(title, x: 0, y: 0, limit: canvas.width, style: Style(bold: true, reverse: true))
    if !rec.isEmpty { canvas.put(String(rec.dropLast()), x: TerminalText.width(" Storefront "), y: 0, style: Style(bold: true, reverse: true, color: .red)) }
    let width = tabsWidth(tabs)
    guard width < canvas.width else { return }
    var x = canvas.width - width
    for (label, screen) in tabs {
        let current = screen == state.screen
        canvas.put(" \(label) ", x: x, y: 0, style: Style(bold: current, reverse: !current))
        canvas.addHotspot(x: x, y: 0, width: TerminalText.width(label) + 2, target: .screen(screen))
        x += TerminalText.width(label) + 2
    }
}

private func drawHeader(_ state: State, _ layout: Layout, into canvas: inout Canvas) {
    let g = state.glyphs
    drawTitleBar(state, into: &canvas)
    canvas.put("\(g.star) \(state.paywall.title)", x: 2, y: 1, limit: canvas.width - 3, style: Style(bold: true, color: .yellow))
    var row = 2
    if !state.paywall.subtitle.isEmpty {
        canvas.put(state.paywall.subtitle, x: 2, y: row, limit: canvas.width - 3)
        row += 1
    }
    if row < layout.headerRows {
        canvas.put(state.paywall.features.joined(separator: " \(g.dot) "), x: 2, y: row, limit: canvas.width - 3, style: dim)
    }
    rule(layout.headerRows, state, into: &canvas)
}

/// Column positions of the product table, sized to the content.
private struct Columns {
    let check = 2
    let name = 6
    let nameWidth: Int
    let kind: Int
    let kindWidth: Int
    let price: Int
    let priceWidth: Int
    let status: Int
    let statusWidth: Int
    /// Where the selected row's `[ Buy ]` button goes; nil when there is no room.
    let buy: Int?

    static let buyLabel = "[ Buy ]"

    init(_ state: State, width: Int) {
        let canPay = state.snapshot?.canMakePayments ?? true
        let widths = state.tableMeasure.isCurrent(for: state) ? state.tableMeasure.widths : ContentWidths(state)
        priceWidth = max(5, canPay ? (widths.price ?? 5) : 13)
        let widestName = min(34, max(7, widths.name ?? 7))
        let widestStatus = min(40, max(6, widths.status ?? 6))
        let buyWidth = Columns.buyLabel.count + 2
        let fullKind = min(22, max(4, widths.kind ?? 4))
        // Room for name and status after the fixed columns, their gaps and a right margin.
        let priceRoom = priceWidth
        let room = { (kind: Int) in width - 6 - (kind > 0 ? 2 + kind : 0) - (2 + priceRoom) - 2 - 1 }
        // The KIND column goes first when room is short (the group headings say it too), then [ Buy ].
        // One long status does not take it: the status is cut to 24 columns first ("…"; the
        // selected row's whole status is on the action row), as at 100 columns (issue 40).
        kindWidth = min(widestName, 24) + min(widestStatus, 24) + buyWidth <= room(fullKind) ? fullKind : 0
        let left = room(kindWidth)
        if min(widestName, 24) + min(widestStatus, 24) + buyWidth <= left {
            nameWidth = min(widestName, max(24, left - buyWidth - widestStatus))
            statusWidth = left - nameWidth - buyWidth
            buy = width - buyWidth
        } else {
            // Tight: names keep up to 20 columns, the status takes what is left; both end in "…" when cut.
            nameWidth = max(8, min(widestName, 20, left - 8))
            statusWidth = max(0, left - nameWidth)
            buy = nil
        }
        kind = name + nameWidth + 2
        price = kind + (kindWidth > 0 ? kindWidth + 2 : 0)
        status = price + priceWidth + 2
    }
}

/// The status column of a product: the engine's words for its standing (``ProductStanding/text(for:dot:warning:)``)
/// then the key that acts on them: `r` brings back a purchase not on this device, `m` opens the
/// consent sheet of the price increase the engine's words name. The keys are the paywall's only
/// addition (docs/paywall.md); it had its own "New price needs consent (m)" in place of the status,
/// on the refunded plan's row and on the plan a downgrade goes to too, and put ": r restores"
/// inside the engine's words (the parity walk, issue 40).
func statusText(_ product: Product, _ state: State) -> String {
    let (words, key) = statusParts(product, state)
    return words + key
}

/// ``statusText(_:_:)`` in its two parts: the engine's words, and the key the paywall adds ("", ": r restores", " (m)").
private func statusParts(_ product: Product, _ state: State) -> (words: String, key: String) {
    guard let snapshot = state.snapshot else { return ("", "") }
    let standing = snapshot.standing(of: product)
    let text = standing.text(for: product, dot: state.glyphs.dot, warning: state.glyphs.warning)
    if standing.unverifiedReason != nil { return (text, "") }
    // What brings it back. Not for a purchase the app left unfinished: the next launch delivers it,
    // a restore in this run does not.
    let restores = standing.ownership == .notOnThisDevice && !standing.isUnfinished
    let consent = standing.priceIncrease != nil && pendingConsent(product.id, state) != nil
    // The keys after the engine's words, never inside them: every front end's text is the row's start.
    return (text, (restores ? ": r restores" : "") + (consent ? " (m)" : ""))
}

/// The status cell cut to `width`: the words are cut, the key stays (tester's day, finding 7: at 100
/// columns "(m)" and "r restores", the keys the row points to, were what the cut lost).
private func statusCell(_ product: Product, _ state: State, width: Int) -> String {
    let (words, key) = statusParts(product, state)
    let keyWidth = TerminalText.width(key)
    guard TerminalText.width(TerminalText.sanitized(words)) + keyWidth > width, !key.isEmpty, width - keyWidth >= 12 else {
        return TerminalText.truncated(words + key, to: width)
    }
    return TerminalText.truncated(words, to: width - keyWidth) + key
}

private func drawTable(_ state: State, _ layout: Layout, into canvas: inout Canvas) {
    let titles = layout.tableTop - 1
    if let error = state.loadError, state.snapshot == nil {
        var row = layout.tableTop
        for line in wrap("Could not load the products: \(error)", canvas.width - 4).prefix(max(1, layout.tableHeight - 2)) {
            canvas.put(line, x: 2, y: row, limit: canvas.width - 3, style: Style(bold: true, color: .red))
            row += 1
        }
        let retry = state.busy == .loading ? "[ Retrying \(spinner(state)) ]" : "[ Retry r ]"
        canvas.put(retry, x: 2, y: row + 1, style: Style(bold: true, reverse: true))
        canvas.addHotspot(x: 2, y: row + 1, width: retry.count, target: .retry)
        // Each retry's result shows: a retry that fails at once must not look like a key that did nothing.
        let tries = state.failedRetries > 0 && state.busy != .loading
            ? "retried \(state.failedRetries)×, still failing \(state.glyphs.dot) " : ""
        canvas.put(tries + "offline or loadProductsError? change it on the settings screen (s)", x: retry.count + 4, y: row + 1,
                   limit: max(0, canvas.width - retry.count - 5), style: dim)
        return
    }
    guard let snapshot = state.snapshot else {
        canvas.put("\(spinner(state)) Loading products…", x: 2, y: layout.tableTop)
        return
    }
    guard !snapshot.products.isEmpty else {
        canvas.put("This catalog has no products.", x: 2, y: layout.tableTop)
        return
    }
    let columns = Columns(state, width: canvas.width)
    canvas.put("PRODUCT", x: columns.name, y: titles, style: dim)
    if columns.kindWidth > 0 { canvas.put("KIND", x: columns.kind, y: titles, style: dim) }
    canvas.put("PRICE", x: columns.price, y: titles, style: dim)
    canvas.put("STATUS", x: columns.status, y: titles, style: dim)
    drawPosition(state.search, position: state.search.position(of: state.selection), count: snapshot.products.count,
                 row: layout.headerRows, state, into: &canvas)
    if state.search.matches?.isEmpty == true {
        canvas.put("No product matches \u{201C}\(state.search.query)\u{201D}. Esc clears the search, / changes it.",
                   x: 2, y: layout.tableTop, limit: canvas.width - 3, style: dim)
    }

    let visible = layout.lines.dropFirst(state.scroll).prefix(layout.tableHeight)
    for (offset, line) in visible.enumerated() {
        let row = layout.tableTop + offset
        // The top row keeps the heading of the group scrolled into: a sticky heading over its first rows.
        let sticky = offset == 0 && !line.isHeading ? layout.heading(over: state.scroll) : nil
        switch line {
        case _ where sticky != nil:
            canvas.put(sticky!, x: 2, y: row, limit: canvas.width - 3, style: Style(bold: true, color: .cyan))
        case .heading(let title):
            canvas.put(title, x: 2, y: row, limit: canvas.width - 3, style: Style(bold: true, color: .cyan))
        case .product(let index):
            drawProduct(index, snapshot, state, columns, row: row, into: &canvas)
        }
    }
    // Scroll hints when rows are hidden above or below.
    if state.scroll > 0 {
        canvas.put(state.glyphs.up, x: canvas.width - 2, y: layout.tableTop, style: dim)
    }
    if state.scroll + layout.tableHeight < layout.lines.count {
        canvas.put(state.glyphs.down, x: canvas.width - 2, y: layout.tableTop + layout.tableHeight - 1, style: dim)
    }
}

private func drawProduct(_ index: Int, _ snapshot: StoreSnapshot, _ state: State, _ columns: Columns,
                         row: Int, into canvas: inout Canvas) {
    let product = snapshot.products[index]
    let selected = index == state.selection
    let standing = snapshot.standing(of: product)
    let owned = standing.ownership == .owned || standing.ownership == .familyShared
    // The row's head (pointer, checkmark, name) is the highlight; kind, price and status keep their look.
    let head = selected ? Style(reverse: true) : .plain
    if selected { highlight(row: row, pointerAt: 1, through: columns.name + columns.nameWidth, state, into: &canvas) }
    var check = head
    if owned { (check.bold, check.color) = (true, .green) }
    canvas.put(owned ? state.glyphs.check : state.glyphs.noCheck, x: columns.check, y: row, style: check)
    canvas.put(TerminalText.truncated(product.displayName, to: columns.nameWidth), x: columns.name, y: row, style: head)
    if columns.kindWidth > 0 {
        canvas.put(TerminalText.truncated(product.kindLabel, to: columns.kindWidth), x: columns.kind, y: row)
    }
    canvas.put(standing.displayPrice ?? "Not available", x: columns.price, y: row, limit: columns.priceWidth,
               style: standing.displayPrice == nil ? dim : .plain)
    var statusStyle = Style.plain
    if standing.unverifiedReason != nil { (statusStyle.bold, statusStyle.color) = (true, .red) }
    canvas.put(statusCell(product, state, width: columns.statusWidth), x: columns.status, y: row,
               style: statusStyle)
    canvas.addHotspot(x: 0, y: row, width: canvas.width, target: .product(index))
    if selected, let buy = columns.buy {
        canvas.put(Columns.buyLabel, x: buy, y: row, style: Style(bold: true, color: .green))
        canvas.addHotspot(x: buy, y: row, width: Columns.buyLabel.count, target: .buy(index))
    }
}

/// The selected row of a list: its head, from the left edge through column `end` (what names the
/// row), in reverse video with the pointer at `x`. Not the whole width: a cursor move then rewrites
/// two short runs of cells rather than two rows (issue 21: 280 bytes a key press with whole rows).
func highlight(row: Int, pointerAt x: Int, through end: Int, _ state: State, into canvas: inout Canvas) {
    canvas.put(String(repeating: " ", count: min(end, canvas.width - 1) + 1), x: 0, y: row, style: Style(reverse: true))
    canvas.put(state.glyphs.pointer, x: x, y: row, style: Style(reverse: true))
}

func spinner(_ state: State) -> String {
    state.glyphs.spinner[state.ticks % state.glyphs.spinner.count]
}

private func drawActions(_ state: State, _ layout: Layout, into canvas: inout Canvas) {
    // Offline after a load: the products stay (as an app keeps its loaded Product values) and
    // the button retries the load; restore needs the network too.
    let unreachable = state.loadError != nil && state.snapshot != nil
    let label = !unreachable ? "[ Restore Purchases ]" : state.busy == .loading ? "[ Retrying \(spinner(state)) ]" : "[ Retry r ]"
    let x = canvas.width - TerminalText.width(label) - 2
    // A note longer than the room beside the button takes the whole line while it shows (a few seconds):
    // its end, often the useful part, was cut (tester's day, finding 8); r restores meanwhile.
    let wideNote = !unreachable && state.busy == nil && state.flash.map { TerminalText.width($0) > x - 4 } == true
    if !wideNote {
        canvas.put(label, x: x, y: layout.actionRow, style: Style(bold: true, reverse: unreachable))
        canvas.addHotspot(x: x, y: layout.actionRow, width: TerminalText.width(label), target: unreachable ? .retry : .restore)
    }
    if unreachable, state.busy == nil, state.flash == nil, let error = state.loadError {
        let tries = state.failedRetries > 0 ? " \(state.glyphs.dot) retried \(state.failedRetries)×" : ""
        let text = "\(state.glyphs.warning) Store unreachable, showing the products loaded before\(tries): \(error)"
        canvas.put(TerminalText.truncated(text, to: max(0, x - 4)), x: 2, y: layout.actionRow, style: Style(bold: true, color: .red))
    } else {
        drawStatus(state, row: layout.actionRow, limit: wideNote ? canvas.width - 3 : max(0, x - 4), into: &canvas)
        // Nothing to say: the selected row's status, whole, when its column cut it (a trial's end and price at 80 columns).
        if state.busy == nil, state.flash == nil, let product = state.selectedProduct, state.snapshot != nil {
            let status = statusText(product, state)
            if TerminalText.width(status) > Columns(state, width: canvas.width).statusWidth,
               TerminalText.width(status) <= x - 4 {
                canvas.put(status, x: 2, y: layout.actionRow, style: dim)
            }
        }
    }
    rule(layout.logHeight > 0 ? layout.logTop - 1 : layout.footerRow - 1, state, into: &canvas)
}

/// The spinner with what the engine is doing, or the last note: one line at `row`.
func drawStatus(_ state: State, row: Int, limit: Int? = nil, into canvas: inout Canvas) {
    let status: String?
    switch state.busy {
    case .loading: status = "\(spinner(state)) \(state.loadError == nil ? "Loading…" : "Retrying: loading the products again…")"
    case .purchasing(let id): status = "\(spinner(state)) Purchasing \(name(of: id, in: state))…"
    case .restoring: status = "\(spinner(state)) Restoring purchases…"
    case .consuming(let id): status = "\(spinner(state)) Consuming \(name(of: id, in: state))…"
    case .working(let what): status = "\(spinner(state)) \(what)"
    case nil: status = state.flash
    }
    if let status {
        canvas.put(TerminalText.truncated(status, to: limit ?? canvas.width - 3), x: 2, y: row, style: Style(bold: true, color: .yellow))
    }
}

private func drawFooter(_ state: State, row: Int, into canvas: inout Canvas) {
    let offered = { (hint: String) in offersHint(hint, state) }
    let hints = if let sheet = state.sheet {
        sheetFooterHints(sheet, state, width: canvas.width - 1)
    } else if state.screen == .transactions && state.manager.detail != nil {
        detailFooterHints(state.glyphs, width: canvas.width - 1, offered: offered)
    } else {
        footerHints(for: state.screen, state.glyphs, width: canvas.width - 1, recording: state.recording != nil, offered: offered)
    }
    let used = canvas.put(hints, x: 0, y: row, style: dim)
    // The store file's path on the right, shortened from the left when the line is full.
    let room = canvas.width - used - 3
    guard room >= 12 else { return }
    var path = state.storePath
    if TerminalText.width(path) > room {
        path = "…" + String(path.suffix(room - 1))
    }
    canvas.put(path, x: canvas.width - TerminalText.width(path) - 1, y: row, style: dim)
}

private func drawTooSmall(_ state: State, into canvas: inout Canvas) {
    let minimum = Size.minimum
    let lines = [
        "Storefront needs \(minimum.columns)×\(minimum.rows);",
        "this terminal is \(state.size.columns)×\(state.size.rows).",
        "Enlarge it, or press q to quit.",
    ]
    let top = max(0, (canvas.height - lines.count) / 2)
    for (offset, line) in lines.enumerated() {
        let x = max(0, (canvas.width - TerminalText.width(line)) / 2)
        canvas.put(line, x: x, y: top + offset)
    }
}
