import StoreEngine

// The App Store's messages as the app handles them (StoreKit's `Message.messages`): each one that
// arrives is shown at once as the sheet a device shows (`display`), or, when the app defers them,
// held for later (`m` lists them, ⏎ shows one). Messages wait while another sheet is open or the
// tester is on another screen; each is handled once per run, and one not shown comes again at the
// next launch, as StoreKit's do.

/// What the app does with a message when it arrives.
public enum MessagePolicy: String, Equatable, Sendable, CaseIterable {
    /// Shown at once, as StoreKit does for an app that does not listen to `Message.messages`.
    case showNow
    /// Held (`Message` kept by the app): listed under m, shown when the tester chooses.
    case deferred
}

/// The app's handling of the App Store's messages.
public struct MessageHandling: Equatable, Sendable {
    public var policy = MessagePolicy.showNow
    /// The messages this run handled already (shown or deferred): each is handled once.
    public var handled: Set<Int64> = []

    public init(policy: MessagePolicy = .showNow) { self.policy = policy }
}

/// An entry of the messages sheet: a message not shown yet, or a price increase waiting for
/// consent whose message was shown (Not Now) — the consent sheet can be opened again.
enum MessageEntry: Equatable {
    case message(StoreMessage)
    case priceIncrease(PriceIncrease)
}

/// The entries of the messages sheet, oldest message first.
func messageEntries(_ state: State) -> [MessageEntry] {
    guard let snapshot = state.snapshot else { return [] }
    let waiting = snapshot.priceIncreases.filter { increase in
        increase.requiresConsent && increase.status == .pending
            && !snapshot.messages.contains { $0.reason == .priceIncreaseConsent && $0.productID == increase.productID }
    }
    return snapshot.messages.map(MessageEntry.message) + waiting.map(MessageEntry.priceIncrease)
}

/// A price increase of `productID` that waits for the account's consent.
func pendingConsent(_ productID: String?, _ state: State) -> PriceIncrease? {
    state.snapshot?.priceIncreases.first { $0.productID == productID && $0.requiresConsent && $0.status == .pending }
}

// MARK: - Arrival

/// Handles the messages that arrived, after every action: on the paywall with nothing else open,
/// the next one is shown (or, when the app defers them, every new one is deferred).
func receiveMessages(_ state: inout State) -> [Effect] {
    guard state.isRunning, state.screen == .paywall, state.sheet == nil, state.busy == nil, !state.search.isEditing,
          let snapshot = state.snapshot else { return [] }
    let new = snapshot.messages.filter { !state.messages.handled.contains($0.id) }
    guard let first = new.first else { return [] }
    switch state.messages.policy {
    case .showNow:
        return showMessage(first, &state)
    case .deferred:
        state.messages.handled.formUnion(new.map(\.id))
        let count = new.count
        state.flash = "\(count) message\(count == 1 ? "" : "s") from the App Store deferred: m shows \(count == 1 ? "it" : "them")"
        state.flashSince = state.ticks
        return new.filter { $0.state == .pending }.map { .deferMessage($0.id) }
    }
}

/// Shows a message now: its sheet (the consent sheet for a price increase that waits), and the store marks it shown.
func showMessage(_ message: StoreMessage, _ state: inout State) -> [Effect] {
    state.messages.handled.insert(message.id)
    // The store marks it displayed now, and lists only messages not displayed: so does the paywall, until
    // its next load (the m list called it "deferred" while `storefront messages` said "displayed").
    state.snapshot?.messages.removeAll { $0.id == message.id }
    if message.reason == .priceIncreaseConsent, let productID = message.productID, pendingConsent(productID, state) != nil {
        state.sheet = .priceIncrease(productID: productID)
    } else {
        state.sheet = .message(message)
    }
    return [.displayMessage(message.id)]
}

// MARK: - Keys

/// m on the paywall: the messages sheet.
func openMessages(_ state: inout State) {
    state.sheet = .messages(selection: 0)
}

/// Keys on the messages sheet: ↑ ↓ choose, ← → how new messages are handled, ⏎ shows the chosen one.
func messagesKey(_ state: inout State, selection: Int, _ key: Key) -> [Effect] {
    let entries = messageEntries(state)
    switch key {
    case .up, .character("k"), .down, .character("j"):
        guard !entries.isEmpty else { break }
        let step = key == .up || key == .character("k") ? -1 : 1
        state.sheet = .messages(selection: min(max(0, selection + step), entries.count - 1))
    case .left, .right, .tab:
        state.messages.policy = state.messages.policy == .showNow ? .deferred : .showNow
    case .enter, .character("y"):
        guard entries.indices.contains(selection) else {
            state.sheet = nil
            break
        }
        switch entries[selection] {
        case .message(let message):
            state.sheet = nil
            return showMessage(message, &state)
        case .priceIncrease(let increase):
            state.sheet = .priceIncrease(productID: increase.productID)
        }
    case .escape, .character("q"), .character("n"), .character("m"):
        state.sheet = nil
    default:
        break
    }
    return []
}

