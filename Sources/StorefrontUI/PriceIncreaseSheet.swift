import StoreEngine

// The price increase consent sheet a device shows when a subscription's price rises and the
// subscriber must agree (Apple's "Agree to New Price" sheet, `Message.Reason.priceIncreaseConsent`):
// the old and the new price, from when, and the answers — Agree (`priceIncreaseStatus` agreed,
// PRICE_INCREASE ACCEPTED), Not Now (it keeps waiting; m opens it again), and Cancel Subscription
// (the engine's decline, as Xcode's `declinePriceIncreaseForTransaction`: auto-renew off).

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

/// The consent sheet's words: the subscription, old price → new price, when, and what not agreeing does.
func priceIncreaseContent(productID: String, _ state: State, inner: Int) -> SheetContent {
    let g = state.glyphs
    let title = "Subscription Price Increase"
    let product = state.products.first { $0.id == productID }
    let name = product?.displayName ?? productID
    // Catalog text (names, offer ids) is made harmless before it is measured and wrapped.
    let say = { (text: String, style: Style) in wrap(TerminalText.sanitized(text), inner).map { ($0, style) } }
    guard let increase = pendingConsent(productID, state), let storefront = state.snapshot?.storefront else {
        return SheetContent(title: title, body: [(name, bold)] + say("No price increase waits for your consent.", .plain),
                            buttons: [("[ OK \(g.enter) ]", .confirm)])
    }
    let period = product?.subscription?.subscriptionPeriod
    let old = StatusText.pricePerPeriod(storefront.displayPrice(increase.oldPrice), period)
    let new = StatusText.pricePerPeriod(storefront.displayPrice(increase.newPrice), period)
    let when = StatusText.shortDate(increase.effectiveDate ?? increase.noticeEnds)
    let body = [(name, bold)]
        + say("The price of this subscription is going up. To keep it, review the new price and agree to it.", .plain)
        + [("", .plain)]
        + say("\(old) \(g.arrow) \(new)", Style(bold: true, color: .yellow))
        + say("from \(when), the first renewal at the new price. If you do not agree by then, the subscription ends on that date.", .plain)
        + [("", .plain)]
        + say("Not Now leaves it waiting (m opens it again); Cancel Subscription turns auto-renew off.", dim)
    return SheetContent(title: title, body: body,
                        buttons: [("[ Agree \(g.enter) ]", .confirm), ("[ Not Now esc ]", .cancel),
                                  ("[ Cancel Subscription x ]", .sheetKey("x"))])
}
