import StoreEngine

// What the App Store sheet says before Confirm: the price as it will be charged (a trial, then
// the price), a change of plan (nothing charged now for a downgrade), and what "as the settings
// say" comes to, naming the conditions in force. The engine decides each; the sheet words it.

/// The confirmation sheet's lines for `product`, with `outcome` chosen (nil: as the settings say) and
/// the offer of `selection`.
func confirmLines(_ product: Product, outcome: PurchaseChoice?, selection: OfferSelection = OfferSelection(), _ state: State,
                  width: Int) -> [(String, Style)] {
    let g = state.glyphs
    var lines: [(String, Style)] = [(product.displayName, bold)]
    let snapshot = state.snapshot
    let group = product.subscription?.subscriptionGroupID
    let current = group.flatMap { snapshot?.subscriptions[$0] }
    let say = { (text: String, style: Style) in lines += wrap(text, width).map { ($0, style) } }
    if let offer = selection.offer, let terms = offerTerms(offer, product) {
        say(terms, Style(bold: true))
    } else if let change = snapshot?.plannedChanges[product.id] {
        let from = name(of: change.fromProductID, in: state)
        if change.isScheduled {
            let when = change.effectiveDate.map { "starts \(StatusText.shortDate($0))" } ?? "starts at the next renewal"
            say("\(change.kind.title) from \(from): nothing charged now, \(when); then \(regularPrice(product))", Style(bold: true))
        } else {
            say("\(change.kind.title) from \(from): \(product.displayPrice) now, at once; the unused part of \(from) is refunded",
                Style(bold: true))
        }
    } else if let current, current.transaction.productID == product.id, current.state == .subscribed || current.state == .inGracePeriod {
        say("Subscribed to this plan already: nothing charged\(current.renewalInfo.willAutoRenew ? "" : "; auto-renew turns on")", .plain)
    } else if selection.billingPlan == .monthly, let terms = product.subscription?.monthlyTerms {
        // The monthly plan chosen on the Billing line: its price is the one charged.
        say("\(product.kindLabel) \(g.dot) \(terms.summary)", Style(bold: true))
    } else if let group, snapshot?.introEligibleGroups.contains(group) == true, let offer = product.subscription?.introductoryOffer {
        say("\(product.kindLabel) \(g.dot) \(StatusText.offerTerms(offer, product))\(monthlyPlan(product))", Style(bold: true))
    } else {
        let price = "\(product.kindLabel) \(g.dot) \(product.type == .autoRenewable ? regularPrice(product) : product.displayPrice)"
        if monthlyPlan(product).isEmpty { lines.append((price, .plain)) } else { say(price + monthlyPlan(product), .plain) }
    }
    lines.append(("Account: \(state.account)\(environmentTag(snapshot?.environment ?? .xcode))", dim))
    let offers = offerLines(product, selection, state, width: width) + billingLines(product, selection, state, width: width)
    lines += offers
    let outcomeText = "Outcome: \(g.left) \(outcomeLabel(outcome)) \(g.right)"
    lines += (offers.isEmpty ? [outcomeText] : focusLines(.outcome, outcomeText, selection, state, width: width))
        .map { ($0, Style(bold: outcome != nil, color: outcome == nil ? nil : .yellow)) }
    if let refusal = offerRefusal(product, selection, state) {
        // The purchase's own offer check: whatever the outcome chosen, Confirm ends here.
        lines += wrap("\(g.right) \(refusal.summary)", width).map { ($0, Style(color: .red)) }
    } else if outcome == nil, let conditions = snapshot?.conditions {
        let style = conditions.inForce.isEmpty ? dim : Style(color: .yellow)
        lines += wrap("\(g.right) \(conditions.summary)", width).map { ($0, style) }
    }
    return lines
}

/// Why the chosen promotional offer ends the purchase before the settings decide, in the order
/// Confirm meets it: signing comes first; then the device (canMakePayments, offline, which the
/// conditions line says); then the App Store's check of the offer.
private func offerRefusal(_ product: Product, _ selection: OfferSelection, _ state: State) -> OfferRefusal? {
    guard case .promotional(let id, let flaw)? = selection.offer, let snapshot = state.snapshot,
          let refusal = state.offerPrediction.refusal(for: OfferAttempt(productID: product.id, offerID: id, flaw: flaw)) else { return nil }
    if case .refused = refusal, snapshot.conditions.deviceRefusal() != nil { return nil }
    return refusal
}

