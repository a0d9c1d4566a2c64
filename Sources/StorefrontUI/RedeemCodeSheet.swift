import Foundation
import StoreEngine

// The App Store's Redeem Code sheet (`AppStore.presentOfferCodeRedeemSheet`, o on the paywall): a
// field for the code; ⏎ redeems it through the App Store face. A good code says what it gave and its
// transaction reaches the app as an update, as on a device; a bad, used, expired or ineligible code
// stays on the sheet with StoreKit's error, so it can be corrected.

/// How long a code may be typed: App Store codes are far shorter.
let redeemCodeLimit = 64

/// o on the paywall: the sheet, empty.
func openRedeemCode(_ state: inout State) {
    guard state.snapshot != nil else { return }
    state.flash = nil
    state.sheet = .redeemCode()
}

/// Keys on the Redeem Code sheet: characters type, ⌫ erases, ⏎ redeems, Esc closes.
func redeemKey(_ state: inout State, code: String, error: String?, _ key: Key) -> [Effect] {
    let redeeming = state.busy != nil
    switch key {
    case .character(let character) where !redeeming && code.count < redeemCodeLimit:
        // Control characters never reach the field: only what a person could type in one.
        guard character.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value != 0x7F }) else { break }
        state.sheet = .redeemCode(code: code + String(character))
    case .backspace where !redeeming:
        state.sheet = .redeemCode(code: String(code.dropLast()))
    case .enter where !redeeming:
        let trimmed = code.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else { break }
        state.busy = .working("Redeeming \(trimmed)…")
        return [.redeem(code: trimmed)]
    case .escape where !redeeming:
        state.sheet = nil
    default:
        break
    }
    return []
}

/// The App Store's answer: what the code gave, in the engine's words (and the load that delivers its
/// transaction), or its error on the sheet.
func redeemed(_ state: inout State, code: String, _ result: Result<ActionOutcome, CommandFailure>) -> [Effect] {
    state.busy = nil
    switch result {
    case .success(let redemption):
        state.sheet = .alert(title: "Offer Code Redeemed", message: TerminalText.sanitized(redemption.sentence))
    case .failure(let failure):
        if case .redeemCode? = state.sheet {
            state.sheet = .redeemCode(code: code, error: failure.message)
        } else {
            state.sheet = .alert(title: "Cannot Redeem \(code)", message: failure.message)
        }
    }
    // The log shows the attempt; a new transaction arrives as an update with this load.
    return [.load]
}

/// The sheet: the field with a cursor, the error of the last try, or the spinner while redeeming.
func redeemContent(code: String, error: String?, _ state: State, inner: Int) -> SheetContent {
    let g = state.glyphs
    var body = wrap("Enter the offer code (AppStore.presentOfferCodeRedeemSheet). Its transaction reaches the app as an update.",
                    inner).map { ($0, dim) }
    body.append(("", .plain))
    let field = TerminalText.truncated(TerminalText.sanitized(code), to: inner - 9)
    let cursor = state.busy == nil ? "_" : " "
    body.append(("Code: [ " + TerminalText.padded(field + cursor, to: inner - 9) + "]", Style(bold: true)))
    if case .working(let what)? = state.busy {
        body.append(("\(spinner(state)) \(what)", Style(bold: true, color: .yellow)))
    } else if let error {
        body += wrap(TerminalText.sanitized(error), inner).map { ($0, Style(bold: true, color: .red)) }
    }
    return SheetContent(title: "Redeem Code", body: body,
                        buttons: [("[ Redeem \(g.enter) ]", .confirm), ("[ Cancel esc ]", .cancel)])
}
