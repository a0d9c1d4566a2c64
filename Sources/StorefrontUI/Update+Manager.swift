import StoreEngine

// The Transaction Manager screen's actions and its reducer: the list and its cursor, the detail
// pane, the tester's actions on a transaction, and the engine's answers to reading them.

/// What happens on the Transaction Manager: its keys, as what they mean, and what the engine read for it.
public enum ManagerAction: Equatable, Sendable {
    /// A key for the list's search (/, the open prompt, Esc while a filter is kept).
    case search(Key)
    /// A key for the open detail pane (Esc i ⏎ close it, ↑ ↓ PgUp PgDn Home End scroll it, w wraps).
    case detail(Key)
    /// Moves the cursor by rows among those shown.
    case move(by: Int)
    /// Puts the cursor on a transaction (a click on its row).
    case select(Int)
    /// ⏎ or i: the detail pane of the selected transaction.
    case openDetail
    case approve
    case decline
    case resolve
    /// f: the refund sheet, to choose the reason.
    case refund
    /// b: the app's own refund request (`Transaction.beginRefundRequest`).
    case requestRefund
    case expire
    case renew
    case toggleAutoRenew
    /// x: "Delete transaction N?".
    case delete
    /// o: the product list of a purchase from outside the app.
    case buyOutside
    /// l: the event log is the paywall's; say so (it toggled a log this screen does not show).
    case logHint
    case openHelp

    // MARK: Engine results

    /// The list, and the engine's facts of each of its transactions (``AppStoreFace/facts(of:)``, read with it;
    /// none given: the engine's pure rule against the snapshot).
    case historyLoaded([Transaction], facts: [TransactionFacts] = [])
    /// The history of a subscription group, for the detail pane's timeline (nil: it has no period).
    case subscriptionHistoryLoaded(groupID: String, SubscriptionHistory?)
    /// The list could not be read.
    case historyFailed(String)
    /// The server notifications recorded for a transaction, oldest first.
    case notificationsLoaded(transactionID: Int64, [ServerNotification])
    case notificationsFailed(transactionID: Int64, String)
}

extension ManagerAction {
    /// What a key means on the Transaction Manager (nil: nothing).
    init?(_ key: Key, _ state: State) {
        let count = state.manager.transactions?.count ?? 0
        let page = max(1, ManagerLayout(state.size).listHeight - 1)
        switch key {
        case .up, .character("k"): self = .move(by: -1)
        case .down, .character("j"): self = .move(by: 1)
        case .pageUp: self = .move(by: -page)
        case .pageDown: self = .move(by: page)
        case .home, .character("g"): self = .move(by: -count)
        case .end, .character("G"): self = .move(by: count)
        case .enter, .character("i"): self = .openDetail
        case .character("a"): self = .approve
        case .character("d"): self = .decline
        case .character("v"): self = .resolve
        case .character("f"): self = .refund
        case .character("b"): self = .requestRefund
        case .character("e"): self = .expire
        case .character("n"): self = .renew
        case .character("u"): self = .toggleAutoRenew
        case .character("x"): self = .delete
        case .character("o"): self = .buyOutside
        case .character("l"): self = .logHint
        case .character("?"), .character("h"): self = .openHelp
        default: return nil
        }
    }
}

/// The Transaction Manager's reducer.
func reduceManager(_ state: inout State, _ action: ManagerAction) -> [Effect] {
    switch action {
    case .search(let key): return searchKey(&state, key) ?? []
    case .detail(let key): return detailKey(&state, key) ?? []
    case .move(let offset): moveTransaction(&state, by: offset)
    case .select(let index): state.manager.selection = index
    case .openDetail: return openDetail(&state)
    case .approve: return act(&state, .approve) { .approve($0.id) }
    case .decline: return act(&state, .decline) { .decline($0.id) }
    case .resolve: return act(&state, .resolve) { .resolve($0.id) }
    case .refund:
        // The reason is chosen on a sheet first, as App Store Connect asks for one.
        guard let selected = state.manager.selected else { break }
        if let refusal = state.manager.facts(of: selected, state).refusal(of: .refund) {
            state.flash = "\(refusalTitle(.refund)): \(refusal)"
            break
        }
        state.sheet = .refund(id: selected.id, reason: .other)
    case .requestRefund:
        // The app's own request (Transaction.beginRefundRequest) opens on any transaction, as StoreKit's
        // sheet does: the engine answers the request (Apple's RefundRequestError), and the App Store decides it later.
        if let selected = state.manager.selected { openRefundRequest(&state, selected) }
    case .expire: return act(&state, .expireSubscription) { .expire(groupID: $0.subscriptionGroupID ?? "") }
    case .renew: return act(&state, .renewSubscription) { .renew(groupID: $0.subscriptionGroupID ?? "") }
    case .toggleAutoRenew:
        let subscriptions = state.snapshot?.subscriptions ?? [:]
        return act(&state, .setAutoRenew) { selected in
            let group = selected.subscriptionGroupID ?? ""
            return .autoRenew(groupID: group, on: !(subscriptions[group]?.renewalInfo.willAutoRenew ?? true))
        }
    case .delete:
        if let selected = state.manager.selected { state.sheet = .confirmCommand(.delete(selected.id)) }
    case .buyOutside:
        if !state.products.isEmpty { state.sheet = .outsidePurchase(selection: state.selection) }
    case .logHint: state.flash = "The event log is under the paywall's table: p, then l shows or hides it, [ ] { } scroll it"
    case .openHelp: openHelp(&state)
    case .historyLoaded(let transactions, let facts):
        state.manager.transactions = transactions
        state.manager.facts = Dictionary(facts.map { ($0.transactionID, $0) }, uniquingKeysWith: { _, newer in newer })
        // A shorter list (a delete, a reset elsewhere) moves the cursor and the scroll back onto its rows.
        if state.manager.search.isFiltering { filter(&state, .transactions) } else { selectTransaction(&state, state.manager.selection) }
        // The transaction an alert named is the one selected (its search cleared if it hides it).
        if let focus = state.manager.focus, let index = transactions.firstIndex(where: { $0.id == focus }) {
            if let matches = state.manager.search.matches, !matches.contains(index) { state.manager.search = TableSearch() }
            selectTransaction(&state, index)
            state.manager.focus = nil
        }
        return refreshDetail(&state)
    case .historyFailed(let message):
        // An empty list and an alert, rather than "Loading transactions…" for ever.
        state.manager.transactions = state.manager.transactions ?? []
        if state.screen == .transactions, state.sheet == nil {
            state.sheet = .alert(title: "Cannot Load Transactions", message: message)
        }
    case .subscriptionHistoryLoaded(let groupID, let history):
        state.manager.histories[groupID] = history
    case .notificationsLoaded(let id, let notifications):
        if state.manager.detail?.transactionID == id {
            state.manager.detail?.notifications = notifications
            state.manager.detail?.notificationsError = nil
        }
    case .notificationsFailed(let id, let message):
        if state.manager.detail?.transactionID == id { state.manager.detail?.notificationsError = message }
    }
    return []
}

/// Whether the open detail pane takes a key; the others (a, f, e, …) still act on its transaction.
func detailTakes(_ key: Key, _ state: State) -> Bool {
    guard state.screen == .transactions, state.manager.detail != nil else { return false }
    switch key {
    case .escape, .enter, .character("i"), .up, .character("k"), .down, .character("j"), .pageUp, .pageDown,
         .home, .character("g"), .end, .character("G"), .character("w"): return true
    default: return false
    }
}
