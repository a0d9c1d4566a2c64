import StoreEngine

// The paywall screen's actions and its reducer: the product table, Buy, Restore, Consume, the
// sheets it opens, and what the engine answers to its purchases.

/// What happens on the paywall screen: its keys, as what they mean, and the engine's answers to its work.
public enum PaywallAction: Equatable, Sendable {
    /// A key for the table's search (/, the open prompt, n N Esc while a filter is kept).
    case search(Key)
    /// Moves the cursor by rows among those shown (↑ ↓ PgUp PgDn Home End).
    case move(by: Int)
    /// Puts the cursor on a product (a click on its row).
    case select(Int)
    /// Buys the selected product: the App Store sheet, or "already purchased".
    case buy
    /// Buy clicked on a product's row.
    case buyProduct(at: Int)
    /// Loads the store again after a failed load.
    case retry
    case restore
    case consume
    case openRedeemCode
    case openMessages
    /// b: the app's refund request for the selected product's transaction.
    case requestRefund
    case toggleLog
    /// [ ] { }: scrolls the event log.
    case scrollLog(Key)
    case openHelp
    /// Esc: "Quit Storefront?".
    case askToQuit
    /// A Transaction Manager key pressed on the paywall (f, x, e, …): where it works, on the status line.
    case managerKeyHint(Character)
    /// `=`: the recorder (`--record`) writes the selected row's expectation; the status line says so.
    case expectRow

    // MARK: Engine results

    case purchased(productID: String, PurchaseReport)
    case restored(count: Int)
    case restoreFailed(String)
    case consumed(productID: String, balance: Int)
    case consumeFailed(String)
}

extension PaywallAction {
    /// What a key means on the paywall (nil: nothing).
    init?(_ key: Key, _ state: State) {
        let page = max(1, Layout(state).tableHeight - 1)
        switch key {
        case .up, .character("k"): self = .move(by: -1)
        case .down, .character("j"): self = .move(by: 1)
        case .pageUp: self = .move(by: -page)
        case .pageDown: self = .move(by: page)
        case .home, .character("g"): self = .move(by: -state.products.count)
        case .end, .character("G"): self = .move(by: state.products.count)
        case .character("r") where state.loadError != nil, .enter where state.loadError != nil && state.snapshot == nil:
            self = .retry
        case .enter, .character(" "): self = .buy
        case .character("r"): self = .restore
        case .character("c"): self = .consume
        case .character("o"): self = .openRedeemCode
        case .character("m"): self = .openMessages
        case .character("b"): self = .requestRefund
        case .character("l"): self = .toggleLog
        case .character("["), .character("]"), .character("{"), .character("}"): self = .scrollLog(key)
        case .character("?"), .character("h"): self = .openHelp
        case .escape: self = .askToQuit
        case .character("="): self = .expectRow
        case .character(let key) where Self.managerKeys[key] != nil: self = .managerKeyHint(key)
        default: return nil
        }
    }

    /// The Transaction Manager's keys that act on a transaction, and what each does there: on the
    /// paywall they did nothing, without a word.
    static let managerKeys: [Character: String] = [
        "a": "approves", "d": "declines", "v": "resolves", "f": "refunds", "e": "expires", "n": "renews",
        "u": "turns auto-renew on or off", "x": "deletes",
    ]
}

/// The paywall's reducer.
func reducePaywall(_ state: inout State, _ action: PaywallAction) -> [Effect] {
    switch action {
    case .search(let key): return searchKey(&state, key) ?? []
    case .move(let offset): move(&state, by: offset)
    case .select(let index): move(&state, to: index)
    case .buy: return buy(&state)
    case .buyProduct(let index):
        move(&state, to: index)
        return buy(&state)
    case .retry: return retry(&state)
    case .restore: return restore(&state)
    case .consume: return consume(&state)
    case .openRedeemCode: openRedeemCode(&state)
    case .openMessages: openMessages(&state)
    case .requestRefund: requestRefundOnPaywall(&state)
    case .toggleLog: state.showLog.toggle()
    case .scrollLog(let key): scrollLog(&state, key)
    case .openHelp: openHelp(&state)
    case .askToQuit: state.sheet = .confirmQuit
    case .managerKeyHint(let key):
        state.flash = "\(key) \(PaywallAction.managerKeys[key] ?? "acts") a transaction in the Transaction Manager: press t"
    case .expectRow:
        // The recorder sees the key and writes the lines (Scenarios' ScenarioRecorder); this is what the tester sees.
        if state.recording == nil {
            state.flash = "= adds an expectation to a recording: start the paywall with --record FILE"
        } else if let product = state.selectedProduct {
            state.flash = "Recorded an expectation: \(product.displayName) as its row shows it now"
        }
    case .purchased(let productID, let report):
        state.busy = nil
        purchaseEnded(&state, productID, report)
        return [.load]
    case .restored(let count):
        state.busy = nil
        state.flash = ActionOutcome.restored(count: count).sentence
        return [.load]
    case .restoreFailed(let message):
        state.busy = nil
        state.sheet = .alert(title: "Restore Failed", message: message)
        return [.load]
    case .consumed(let productID, let balance):
        state.busy = nil
        state.flash = ActionOutcome.consumed(product: name(of: productID, in: state), quantity: 1, balance: balance).sentence
        return [.load]
    case .consumeFailed(let message):
        state.busy = nil
        state.sheet = .alert(title: "Cannot Consume", message: message)
    }
    return []
}
