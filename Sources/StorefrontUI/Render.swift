import Foundation
import StoreEngine

/// Draws the whole paywall for a state: pure, so whole screens can be compared in tests.
public func render(_ state: State, timeZone: TimeZone = .current) -> Canvas {
    var canvas = Canvas(width: state.size.columns, height: state.size.rows, asciiOnly: state.glyphs == .ascii)
    guard state.size.fits(.minimum) else {
        drawTooSmall(state, into: &canvas)
        return canvas
    }
    let layout = Layout(state)
    drawHeader(state, layout, into: &canvas)
    drawTable(state, layout, into: &canvas)
    drawActions(state, layout, into: &canvas)
    if layout.logHeight > 0 { drawLog(state, layout, timeZone: timeZone, into: &canvas) }
    drawFooter(state, layout, into: &canvas)
    if let sheet = state.sheet { drawSheet(sheet, state, into: &canvas) }
    return canvas
}

// MARK: - Parts of the main screen

private let bold = Style(bold: true)
private let dim = Style(dim: true)

private func rule(_ row: Int, _ state: State, into canvas: inout Canvas) {
    canvas.put(String(repeating: state.glyphs.horizontal, count: canvas.width), x: 0, y: row, style: dim)
}

private func drawHeader(_ state: State, _ layout: Layout, into canvas: inout Canvas) {
    let g = state.glyphs
    let storefront = state.snapshot?.storefront.countryCode ?? "…"
    let bar = Style(reverse: true)
    canvas.put(String(repeating: " ", count: canvas.width), x: 0, y: 0, style: bar)
    canvas.put(" Storefront \(g.dot) \(state.account) \(g.dot) \(storefront)", x: 0, y: 0, style: Style(bold: true, reverse: true))
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
        kindWidth = min(22, max(4, widths.kind ?? 4))
        priceWidth = max(5, canPay ? (widths.price ?? 5) : 13)
        let widestName = min(34, max(7, widths.name ?? 7))
        let widestStatus = min(26, max(6, widths.status ?? 6))
        // Room for name and status after the fixed columns, their gaps and a right margin.
        let room = width - name - (2 + kindWidth) - (2 + priceWidth) - 2 - 1
        let buyWidth = Columns.buyLabel.count + 2
        if widestName + widestStatus + buyWidth <= room {
            nameWidth = widestName
            statusWidth = room - widestName - buyWidth
            buy = width - buyWidth
        } else {
            // Tight: names keep up to 20 columns, the status takes what is left; both end in "…" when cut.
            nameWidth = max(8, min(widestName, 20, room - 8))
            statusWidth = max(0, room - nameWidth)
            buy = nil
        }
        kind = name + nameWidth + 2
        price = kind + kindWidth + 2
        status = price + priceWidth + 2
    }
}

/// The status column of a product: Owned, Renews …, Balance: N.
func statusText(_ product: Product, _ state: State) -> String {
    guard let snapshot = state.snapshot else { return "" }
    if snapshot.unverified[product.id] != nil, snapshot.owned[product.id] == nil {
        return "\(state.glyphs.warning) Unverified"
    }
    return ProductStatus.text(for: product, owned: snapshot.owned[product.id], balance: snapshot.balances[product.id])
}

