import StoreEngine

// The sheets' actions and their reducer: one case per sheet, routed to the sheet's own keys (the
// App Store's purchase sheet in ConfirmSheet.swift, help in Help.swift, StoreKit's other sheets in
// their files, the questions and alerts here).

/// A key on one sheet, named for the sheet it is meant for; it does nothing when another sheet is open.
public enum SheetAction: Equatable, Sendable {
    /// The App Store's purchase confirmation.
    case confirm(Key)
    /// "You've already purchased this…".
    case alreadyOwned(Key)
    /// "Are you sure?" before a command that destroys data.
    case confirmCommand(Key)
    /// The product list of a purchase from outside the app.
    case outsidePurchase(Key)
    case alert(Key)
    case help(Key)
    /// The refund's reason.
    case refund(Key)
    case confirmQuit(Key)
    case redeemCode(Key)
    case message(Key)
    case priceIncrease(Key)
    case messages(Key)
    case refundRequest(Key)
    /// The App Store's answer to the Redeem Code sheet: what the code gave, or StoreKit's error.
    case redeemed(code: String, Result<ActionOutcome, CommandFailure>)
    /// The engine's prediction for a promotional offer on the purchase sheet: why Confirm would end (nil: it passes).
    case offerPredicted(OfferAttempt, OfferRefusal?)
    /// The engine's answer to what Submit on the Request a Refund sheet would do for a transaction.
    case refundRequestPreviewed(transactionID: Int64, RefundRequestPreview)
}

extension SheetAction {
    /// A key typed on `sheet`.
    init(_ sheet: Sheet, _ key: Key) {
        switch sheet {
        case .confirm: self = .confirm(key)
        case .alreadyOwned: self = .alreadyOwned(key)
        case .confirmCommand: self = .confirmCommand(key)
        case .outsidePurchase: self = .outsidePurchase(key)
        case .alert: self = .alert(key)
        case .help: self = .help(key)
        case .refund: self = .refund(key)
        case .confirmQuit: self = .confirmQuit(key)
        case .redeemCode: self = .redeemCode(key)
        case .message: self = .message(key)
        case .priceIncrease: self = .priceIncrease(key)
        case .messages: self = .messages(key)
        case .refundRequest: self = .refundRequest(key)
        }
    }
}

/// The sheets' reducer: a key goes to the sheet it names when that sheet is the one open.
func reduceSheet(_ state: inout State, _ action: SheetAction) -> [Effect] {
    switch (state.sheet, action) {
    case (.confirm(let productID, let outcome, let selection)?, .confirm(let key)):
        return confirmSheetKey(&state, productID: productID, outcome: outcome, selection: selection, key)
    case (.alreadyOwned(let productID)?, .alreadyOwned(let key)):
        return alreadyOwnedKey(&state, productID: productID, key)
    case (.confirmCommand(let command)?, .confirmCommand(let key)):
        return confirmCommandKey(&state, command, key)
    case (.outsidePurchase(let selection)?, .outsidePurchase(let key)):
        return outsidePurchaseKey(&state, selection: selection, key)
    case (.alert?, .alert(.enter)), (.alert?, .alert(.escape)), (.alert?, .alert(.character("q"))), (.alert?, .alert(.character(" "))):
        state.sheet = nil
    case (.help?, .help(let key)):
        helpKey(&state, key)
    case (.refund(let id, let reason)?, .refund(let key)):
        return refundKey(&state, id: id, reason: reason, key)
    case (.confirmQuit?, .confirmQuit(let key)):
        confirmQuitKey(&state, key)
    case (.redeemCode(let code, let error)?, .redeemCode(let key)):
        return redeemKey(&state, code: code, error: error, key)
    case (.message(let message)?, .message(let key)):
        return messageKey(&state, message, key)
    case (.priceIncrease(let productID)?, .priceIncrease(let key)):
        return priceIncreaseKey(&state, productID: productID, key)
    case (.messages(let selection)?, .messages(let key)):
        return messagesKey(&state, selection: selection, key)
    case (.refundRequest(let id, let productID, let reason)?, .refundRequest(let key)):
        return refundRequestKey(&state, id: id, productID: productID, reason: reason, key)
    case (_, .redeemed(let code, let result)):
        // Whatever is open now: a good code's note and load come all the same.
        return redeemed(&state, code: code, result)
    case (_, .offerPredicted(let attempt, let refusal)):
        // Kept whatever is open: the sheet shows it only while it shows that attempt.
        state.offerPrediction.answered(attempt, refusal)
    case (_, .refundRequestPreviewed(let id, let preview)):
        // As the offer's: shown only while the sheet shows that transaction.
        state.refundRequestPrediction.answered(id, preview)
    default:
        break
    }
    return []
}