/// Keys on a message's sheet: ⏎ takes its action (billing: update the payment method; win-back:
/// the App Store sheet with the offer), Esc closes it.
func messageKey(_ state: inout State, _ message: StoreMessage, _ key: Key) -> [Effect] {
    switch key {
    case .enter, .character("y"):
        state.sheet = nil
        switch message.reason {
        case .billingIssue:
            // The customer adds a working payment method: the renewal is tried again now.
            return run(.updatePaymentMethod, &state)
        case .winBackOffer:
            guard let index = state.products.firstIndex(where: { $0.id == message.productID }) else { break }
            move(&state, to: index)
            let offer = message.offerID.map { PurchaseOffer.winBack(id: $0) }
            state.sheet = .confirm(productID: state.products[index].id, offer: OfferSelection(offer: offer, focus: .offer))
        case .generic, .priceIncreaseConsent:
            break
        }
    case .escape, .character("q"), .character("n"):
        state.sheet = nil
    default:
        break
    }
    return []
}

// MARK: - Lines

/// The messages sheet: the policy, then each message waiting.
func messagesContent(_ state: State, selection: Int, inner: Int, room: Int) -> SheetContent {
    let g = state.glyphs
    let policy = state.messages.policy == .showNow ? "show it now" : "defer it"
    var body: [(String, Style)] = [("When one arrives: \(g.left) \(policy) \(g.right)", Style(bold: true, color: .yellow))]
    body += wrap(state.messages.policy == .showNow ? "as StoreKit shows messages to an app that does not hold them"
                 : "the app holds it (Message.messages) until you show it here", inner).map { ($0, dim) }
    body.append(("", .plain))
    let entries = messageEntries(state)
    if entries.isEmpty {
        body += wrap("No message waiting. The App Store sends them on a billing problem, a price increase to agree to, "
                     + "a win-back offer; storefront message send generic queues one.", inner).map { ($0, dim) }
    }
    let shown = max(1, room - body.count)
    let first = max(0, min(selection - shown + 1, entries.count - shown))
    for (index, entry) in entries.enumerated().dropFirst(first).prefix(shown) {
        let marker = index == selection ? g.pointer : " "
        let parts = switch entry {
        case .message(let message):
            // Pending in the store until the deferral is written; the app holds it already.
            [message.reason.rawValue, message.productID.map { name(of: $0, in: state) },
             message.state == .pending && state.messages.handled.contains(message.id) ? "deferred" : message.state.rawValue]
        case .priceIncrease(let increase):
            ["price increase", name(of: increase.productID, in: state), "waits for consent"]
        }
        let text = parts.compactMap { $0 }.joined(separator: " \(g.dot) ")
        body.append(("\(marker) \(TerminalText.truncated(TerminalText.sanitized(text), to: inner - 2))",
                     index == selection ? Style(bold: true, reverse: true) : .plain))
    }
    return SheetContent(title: "Messages", body: body,
                        buttons: entries.isEmpty ? [("[ Close esc ]", .cancel)] : [("[ Show \(g.enter) ]", .confirm), ("[ Close esc ]", .cancel)])
}

/// A message's sheet, in the words a device shows.
func messageContent(_ message: StoreMessage, _ state: State, inner: Int) -> SheetContent {
    let g = state.glyphs
    let product = state.products.first { $0.id == message.productID }
    let name = product.map(\.displayName) ?? message.productID ?? "your subscription"
    // Catalog text (names, offer ids) is made harmless before it is measured and wrapped.
    let say = { (text: String, style: Style) in wrap(TerminalText.sanitized(text), inner).map { ($0, style) } }
    switch message.reason {
    case .billingIssue:
        // Apple's Billing Problem sheet (StoreKit's Message.Reason.billingIssue documentation). The note names the
        // state the engine gives the subscription: still entitled in its grace period, or in billing retry.
        let group = product?.subscription?.subscriptionGroupID
        let inGrace = group.flatMap { state.snapshot?.subscriptions[$0] }?.state == .inGracePeriod
        let standing = inGrace ? "in its billing grace period (still entitled)" : "in billing retry"
        return SheetContent(
            title: "Billing Problem",
            body: say("There is a problem with your current payment method. To avoid interruptions to your subscriptions and "
                      + "purchases, update your payment method.", .plain) + [("", .plain)]
                + say("\(name) is \(standing). Continue updates the payment method (billingIssues false): the renewal is tried again now.", dim),
            buttons: [("[ Continue \(g.enter) ]", .confirm), ("[ Close esc ]", .cancel)])
    case .winBackOffer:
        let offer = product?.subscription?.winBackOffers.first { $0.id == message.offerID }
        let terms = offer.map { StatusText.offerTerms($0, product!) } ?? "a special price"
        return SheetContent(
            title: "Come Back to \(name)",
            body: [(name, bold)] + say("Resubscribe with this offer: \(terms).", .plain)
                + say("Win-back offer \(message.offerID ?? "") (Message.Reason.winBackOffer); Subscribe opens the App Store sheet with it.", dim),
            buttons: [("[ Subscribe \(g.enter) ]", .confirm), ("[ Not Now esc ]", .cancel)])
    case .priceIncreaseConsent:
        // No increase waits any more (agreed, or the subscription ended): what the sheet still says.
        let agreed = state.snapshot?.priceIncreases.first { $0.productID == message.productID && $0.status == .agreed }
        let text = agreed != nil ? "You agreed to the new price of \(name)." : "The price of \(name) is increasing."
        return SheetContent(title: "Subscription Price Increase", body: say(text, .plain), buttons: [("[ OK \(g.enter) ]", .confirm)])
    case .generic:
        return SheetContent(title: "App Store", body: say("A message from the App Store (Message.Reason.generic).", .plain),
                            buttons: [("[ OK \(g.enter) ]", .confirm)])
    }
}
