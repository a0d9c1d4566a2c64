import StoreEngine

/// The paywall's first effects: load the store, with the spinner on.
public func start(_ state: inout State) -> [Effect] {
    state.busy = .loading
    return [.load]
}

/// Applies one action to the state and returns the engine work it calls for.
/// Pure: no I/O, no clock, no terminal — every flow is testable by calling it.
public func update(_ state: inout State, _ action: Action) -> [Effect] {
    let effects: [Effect]
    switch action {
    case .key(.interrupt), .terminate:
        state.isRunning = false
        effects = []
    case .key(let key):
        effects = state.sheet == nil ? mainScreen(&state, key) : sheet(&state, key)
    case .click(let target):
        effects = click(&state, target)
    case .resized(let size):
        state.size = size
        effects = []
    case .tick:
        state.ticks += 1
        // About twice a second, look for another process's writes.
        effects = state.ticks % 5 == 0 && state.snapshot != nil ? [.checkForChanges] : []
    case .loaded(let snapshot):
        state.snapshot = snapshot
        state.tableMeasure = TableMeasure(state)
        state.loadError = nil
        if state.busy == .loading { state.busy = nil }
        state.selection = min(state.selection, max(0, snapshot.products.count - 1))
        effects = []
    case .loadFailed(let message):
        state.loadError = message
        if state.busy == .loading { state.busy = nil }
        effects = []
    case .dataVersion(let version):
        let changed = state.snapshot.map { $0.dataVersion != version } ?? false
        effects = changed && state.busy == nil ? [.load] : []
    case .purchased(let productID, let report):
        state.busy = nil
        purchaseEnded(&state, productID, report)
        effects = [.load]
    case .restored(let count):
        state.busy = nil
        state.flash = "Restored \(count) purchase\(count == 1 ? "" : "s")"
        effects = [.load]
    case .restoreFailed(let message):
        state.busy = nil
        state.sheet = .alert(title: "Restore Failed", message: message)
        effects = [.load]
    case .consumed(let productID, let balance):
        state.busy = nil
        state.flash = "Consumed 1 × \(name(of: productID, in: state)) · balance \(balance)"
        effects = [.load]
    case .consumeFailed(let message):
        state.busy = nil
        state.sheet = .alert(title: "Cannot Consume", message: message)
        effects = []
    }
    keepSelectionVisible(&state)
    return effects
}

// MARK: - Keys

private func mainScreen(_ state: inout State, _ key: Key) -> [Effect] {
    let page = max(1, Layout(state).tableHeight - 1)
    switch key {
    case .up, .character("k"): move(&state, by: -1)
    case .down, .character("j"): move(&state, by: 1)
    case .pageUp: move(&state, by: -page)
    case .pageDown: move(&state, by: page)
    case .home, .character("g"): move(&state, to: 0)
    case .end, .character("G"): move(&state, to: state.products.count - 1)
    case .enter, .character(" "): return buy(&state)
    case .character("r"): return restore(&state)
    case .character("c"): return consume(&state)
    case .character("l"): state.showLog.toggle()
    case .character("?"), .character("h"): state.sheet = .help
    case .character("q"), .escape: state.isRunning = false
    default: break
    }
    return []
}

private func sheet(_ state: inout State, _ key: Key) -> [Effect] {
    switch (state.sheet, key) {
    case (.confirm(let productID), .enter), (.confirm(let productID), .character("y")),
         (.alreadyOwned(let productID), .enter), (.alreadyOwned(let productID), .character("y")):
        state.sheet = nil
        state.flash = nil
        state.busy = .purchasing(productID: productID)
        return [.purchase(productID: productID)]
    case (.confirm, .escape), (.confirm, .character("n")), (.confirm, .character("q")):
        // Dismissing the App Store sheet is StoreKit's userCancelled.
        state.sheet = nil
        state.flash = "Purchase cancelled (userCancelled)"
    case (.alreadyOwned, .escape), (.alreadyOwned, .character("n")), (.alreadyOwned, .character("q")):
        state.sheet = nil
    case (.alert, .enter), (.alert, .escape), (.alert, .character("q")), (.alert, .character(" ")),
         (.help, .enter), (.help, .escape), (.help, .character("q")), (.help, .character("?")):
        state.sheet = nil
    default:
        break
    }
    return []
}

private func click(_ state: inout State, _ target: ClickTarget) -> [Effect] {
    switch target {
    case .product(let index):
        if state.sheet == nil { move(&state, to: index) }
        return []
    case .buy(let index):
        guard state.sheet == nil else { return [] }
        move(&state, to: index)
        return buy(&state)
    case .restore:
        return state.sheet == nil ? restore(&state) : []
    case .confirm:
        return sheet(&state, .enter)
    case .cancel:
        return sheet(&state, .escape)
    }
}

// MARK: - Flows

private func buy(_ state: inout State) -> [Effect] {
    guard state.busy == nil, let product = state.selectedProduct, let snapshot = state.snapshot else { return [] }
    state.flash = nil
    if product.type == .nonConsumable, snapshot.entitled.contains(product.id) {
        state.sheet = .alreadyOwned(productID: product.id)
    } else {
        state.sheet = .confirm(productID: product.id)
    }
    return []
}

private func restore(_ state: inout State) -> [Effect] {
    guard state.busy == nil else { return [] }
    state.flash = nil
    state.busy = .restoring
    return [.restore]
}

private func consume(_ state: inout State) -> [Effect] {
    guard state.busy == nil, let product = state.selectedProduct else { return [] }
    guard product.type == .consumable else {
        state.flash = "Only consumables can be consumed"
        return []
    }
    state.flash = nil
    state.busy = .consuming(productID: product.id)
    return [.consume(productID: product.id)]
}

private func purchaseEnded(_ state: inout State, _ productID: String, _ report: PurchaseReport) {
    let product = name(of: productID, in: state)
    switch report {
    case .success(_, restored: true):
        state.flash = "Restored \(product) for free"
    case .success:
        state.flash = "Purchased \(product)"
    case .userCancelled:
        state.sheet = .alert(title: "Purchase Cancelled", message: "The purchase of \(product) was cancelled (userCancelled).")
    case .pending:
        state.sheet = .alert(
            title: "Purchase Pending",
            message: "The purchase of \(product) is waiting for approval (pending). It arrives as an update when approved.")
    case .failed(let name, let domain, let message):
        state.sheet = .alert(title: "Purchase Failed",
                             message: "\(domain.map { $0 + "." } ?? "")\(name): \(message)")
    }
}

private func name(of productID: String, in state: State) -> String {
    state.products.first { $0.id == productID }?.displayName ?? productID
}

// MARK: - Selection

private func move(_ state: inout State, by offset: Int) {
    move(&state, to: state.selection + offset)
}

private func move(_ state: inout State, to index: Int) {
    state.selection = min(max(0, index), max(0, state.products.count - 1))
}

/// Scrolls the table so the selected row (and, at the top, its group heading) is on screen.
private func keepSelectionVisible(_ state: inout State) {
    let layout = Layout(state)
    guard layout.tableHeight > 0, let line = layout.lines.firstIndex(of: .product(state.selection)) else {
        state.scroll = 0
        return
    }
    let top = line > 0 && layout.lines[line - 1].isHeading ? line - 1 : line
    if top < state.scroll { state.scroll = top }
    if line >= state.scroll + layout.tableHeight { state.scroll = line - layout.tableHeight + 1 }
    state.scroll = max(0, min(state.scroll, max(0, layout.lines.count - layout.tableHeight)))
}