private func drawTable(_ state: State, _ layout: Layout, into canvas: inout Canvas) {
    let titles = layout.tableTop - 1
    if let error = state.loadError {
        canvas.put("Could not load the store: \(error)", x: 2, y: layout.tableTop, limit: canvas.width - 3,
                   style: Style(bold: true, color: .red))
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
    canvas.put("KIND", x: columns.kind, y: titles, style: dim)
    canvas.put("PRICE", x: columns.price, y: titles, style: dim)
    canvas.put("STATUS", x: columns.status, y: titles, style: dim)

    let visible = layout.lines.dropFirst(state.scroll).prefix(layout.tableHeight)
    for (offset, line) in visible.enumerated() {
        let row = layout.tableTop + offset
        switch line {
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
    let owned = product.type != .consumable && snapshot.owned[product.id] != nil
    let base = selected ? Style(reverse: true) : .plain
    if selected {
        canvas.put(String(repeating: " ", count: canvas.width), x: 0, y: row, style: base)
        canvas.put(state.glyphs.pointer, x: 1, y: row, style: Style(bold: true, reverse: true))
    }
    var check = base
    check.bold = true
    if owned { check.color = .green }
    canvas.put(owned ? state.glyphs.check : state.glyphs.noCheck, x: columns.check, y: row, style: check)
    canvas.put(TerminalText.truncated(product.displayName, to: columns.nameWidth), x: columns.name, y: row, style: base)
    canvas.put(TerminalText.truncated(product.kindLabel, to: columns.kindWidth), x: columns.kind, y: row, style: base)
    let price = snapshot.canMakePayments ? product.displayPrice : "Not available"
    var priceStyle = base
    if !snapshot.canMakePayments { priceStyle.dim = true }
    canvas.put(price, x: columns.price, y: row, limit: columns.priceWidth, style: priceStyle)
    var statusStyle = base
    if snapshot.unverified[product.id] != nil, !owned { (statusStyle.bold, statusStyle.color) = (true, .red) }
    canvas.put(TerminalText.truncated(statusText(product, state), to: columns.statusWidth), x: columns.status, y: row,
               style: statusStyle)
    canvas.addHotspot(x: 0, y: row, width: canvas.width, target: .product(index))
    if selected, let buy = columns.buy {
        canvas.put(Columns.buyLabel, x: buy, y: row, style: Style(bold: true, reverse: false, color: .green))
        canvas.addHotspot(x: buy, y: row, width: Columns.buyLabel.count, target: .buy(index))
    }
}

private func spinner(_ state: State) -> String {
    state.glyphs.spinner[state.ticks % state.glyphs.spinner.count]
}

private func drawActions(_ state: State, _ layout: Layout, into canvas: inout Canvas) {
    let label = "[ Restore Purchases ]"
    let x = canvas.width - label.count - 2
    canvas.put(label, x: x, y: layout.actionRow, style: Style(bold: true))
    canvas.addHotspot(x: x, y: layout.actionRow, width: label.count, target: .restore)
    let status: String?
    switch state.busy {
    case .loading: status = "\(spinner(state)) Loading…"
    case .purchasing(let id): status = "\(spinner(state)) Purchasing \(displayName(id, state))…"
    case .restoring: status = "\(spinner(state)) Restoring purchases…"
    case .consuming(let id): status = "\(spinner(state)) Consuming \(displayName(id, state))…"
    case nil: status = state.flash
    }
    if let status {
        canvas.put(status, x: 2, y: layout.actionRow, limit: max(0, x - 4), style: Style(bold: true, color: .yellow))
    }
    rule(layout.logHeight > 0 ? layout.logTop - 1 : layout.footerRow - 1, state, into: &canvas)
}

private func displayName(_ productID: String, _ state: State) -> String {
    state.products.first { $0.id == productID }?.displayName ?? productID
}

private func drawLog(_ state: State, _ layout: Layout, timeZone: TimeZone, into canvas: inout Canvas) {
    let events = (state.snapshot?.events ?? []).suffix(layout.logHeight)
    if events.isEmpty {
        canvas.put("No transactions yet. Press \(state.glyphs.enter) to buy, r to restore.", x: 1, y: layout.logTop, style: dim)
    }
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = timeZone
    for (offset, event) in events.enumerated() {
        let time = calendar.dateComponents([.hour, .minute, .second], from: event.date)
        let clock = [time.hour, time.minute, time.second].map { ($0 ?? 0) < 10 ? "0\($0 ?? 0)" : "\($0 ?? 0)" }
        var text = "\(clock.joined(separator: ":")) \(event.state.rawValue.padding(toLength: 10, withPad: " ", startingAt: 0)) \(event.productID)"
        if let id = event.transactionID { text += "  tx \(id)" }
        if !event.detail.isEmpty { text += "  (\(event.detail))" }
        let color: Style.Color? = switch event.state {
        case .purchased, .restored: .green
        case .failed: .red
        case .deferred: .yellow
        case .purchasing: nil
        }
        canvas.put(text, x: 1, y: layout.logTop + offset, limit: canvas.width - 2, style: Style(color: color))
    }
    rule(layout.footerRow - 1, state, into: &canvas)
}

private func drawFooter(_ state: State, _ layout: Layout, into canvas: inout Canvas) {
    let g = state.glyphs
    let hints = " \(g.up)\(g.down) move  \(g.enter) buy  r restore  c consume  l log  ? help  q quit"
    let used = canvas.put(hints, x: 0, y: layout.footerRow, style: dim)
    // The store file's path on the right, shortened from the left when the line is full.
    let room = canvas.width - used - 3
    guard room >= 12 else { return }
    var path = state.storePath
    if TerminalText.width(path) > room {
        path = "…" + String(path.suffix(room - 1))
    }
    canvas.put(path, x: canvas.width - TerminalText.width(path) - 1, y: layout.footerRow, style: dim)
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

// MARK: - Sheets

private func drawSheet(_ sheet: Sheet, _ state: State, into canvas: inout Canvas) {
    var body: [(String, Style)] = []
    var buttons: [(String, ClickTarget)] = []
    var title = "App Store"
    let width = min(canvas.width - 4, 56)
    let inner = width - 4
    switch sheet {
    case .confirm(let productID), .alreadyOwned(let productID):
        let product = state.products.first { $0.id == productID }
        let name = product?.displayName ?? productID
        if case .alreadyOwned = sheet {
            body.append((name, bold))
            body += wrap("You've already purchased this. Would you like to get it again for free?", inner).map { ($0, .plain) }
            buttons = [("[ Get It Free \(state.glyphs.enter) ]", .confirm), ("[ Cancel esc ]", .cancel)]
        } else {
            body.append((name, bold))
            if let product {
                let price = state.snapshot?.canMakePayments == false ? "Not available" : product.displayPrice
                body.append(("\(product.kindLabel) \(state.glyphs.dot) \(price)", .plain))
            }
            body.append(("Account: \(state.account)  [Sandbox]", dim))
            buttons = [("[ Confirm \(state.glyphs.enter) ]", .confirm), ("[ Cancel esc ]", .cancel)]
        }
    case .alert(let alertTitle, let message):
        title = alertTitle
        body = wrap(message, inner).map { ($0, .plain) }
        buttons = [("[ OK \(state.glyphs.enter) ]", .confirm)]
    case .help:
        title = "Keys"
        let g = state.glyphs
        let keys = [
            ("\(g.up) \(g.down)  k j", "move"),
            ("PgUp PgDn Home End", "scroll"),
            ("\(g.enter)  space", "buy the selected product"),
            ("r", "restore purchases"),
            ("c", "consume one of a consumable"),
            ("l", "show or hide the event log"),
            ("?", "this help"),
            ("q  esc  Ctrl-C", "quit"),
            ("mouse", "click a row, [ Buy ], [ Restore ]"),
        ]
        let keyWidth = keys.map { TerminalText.width($0.0) }.max() ?? 0
        body = keys.map { (TerminalText.padded($0.0, to: keyWidth) + "  " + $0.1, .plain) }
        buttons = [("[ Close esc ]", .cancel)]
    }
    let height = min(canvas.height - 2, body.count + 4)
    let left = max(0, (canvas.width - width) / 2)
    let top = max(0, (canvas.height - height) / 2)
    let g = state.glyphs
    canvas.clear(x: left, y: top, width: width, height: height)
    let horizontal = String(repeating: g.horizontal, count: max(0, width - 2))
    canvas.put(g.corners.topLeft + horizontal + g.corners.topRight, x: left, y: top)
    canvas.put(g.corners.bottomLeft + horizontal + g.corners.bottomRight, x: left, y: top + height - 1)
    for row in (top + 1)..<(top + height - 1) {
        canvas.put(g.vertical, x: left, y: row)
        canvas.put(g.vertical, x: left + width - 1, y: row)
    }
    let heading = " \(title) "
    canvas.put(heading, x: left + max(1, (width - TerminalText.width(heading)) / 2), y: top, limit: width - 2, style: bold)
    for (offset, line) in body.prefix(height - 4).enumerated() {
        canvas.put(line.0, x: left + 2, y: top + 1 + offset, limit: inner, style: line.1)
    }
    let labels = buttons.map(\.0).joined(separator: "   ")
    var x = left + max(2, (width - TerminalText.width(labels)) / 2)
    for (label, target) in buttons {
        canvas.put(label, x: x, y: top + height - 2, style: Style(bold: true, reverse: target == .confirm))
        canvas.addHotspot(x: x, y: top + height - 2, width: TerminalText.width(label), target: target)
        x += TerminalText.width(label) + 3
    }
}

/// Greedy word wrap to `width` columns.
func wrap(_ text: String, _ width: Int) -> [String] {
    var lines: [String] = []
    var line = ""
    for word in text.split(separator: " ") {
        let candidate = line.isEmpty ? String(word) : line + " " + word
        if TerminalText.width(candidate) > width, !line.isEmpty {
            lines.append(line)
            line = String(word)
        } else {
            line = candidate
        }
    }
    if !line.isEmpty { lines.append(line) }
    return lines
}
