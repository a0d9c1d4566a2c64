import StoreEngine

// The paywall's flows (buy, restore, consume, what a purchase ended in) and its selection, for `update`.

// MARK: - Flows

func buy(_ state: inout State) -> [Effect] {
    // Offline after a load the products stay on screen and can be bought (the purchase meets the
    // network error); before any load there is nothing on screen to buy.
    guard state.busy == nil, let product = state.selectedProduct, let snapshot = state.snapshot
    else { return [] }
    state.flash = nil
    if !snapshot.canMakePayments {
        // As StoreKit with payments restricted: no App Store sheet, no price; the purchase is refused
        // at once (purchaseNotAllowed), and the alert says so.
        state.busy = .purchasing(productID: product.id)
        return [.purchase(productID: product.id)]
    }
    if product.type == .nonConsumable, snapshot.entitled.contains(product.id) {
        state.sheet = .alreadyOwned(productID: product.id)
    } else {
        state.sheet = purchaseSheet(for: product, state)
    }
    return []
}

/// Loads the store again after a failed load (offline, a simulated loadProductsError).
func retry(_ state: inout State) -> [Effect] {
    guard state.busy == nil else { return [] }
    state.flash = nil
    state.busy = .loading
    return [.load]
}

func restore(_ state: inout State) -> [Effect] {
    guard state.busy == nil else { return [] }
    state.flash = nil
    state.busy = .restoring
    return [.restore]
}

func consume(_ state: inout State) -> [Effect] {
    guard state.busy == nil, state.snapshot != nil, let product = state.selectedProduct else { return [] }
    guard product.type == .consumable else {
        state.flash = "Only consumables can be consumed"
        return []
    }
    state.flash = nil
    state.busy = .consuming(productID: product.id)
    return [.consume(productID: product.id)]
}

func purchaseEnded(_ state: inout State, _ productID: String, _ report: PurchaseReport) {
    let product = name(of: productID, in: state)
    switch report {
    case .ended(let outcome):
        guard case .bought(let purchase, _, _, _) = outcome, case .pending(let request) = purchase.outcome else {
            state.flash = outcome.sentence
            return
        }
        // The engine's sentence names the command for this paywall's store: pasted in another
        // terminal, it acts on this one. The advice must act on this request: t opens the manager on it.
        state.manager.focus = request.id
        let key = request.reason == .interrupted ? "v" : "a"
        state.sheet = .alert(title: "Purchase Pending", message: outcome.sentence + " In the Transaction Manager: t, then \(key).")
    case .unverified(let id, let error):
        state.sheet = .alert(title: "Unverified Transaction",
                             message: "Transaction \(id) for \(product) reached the app unverified (\(error)). The app does not "
                                 + "deliver it and leaves it unfinished: the next launch delivers it if it verifies then.")
    case .failed(let name, let domain, let message):
        state.sheet = .alert(title: "Purchase Failed",
                             message: "\(domain.map { $0 + "." } ?? "")\(name): \(message)")
    case .notSigned(let reason):
        // The app's server could not sign: the app never asks the App Store, so nothing is logged or charged.
        state.sheet = .alert(title: "Cannot Sign the Offer",
                             message: "\(reason). The paywall signs promotional offers as the app's server would, with a store offer key; nothing was bought.")
    }
}

func name(of productID: String, in state: State) -> String {
    state.products.first { $0.id == productID }?.displayName ?? productID
}

// MARK: - Selection

/// Moves the cursor `offset` rows among those shown: every product, or the search's matches.
func move(_ state: inout State, by offset: Int) {
    guard let matches = state.search.matches else {
        move(&state, to: state.selection + offset)
        return
    }
    guard !matches.isEmpty else { return }
    let at = min(state.search.position(of: state.selection), matches.count - 1)
    state.selection = matches[min(max(0, at + offset), matches.count - 1)]
}

func move(_ state: inout State, to index: Int) {
    state.selection = min(max(0, index), max(0, state.products.count - 1))
}

/// Scrolls the table so the selected row is on screen. The top row shows the heading of the
/// group scrolled into (a sticky heading, over the line at `scroll`), so a product is on screen
/// when it is below `scroll`: moving up to a row puts the line above it on top, its own heading
/// or one the sticky heading covers.
func keepSelectionVisible(_ state: inout State) {
    let layout = Layout(state)
    guard layout.tableHeight > 0, let line = layout.lines.firstIndex(of: .product(state.selection)) else {
        state.scroll = 0
        return
    }
    if line <= state.scroll { state.scroll = max(0, line - 1) }
    if line >= state.scroll + layout.tableHeight { state.scroll = line - layout.tableHeight + 1 }
    state.scroll = max(0, min(state.scroll, max(0, layout.lines.count - layout.tableHeight)))
}
