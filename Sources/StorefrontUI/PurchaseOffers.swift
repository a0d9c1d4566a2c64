import StoreEngine

// The subscription offers the App Store sheet buys with: a promotional offer, which the paywall
// signs with a store offer key as the app's server would (a signature fault can be chosen, to see
// Apple's refusal), or a win-back offer, chosen already on the row of a lapsed subscriber who may
// take one. ↑ ↓ choose the sheet's line, ← → change it.

/// The subscription offer a purchase is made with.
public enum PurchaseOffer: Equatable, Sendable {
    /// A promotional offer, signed by the paywall (with `flaw`, on purpose badly).
    case promotional(id: String, flaw: PromotionalOfferSignature.Flaw? = nil)
    /// A win-back offer (`PurchaseOption.winBackOffer`): no signature.
    case winBack(id: String)

    var id: String {
        switch self {
        case .promotional(let id, _), .winBack(let id): id
        }
    }
}

/// A line of the App Store sheet that ← → change.
public enum SheetField: Equatable, Sendable {
    /// The offer, its signature, the billing plan (a one-year subscription with a monthly plan), how it ends.
    case offer, signature, plan, outcome
}

/// The offer and billing plan chosen on the App Store sheet, and the line ← → change.
public struct OfferSelection: Equatable, Sendable {
    public var offer: PurchaseOffer?
    /// `.monthly`: the one-year subscription's monthly plan (`PurchaseOption.billingPlanType`); nil bills up front.
    public var billingPlan: BillingPlanType?
    public var focus = SheetField.outcome

    public init(offer: PurchaseOffer? = nil, billingPlan: BillingPlanType? = nil, focus: SheetField = .outcome) {
        (self.offer, self.billingPlan, self.focus) = (offer, billingPlan, focus)
    }
}

/// The signature faults the sheet cycles through; nil signs validly.
let signatureFlaws: [PromotionalOfferSignature.Flaw?] = [nil] + PromotionalOfferSignature.Flaw.allCases

/// The win-back offers the account may take for `product` now, best first (the engine's standing):
/// none unless it lapsed from it.
func eligibleWinBackOffers(_ product: Product, _ state: State) -> [String] {
    state.snapshot?.standing(of: product).winBackOfferIDs ?? []
}

/// What ← → cycle through on the Offer line: none, the win-back offers the account may take now,
/// then the product's promotional offers. Empty when there is none to offer (the sheet has no Offer line).
func offerChoices(_ product: Product, _ state: State) -> [PurchaseOffer?] {
    let winBack = eligibleWinBackOffers(product, state).map { PurchaseOffer.winBack(id: $0) }
    let promotional = (product.subscription?.promotionalOffers ?? []).compactMap(\.id).map { PurchaseOffer.promotional(id: $0) }
    return winBack.isEmpty && promotional.isEmpty ? [] : [nil] + winBack + promotional
}

/// The App Store sheet for `product`, with the win-back offer chosen when the account may take one.
func purchaseSheet(for product: Product, _ state: State) -> Sheet {
    let offer = eligibleWinBackOffers(product, state).first.map { PurchaseOffer.winBack(id: $0) }
    return .confirm(productID: product.id, offer: OfferSelection(offer: offer, focus: offer == nil ? .outcome : .offer))
}

/// The sheet's lines ↑ ↓ move among: the offer and its signature when there are offers, the billing
/// plan when the product has a monthly one, and the outcome.
func sheetFields(_ product: Product?, _ selection: OfferSelection, _ state: State) -> [SheetField] {
    guard let product else { return [.outcome] }
    var fields: [SheetField] = []
    if !offerChoices(product, state).isEmpty {
        fields.append(.offer)
        if case .promotional? = selection.offer { fields.append(.signature) }
    }
    if product.subscription?.monthlyTerms != nil { fields.append(.plan) }
    return fields + [.outcome]
}

// MARK: - Keys

/// ↑ ↓ on the App Store sheet: the line ← → change next. False when the outcome is the only one.
func moveSheetFocus(_ selection: inout OfferSelection, _ product: Product?, up: Bool, _ state: State) -> Bool {
    let fields = sheetFields(product, selection, state)
    guard fields.count > 1 else { return false }
    let at = fields.firstIndex(of: selection.focus) ?? fields.count - 1
    selection.focus = fields[min(max(0, at + (up ? -1 : 1)), fields.count - 1)]
    return true
}

