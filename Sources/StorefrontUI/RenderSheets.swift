import Foundation
import StoreEngine

// The sheets over the paywall (the App Store confirmation, alerts, questions) and the helpers they share.

// MARK: - Sheets

func drawSheet(_ sheet: Sheet, _ state: State, into canvas: inout Canvas) {
    var body: [(String, Style)] = []
    var buttons: [(String, ClickTarget)] = []
    var title = "App Store"
    // Help takes the width it can use, so its lines are not cut.
    let width = min(canvas.width - 4, sheet.maxWidth)
    let inner = width - 4
    switch sheet {
    case .confirm(let productID, _, _), .alreadyOwned(let productID):
        let product = state.products.first { $0.id == productID }
        let name = product?.displayName ?? productID
        if case .alreadyOwned = sheet {
            body.append((name, bold))
            body += wrap("You've already purchased this. Would you like to get it again for free?", inner).map { ($0, .plain) }
            buttons = [("[ Get It Free \(state.glyphs.enter) ]", .confirm), ("[ Cancel esc ]", .cancel)]
        } else {
            if case .confirm(_, let outcome, let selection) = sheet, let product {
                body = confirmLines(product, outcome: outcome, selection: selection, state, width: inner)
            } else {
                body.append((name, bold))
            }
            buttons = [("[ Confirm \(state.glyphs.enter) ]", .confirm), ("[ Cancel esc ]", .cancel)]
        }
    case .confirmCommand(let command):
        title = "Are You Sure?"
        body = wrap(command.question, inner).map { ($0, .plain) }
        buttons = [("[ \(command.verb.prefix(1).uppercased() + command.verb.dropFirst()) \(state.glyphs.enter) ]", .confirm),
                   ("[ Cancel esc ]", .cancel)]
    case .outsidePurchase(let selection):
        title = "Buy From Outside the App"
        body = wrap("A purchase on another device: the App Store records it, the app gets it as an update.", inner)
            .map { ($0, dim) }
        let room = max(1, min(canvas.height - 8, 12) - body.count)
        let first = max(0, min(selection - room + 1, state.products.count - room))
        // The price keeps its column at the right; a long name is cut with "…" before it.
        let priceWidth = state.products.map { TerminalText.width($0.displayPrice) }.max() ?? 0
        let nameWidth = max(4, inner - priceWidth - 4)
        for (index, product) in state.products.enumerated().dropFirst(first).prefix(room) {
            let marker = index == selection ? state.glyphs.pointer : " "
            let price = String(repeating: " ", count: max(0, priceWidth - TerminalText.width(product.displayPrice))) + product.displayPrice
            body.append(("\(marker) \(TerminalText.padded(product.displayName, to: nameWidth))  \(price)",
                         index == selection ? Style(bold: true, reverse: true) : .plain))
        }
        buttons = [("[ Buy \(state.glyphs.enter) ]", .confirm), ("[ Cancel esc ]", .cancel)]
    case .confirmQuit:
        title = "Quit?"
        body = wrap("Quit Storefront? The store file keeps everything. Press q (or y) to quit; "
                    + "\(state.glyphs.enter) or esc stays.", inner).map { ($0, .plain) }
        buttons = [("[ Quit q ]", .sheetKey("q")), ("[ Stay \(state.glyphs.enter) ]", .cancel)]
    case .refund(let id, let reason):
        title = "Refund"
        body = wrap("Refund transaction \(id)? Its entitlement goes at once; the app gets it as an update.", inner).map { ($0, .plain) }
        let g = state.glyphs
        body.append(("Reason: \(g.left) \(reason.rawValue) \(g.right)", Style(bold: true, color: .yellow)))
        body += wrap(reason == .developerIssue ? "developerIssue: the app did not work as it should (revocationReason 1)"
                     : "other: any other reason (revocationReason 0)", inner).map { ($0, dim) }
        buttons = [("[ Refund \(g.enter) ]", .confirm), ("[ Cancel esc ]", .cancel)]
    case .alert(let alertTitle, let message):
        title = alertTitle
        body = wrap(message, inner).map { ($0, .plain) }
        buttons = [("[ OK \(state.glyphs.enter) ]", .confirm)]
    case .help:
        let screenName = switch state.screen {
        case .paywall: "Paywall"
        case .transactions: "Transaction Manager"
        case .settings: "Settings"
        }
        title = "Keys: \(screenName)"
        let lines = helpLines(for: state.screen, state.glyphs, width: inner, recording: state.recording != nil)
        // Scrolled with ↑ ↓ when taller than the screen; the last line says what is below.
        let room = max(1, canvas.height - 2 - 4)
        let scroll = min(state.helpScroll, max(0, lines.count - room))
        var shown = Array(lines.dropFirst(scroll).prefix(room)).map { ($0, Style.plain) }
        if scroll + room < lines.count {
            shown[shown.count - 1] = ("\(state.glyphs.down) \(lines.count - scroll - room + 1) more: \(state.glyphs.up)\(state.glyphs.down) PgDn", dim)
        }
        body = shown
        buttons = [("[ Close esc ]", .cancel)]
    case .redeemCode, .message, .priceIncrease, .messages, .refundRequest:
        let content = appSheetContent(sheet, state, inner: inner, room: max(1, canvas.height - 2 - 5))
        (title, body, buttons) = (content?.title ?? title, content?.body ?? [], content?.buttons ?? [])
    }
    // Buttons that do not fit on one line (three at 60 columns) take a second.
    let rows = buttonRows(buttons, width: width - 4)
    let height = min(canvas.height - 2, body.count + 3 + rows.count)
    let left = max(0, (canvas.width - width) / 2)
    let top = max(0, (canvas.height - height) / 2)
    let g = state.glyphs
    // The rows the sheet spans are cleared from edge to edge: pieces of the screen behind
    // ("ases ]" of [ Restore Purchases ], "Monthl") beside its borders read as broken text.
    canvas.clear(x: 0, y: top, width: canvas.width, height: height)
    let horizontal = String(repeating: g.horizontal, count: max(0, width - 2))
    canvas.put(g.corners.topLeft + horizontal + g.corners.topRight, x: left, y: top)
    canvas.put(g.corners.bottomLeft + horizontal + g.corners.bottomRight, x: left, y: top + height - 1)
    for row in (top + 1)..<(top + height - 1) {
        canvas.put(g.vertical, x: left, y: row)
        canvas.put(g.vertical, x: left + width - 1, y: row)
    }
    let heading = " \(title) "
    canvas.put(heading, x: left + max(1, (width - TerminalText.width(heading)) / 2), y: top, limit: width - 2, style: bold)
    for (offset, line) in body.prefix(height - 3 - rows.count).enumerated() {
        canvas.put(line.0, x: left + 2, y: top + 1 + offset, limit: inner, style: line.1)
    }
    for (index, row) in rows.enumerated() {
        let y = top + height - 1 - rows.count + index
        let labels = row.map(\.0).joined(separator: "   ")
        var x = left + max(2, (width - TerminalText.width(labels)) / 2)
        for (label, target) in row {
            canvas.put(label, x: x, y: y, style: Style(bold: true, reverse: target == .confirm))
            canvas.addHotspot(x: x, y: y, width: TerminalText.width(label), target: target)
            x += TerminalText.width(label) + 3
        }
    }
}

