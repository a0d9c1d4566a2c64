import StoreEngine

// The sheets StoreKit shows over an app beside the purchase sheet — Redeem Code, a message,
// the price increase consent sheet, the messages list, a refund request — routed to their files.

/// What a sheet shows; `drawSheet` frames it.
struct SheetContent {
    var title: String
    var body: [(String, Style)]
    var buttons: [(String, ClickTarget)]
}

extension Sheet {
    /// How wide the sheet may grow: help takes what it can use, these sheets a little more than the
    /// App Store's (three buttons, a reason and its words on one line).
    var maxWidth: Int {
        switch self {
        case .help: 88
        case .message, .priceIncrease, .messages, .refundRequest: 64
        default: 56
        }
    }
}

/// The content of one of these sheets; `room` is how many body lines the screen has.
func appSheetContent(_ sheet: Sheet, _ state: State, inner: Int, room: Int) -> SheetContent? {
    switch sheet {
    case .redeemCode(let code, let error): redeemContent(code: code, error: error, state, inner: inner)
    case .message(let message): messageContent(message, state, inner: inner)
    case .priceIncrease(let productID): priceIncreaseContent(productID: productID, state, inner: inner)
    case .messages(let selection): messagesContent(state, selection: selection, inner: inner, room: room)
    case .refundRequest(let id, let productID, let reason):
        refundRequestContent(id: id, productID: productID, reason: reason, state, inner: inner)
    default: nil
    }
}

/// The buttons in rows that fit `width`: one row unless they are wider (three buttons at 60 columns).
func buttonRows(_ buttons: [(String, ClickTarget)], width: Int) -> [[(String, ClickTarget)]] {
    var rows: [[(String, ClickTarget)]] = [[]]
    var used = 0
    for button in buttons {
        let w = TerminalText.width(button.0)
        if !rows[rows.count - 1].isEmpty, used + 3 + w > width {
            rows.append([])
            used = 0
        }
        used += (rows[rows.count - 1].isEmpty ? 0 : 3) + w
        rows[rows.count - 1].append(button)
    }
    return rows
}