/// ← → on the offer, signature or billing line: the next (or previous) offer, signature fault, or plan.
func stepOffer(_ selection: inout OfferSelection, _ product: Product?, by step: Int, _ state: State) {
    guard let product else { return }
    switch selection.focus {
    case .offer:
        let choices = offerChoices(product, state)
        guard !choices.isEmpty else { return }
        let at = choices.firstIndex { $0?.id == selection.offer?.id && kindMatches($0, selection.offer) } ?? 0
        selection.offer = choices[(at + step + choices.count) % choices.count]
    case .signature:
        guard case .promotional(let id, let flaw)? = selection.offer else { return }
        let at = signatureFlaws.firstIndex(of: flaw) ?? 0
        selection.offer = .promotional(id: id, flaw: signatureFlaws[(at + step + signatureFlaws.count) % signatureFlaws.count])
    case .plan:
        guard product.subscription?.monthlyTerms != nil else { return }
        selection.billingPlan = selection.billingPlan == .monthly ? nil : .monthly
    case .outcome:
        break
    }
}

private func kindMatches(_ a: PurchaseOffer?, _ b: PurchaseOffer?) -> Bool {
    switch (a, b) {
    case (.promotional?, .promotional?), (.winBack?, .winBack?), (nil, nil): true
    default: false
    }
}

// MARK: - Lines

/// "promotional annual_comeback", "win-back monthly_winback", "none".
func offerLabel(_ offer: PurchaseOffer?) -> String {
    switch offer {
    case nil: "none"
    case .promotional(let id, _)?: "promotional \(TerminalText.sanitized(id))"
    case .winBack(let id)?: "win-back \(TerminalText.sanitized(id))"
    }
}

/// The words for a signature fault on the sheet.
func flawLabel(_ flaw: PromotionalOfferSignature.Flaw?) -> String {
    switch flaw {
    case nil: "valid"
    case .wrongKey?: "wrong key"
    case .stale?: "stale (made 25 hours ago)"
    case .reusedNonce?: "reused nonce"
    }
}

/// The chosen offer's terms: "Promotional offer: $29.99 for 1 year, then $39.99/year".
func offerTerms(_ offer: PurchaseOffer, _ product: Product) -> String? {
    let (kind, offers) = switch offer {
    case .promotional: ("Promotional offer", product.subscription?.promotionalOffers ?? [])
    case .winBack: ("Win-back offer", product.subscription?.winBackOffers ?? [])
    }
    return offers.first { $0.id == offer.id }.map { "\(kind): \(StatusText.offerTerms($0, product))" }
}

/// The Offer and Signature lines of the App Store sheet, with ▸ on the line ← → change.
func offerLines(_ product: Product, _ selection: OfferSelection, _ state: State, width: Int) -> [(String, Style)] {
    guard !offerChoices(product, state).isEmpty else { return [] }
    let g = state.glyphs
    var lines = focusLines(.offer, "Offer: \(g.left) \(offerLabel(selection.offer)) \(g.right)", selection, state, width: width)
        .map { ($0, Style(bold: selection.offer != nil, color: selection.offer == nil ? nil : .yellow)) }
    if case .promotional(_, let flaw)? = selection.offer {
        lines += focusLines(.signature, "Signature: \(g.left) \(flawLabel(flaw)) \(g.right)", selection, state, width: width)
            .map { ($0, Style(bold: flaw != nil, color: flaw == nil ? nil : .red)) }
    }
    return lines
}

/// A line of the sheet that ← → change, wrapped, with ▸ before it when it is the focused one.
func focusLines(_ field: SheetField, _ text: String, _ selection: OfferSelection, _ state: State, width: Int) -> [String] {
    wrap(text, width - 2).enumerated().map { index, line in
        (index == 0 && selection.focus == field ? state.glyphs.pointer + " " : "  ") + line
    }
}

// MARK: - The sheet's prediction

/// What the App Store sheet predicts for the promotional offer it shows: the engine's answer
/// (``AppStoreFace/offerRefusal(_:)``), asked for when the sheet comes to show an attempt and
/// again when the store changes under it — not with every snapshot, as it signs and verifies.
public typealias OfferPrediction = SheetPrediction<OfferAttempt, OfferRefusal?>

extension SheetPrediction where Question == OfferAttempt, Answer == OfferRefusal? {
    /// The refusal for `attempt`, once answered: nil while it passes or is still being asked.
    func refusal(for attempt: OfferAttempt) -> OfferRefusal? { answer(for: attempt) ?? nil }
}

/// The promotional offer the open App Store sheet would sign, with its chosen fault.
func shownOfferAttempt(_ state: State) -> OfferAttempt? {
    guard case .confirm(let productID, _, let selection)? = state.sheet,
          case .promotional(let id, let flaw)? = selection.offer else { return nil }
    return OfferAttempt(productID: productID, offerID: id, flaw: flaw)
}

/// After each action: the engine is asked what Confirm would meet when the sheet shows another
/// promotional offer or fault, and again after a load (a key made, a subscription lapsed).
func predictOffer(_ state: inout State, after action: Action) -> [Effect] {
    state.offerPrediction.ask(about: shownOfferAttempt(state), after: action).map { [.predictOffer($0)] } ?? []
}