/// "2026-12-03 14:02 UTC": the store clock in the title bar.
func clockText(_ date: Date) -> String {
    shortDate(date, TimeZone(identifier: "UTC")!) + " UTC"
}

/// The confirmation sheet's words for an outcome.
func outcomeLabel(_ outcome: PurchaseChoice?) -> String {
    switch outcome {
    case nil: "as the settings say"
    case .succeed: "succeed"
    case .cancel: "cancel (userCancelled)"
    case .askToBuy: "Ask to Buy (pending)"
    case .interrupt: "interrupt (pending)"
    case .fail(let error): "fail: \(error.rawValue)"
    }
}

/// Greedy word wrap to `width` columns. A word wider than a line (`SKError.Code.paymentNotAllowed:`)
/// is broken after a dot where it can be, else at the width: never cut off.
func wrap(_ text: String, _ width: Int) -> [String] {
    guard width > 0 else { return [] }
    var lines: [String] = []
    var line = ""
    for word in text.split(separator: " ").flatMap({ pieces(of: String($0), width) }) {
        let candidate = line.isEmpty ? word : line + " " + word
        if TerminalText.width(candidate) > width, !line.isEmpty {
            lines.append(line)
            line = word
        } else {
            line = candidate
        }
    }
    if !line.isEmpty { lines.append(line) }
    return lines
}

/// A word as pieces no wider than `width`: split after its last dot that fits, or at the width.
private func pieces(of word: String, _ width: Int) -> [String] {
    var rest = word
    var out: [String] = []
    while TerminalText.width(rest) > width {
        var taken = "", used = 0, lastDot: String.Index?
        for index in rest.indices {
            let w = TerminalText.width(String(rest[index]))
            if used + w > width { break }
            used += w
            taken.append(rest[index])
            if rest[index] == "." { lastDot = rest.index(after: index) }
        }
        let cut = lastDot ?? rest.index(rest.startIndex, offsetBy: max(1, taken.count))
        out.append(String(rest[..<cut]))
        rest = String(rest[cut...])
    }
    if !rest.isEmpty { out.append(rest) }
    return out
}