// MARK: - Questions

/// "You've already purchased this…": ⏎ buys again (restored for free), Esc closes.
private func alreadyOwnedKey(_ state: inout State, productID: String, _ key: Key) -> [Effect] {
    switch key {
    case .enter, .character("y"):
        state.sheet = nil
        state.flash = nil
        state.busy = .purchasing(productID: productID)
        return [.purchase(productID: productID)]
    case .escape, .character("n"), .character("q"):
        // As the other sheets' Esc, it says what happened: nothing (it left no note before).
        state.sheet = nil
        state.flash = "Get It Free of \(name(of: productID, in: state)) cancelled: nothing restored"
    default: break
    }
    return []
}

/// "Are you sure?": ⏎ runs the command, Esc keeps the data.
private func confirmCommandKey(_ state: inout State, _ command: StoreCommand, _ key: Key) -> [Effect] {
    switch key {
    case .enter, .character("y"):
        state.sheet = nil
        return run(command, &state)
    case .escape, .character("n"), .character("q"):
        state.sheet = nil
    default: break
    }
    return []
}

/// The outside purchase's product list: ↑ ↓ (round), PgUp PgDn Home End, ⏎ buys, Esc closes.
private func outsidePurchaseKey(_ state: inout State, selection: Int, _ key: Key) -> [Effect] {
    switch key {
    case .up, .down:
        let count = state.products.count
        guard count > 0 else { break }
        state.sheet = .outsidePurchase(selection: (selection + (key == .up ? -1 : 1) + count) % count)
    case .pageUp, .pageDown, .home, .end:
        let last = max(0, state.products.count - 1)
        let page = max(1, min(state.size.rows - 8, 12) - 3)
        let target = switch key {
        case .pageUp: selection - page
        case .pageDown: selection + page
        case .home: 0
        default: last
        }
        state.sheet = .outsidePurchase(selection: min(max(0, target), last))
    case .enter:
        state.sheet = nil
        guard state.products.indices.contains(selection) else { break }
        return run(.buyOutside(productID: state.products[selection].id), &state)
    case .escape, .character("q"):
        state.sheet = nil
    default: break
    }
    return []
}

/// "Refund transaction N?": ← → Tab the reason, ⏎ refunds, Esc closes.
private func refundKey(_ state: inout State, id: Int64, reason: Transaction.RevocationReason, _ key: Key) -> [Effect] {
    switch key {
    case .left, .right, .tab:
        state.sheet = .refund(id: id, reason: reason == .other ? .developerIssue : .other)
    case .enter, .character("y"):
        state.sheet = nil
        return run(.refund(id, reason: reason), &state)
    case .escape, .character("n"), .character("q"):
        state.sheet = nil
    default: break
    }
    return []
}

/// "Quit Storefront?": y or q quits; ⏎, Esc and n stay. Esc then ⏎ is a reflex (dismiss, then
/// confirm something), so ⏎ must never be the key that leaves the app.
private func confirmQuitKey(_ state: inout State, _ key: Key) {
    switch key {
    case .character("y"), .character("q"):
        state.sheet = nil
        state.isRunning = false
    case .enter, .escape, .character("n"):
        state.sheet = nil
    default: break
    }
}
