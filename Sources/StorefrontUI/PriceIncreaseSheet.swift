import StoreEngine

// The price increase consent sheet a device shows when a subscription's price rises and the
// subscriber must agree (Apple's "Agree to New Price" sheet, `Message.Reason.priceIncreaseConsent`):
// the old and the new price, and what each answer does — Agree (`priceIncreaseStatus` agreed,
// PRICE_INCREASE ACCEPTED), Not Now (it keeps waiting; m opens it again), and Cancel Subscription
// (the engine's decline, as Xcode's `declinePriceIncreaseForTransaction`: auto-renew off). The
// prices, the date and Agree's and Cancel's lines are the engine's (``PriceIncreaseAnswers``): the
// sentences those actions report.

/// Keys on the consent sheet: ⏎ agrees, x cancels the subscription, Esc is Not Now.
func priceIncreaseKey(_ state: inout State, productID: String, _ key: Key) -> [Effect] {
    let waiting = pendingConsent(productID, state) != nil
    switch key {
    case .enter where waiting, .character("y") where waiting:
        state.sheet = nil
        return run(.consentToPriceIncrease(productID: productID), &state)
    case .character("x") where waiting:
        state.sheet = nil
        return run(.declinePriceIncrease(productID: productID), &state)
    case .escape, .character("n"), .character("q"), .enter:
        state.sheet = nil
        if waiting { state.flash = "The new price of \(name(of: productID, in: state)) waits for consent: m shows it again" }
    default:
        break
    }
    return []
}

/// The consent sheet's words: the subscription, old price → new price, and what each answer does.
func priceIncreaseContent(productID: String, _ state: State, inner: Int) -> SheetContent {
    let g = state.glyphs
    let title = "Subscription Price Increase"
    let product = state.products.first { $0.id == productID }
    let name = product?.displayName ?? productID
    // Catalog text (names, offer ids) is made harmless before it is measured and wrapped.
    let say = { (text: String, style: Style) in wrap(TerminalText.sanitized(text), inner).map { ($0, style) } }
    guard let increase = pendingConsent(productID, state), let snapshot = state.snapshot else {
        return SheetContent(title: title, body: [(name, bold)] + say("No price increase waits for your consent.", .plain),
                            buttons: [("[ OK \(g.enter) ]", .confirm)])
    }
    // Each answer's line is the sentence its action reports, from the engine's values: they cannot disagree.
    let answers = snapshot.answers(to: increase)
    let when = StatusText.shortDate(answers.from)
    let body = [(name, bold)]
        + say("The price is going up. To keep the subscription, agree to the new price.", .plain)
        + [("", .plain)]
        + say("\(answers.oldPrice) \(g.arrow) \(answers.newPrice)", Style(bold: true, color: .yellow))
        + [("", .plain)]
        + say("\(g.enter) \(g.arrow) \(answers.agree.sentence)", .plain)
        + say("x \(g.arrow) \(answers.cancel.sentence)", .plain)
        + say("esc \(g.arrow) Not now: it waits (m opens it again); not agreed by \(when), the subscription ends then.", dim)
    return SheetContent(title: title, body: body,
                        buttons: [("[ Agree \(g.enter) ]", .confirm), ("[ Not Now esc ]", .cancel),
                                  ("[ Cancel Subscription x ]", .sheetKey("x"))])
}