/// The Billing line of a one-year subscription with a monthly plan (StoreKit's
/// `PurchaseOption.billingPlanType`): up front, the default, or monthly with its 12-month commitment.
private func billingLines(_ product: Product, _ selection: OfferSelection, _ state: State, width: Int) -> [(String, Style)] {
    guard let terms = product.subscription?.monthlyTerms else { return [] }
    let g = state.glyphs
    let plan = selection.billingPlan == .monthly ? "monthly, \(terms.summary)" : "up front, \(regularPrice(product))"
    return focusLines(.plan, "Billing: \(g.left) \(plan) \(g.right)", selection, state, width: width)
        .map { ($0, Style(bold: selection.billingPlan != nil, color: selection.billingPlan == nil ? nil : .yellow)) }
}

/// The environment as the App Store's sheet names it beside the account: none in Production.
private func environmentTag(_ environment: Transaction.AppStoreEnvironment) -> String {
    switch environment {
    case .production: ""
    case .sandbox: "  [Environment: Sandbox]"
    case .xcode: "  [Environment: Xcode]"
    case .localTesting: "  [Environment: LocalTesting]"
    }
}

/// ", or $9.99/month for 12 months": a one-year subscription's monthly plan (`PricingTerms.summary`).
private func monthlyPlan(_ product: Product) -> String {
    product.subscription?.monthlyTerms.map { ", or \($0.summary)" } ?? ""
}

/// "$4.99/month": the price of every period after any offer.
private func regularPrice(_ product: Product) -> String {
    StatusText.pricePerPeriod(product.displayPrice, product.subscription?.subscriptionPeriod)
}

// MARK: - Keys

/// The outcomes the confirmation sheet cycles through; nil follows the settings.
let sheetOutcomes: [PurchaseChoice?] = [nil, .succeed, .cancel, .askToBuy, .interrupt]
    + SimulatedError.cases(in: [.storeKitError, .purchaseError]).filter { $0 != .userCancelled }.map { .fail($0) }

/// Keys on the App Store's purchase sheet: ↑ ↓ move between the offer and the outcome, ← → step the
/// focused one (o and Tab the outcome), ⏎ buys, Esc cancels.
func confirmSheetKey(_ state: inout State, productID: String, outcome: PurchaseChoice?, selection: OfferSelection,
                     _ key: Key) -> [Effect] {
    var selection = selection
    switch key {
    case .up, .down:
        if moveSheetFocus(&selection, state.products.first { $0.id == productID }, up: key == .up, state) {
            state.sheet = .confirm(productID: productID, outcome: outcome, offer: selection)
        }
    case .left where selection.focus != .outcome, .right where selection.focus != .outcome:
        stepOffer(&selection, state.products.first { $0.id == productID }, by: key == .left ? -1 : 1, state)
        state.sheet = .confirm(productID: productID, outcome: outcome, offer: selection)
    case .left, .right, .character("o"), .tab:
        let index = sheetOutcomes.firstIndex(of: outcome) ?? 0
        let step = key == .left ? -1 : 1
        state.sheet = .confirm(productID: productID,
                               outcome: sheetOutcomes[(index + step + sheetOutcomes.count) % sheetOutcomes.count], offer: selection)
    case .enter, .character("y"):
        state.sheet = nil
        state.flash = nil
        state.busy = .purchasing(productID: productID)
        return [.purchase(productID: productID, outcome: outcome, offer: selection.offer, billingPlan: selection.billingPlan)]
    case .escape, .character("n"), .character("q"):
        // Dismissing the App Store sheet is StoreKit's userCancelled: the same purchase as the
        // "cancel" outcome, so the log records it and the screen says it the same way.
        state.sheet = nil
        state.flash = nil
        state.busy = .purchasing(productID: productID)
        return [.purchase(productID: productID, outcome: .cancel)]
    default: break
    }
    return []
}
