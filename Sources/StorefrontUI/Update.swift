import StoreEngine

/// The paywall's first effects: load the store, with the spinner on.
public func start(_ state: inout State) -> [Effect] {
    state.busy = .loading
    return [.load]
}

/// Applies one action to the state and returns the engine work it calls for.
/// Pure: no I/O, no clock, no terminal — every flow is testable by calling it.
public func update(_ state: inout State, _ action: Action) -> [Effect] {
    var effects = apply(&state, action)
    // Keys typed on the settings screen while a write was in flight, now in the order typed:
    // each may start the next write, and the rest wait for that one.
    while state.busy == nil, !state.pendingKeys.isEmpty, state.isRunning {
        effects += apply(&state, .key(state.pendingKeys.removeFirst()))
    }
    // A message from the App Store that arrived, once nothing else is open.
    return effects + receiveMessages(&state)
}

/// At most this many keys wait for a write: a held-down key does not pile up for minutes.
let pendingKeyLimit = 64

private func apply(_ state: inout State, _ action: Action) -> [Effect] {
    let flashBefore = state.flash
    let effects: [Effect]
    switch action {
    case .key(.interrupt), .terminate:
        state.isRunning = false
        effects = []
    case .key(let key) where state.busy != nil && (state.screen == .settings || !state.pendingKeys.isEmpty):
        // A setting is being written (or the screen reloads): the key waits its turn instead of being
        // dropped, so → → on a slow write still steps twice, and o after → applies to the new value.
        if state.pendingKeys.count < pendingKeyLimit { state.pendingKeys.append(key) }
        effects = []
    case .key(let key):
        if state.sheet != nil {
            effects = sheet(&state, key)
        } else if state.screen == .transactions, let handled = detailKey(&state, key) {
            effects = handled
        } else if let handled = searchKey(&state, key) {
            effects = handled
        } else if let global = globalKey(&state, key) {
            effects = global
        } else {
            switch state.screen {
            case .paywall: effects = mainScreen(&state, key)
            case .transactions: effects = managerKey(&state, key)
            case .settings: effects = settingsKey(&state, key)
            }
        }
    case .click(let target):
        effects = click(&state, target)
    case .resized(let size):
        state.size = size
        // A smaller window must not leave the manager's cursor below its list.
        selectTransaction(&state, state.manager.selection)
        effects = []
    case .tick:
        state.ticks += 1
        // A note on the status line goes after a few seconds; an alert stays until dismissed.
        if state.flash != nil, state.ticks - state.flashSince >= flashTicks { state.flash = nil }
        // About twice a second, look at the catalog file (the store file's changes come from its
        // change feed); on a fast clock, also read the screen again each second, so the clock and
        // "Renews …" move as store time does.
        var due: [Effect] = state.ticks % 5 == 0 && (state.snapshot != nil || state.loadError != nil) ? [.checkForChanges] : []
        if state.ticks % 10 == 0, state.busy == nil, let snapshot = state.snapshot, snapshot.timeRate != .realTime {
            due.append(.load)
        }
        effects = due
    case .loaded(let snapshot):
        let before = state.snapshot
        state.snapshot = snapshot
        state.knownDataVersion = snapshot.dataVersion
        state.tableMeasure = TableMeasure(state)
        // New products or prices: the search finds in what is on screen now.
        if state.search.isFiltering { filter(&state, .paywall) }
        if state.loadError != nil, state.busy == .loading {
            state.flash = "Retried: the store is reachable again"
        }
        state.loadError = nil
        state.failedRetries = 0
        if state.renewalsCaughtUp > 0 {
            state.flash = "Caught up \(state.renewalsCaughtUp) renewal\(state.renewalsCaughtUp == 1 ? "" : "s")"
            state.renewalsCaughtUp = 0
        }
        let loaded = state
        let names = { (ids: [String]) in counted(ids.map { name(of: $0, in: loaded) }) }
        // A year of renewals is one name with its count, not the name twelve times.
        let updates = counted(snapshot.arrived.map { name(of: $0, in: state) }
            + snapshot.revoked.map { name(of: $0, in: state) + " (refunded)" })
        if !state.hasLaunched {
            // The app's launch: what an earlier run left unfinished is delivered now, or is still left.
            state.hasLaunched = true
            var notes: [String] = []
            if !updates.isEmpty { notes.append("Delivered at launch (left unfinished before): " + updates) }
            if !snapshot.left.isEmpty { notes.append("Still unfinished: " + names(snapshot.left.map(\.productID))) }
            if !notes.isEmpty { state.flash = notes.joined(separator: "; ") }
        } else if !updates.isEmpty {
            state.flash = "Arrived as an update: " + updates
        }
        if state.hasLaunched, let news = refundRequestNews(from: before, to: snapshot, state) {
            // After what this load delivered, else in place of an older note.
            state.flash = state.flash != flashBefore ? [state.flash, news].compactMap { $0 }.joined(separator: "; ") : news
        }
        if state.busy == .loading { state.busy = nil }
        state.selection = min(state.selection, max(0, snapshot.products.count - 1))
        // Only once a tester was chosen: a store file that never named one leaves the paywall's own.
        if state.followsCurrentAccount, state.busy == nil, let current = snapshot.currentAccount, current != state.account {
            // `accounts switch` in another terminal: the app signs in as the tester the store file names.
            state.busy = .working("Switching to \(current)…")
            effects = [.run(.switchAccount(current))]
        } else {
            // The load finished what arrived; the manager's list, read alongside it, may predate that.
            effects = !updates.isEmpty && state.screen == .transactions ? [.loadHistory] : []
        }
    case .loadFailed(let message):
        // The products loaded before stay on screen, as an app keeps its Product values.
        if state.loadError != nil, state.busy == .loading { state.failedRetries += 1 }
        state.loadError = message
        if state.busy == .loading {
            state.busy = nil
            state.flash = nil
        }
        effects = []
    case .dataVersion(let version):
        if state.knownDataVersion != version, state.busy == nil {
            // Asked for once per change: a load that fails (offline) is not repeated until the next write.
            state.knownDataVersion = version
            effects = reload(state)
        } else {
            effects = []
        }
    case .renewalsMade:
        effects = state.busy == nil ? reload(state) : []
    case .catchingUpRenewals(let made):
        state.renewalsCaughtUp += made
        state.flash = "Catching up renewals: \(state.renewalsCaughtUp) made…"
        effects = [.load]
    case .historyLoaded(let transactions):
        state.manager.transactions = transactions
        // A shorter list (a delete, a reset elsewhere) moves the cursor and the scroll back onto its rows.
        if state.manager.search.isFiltering { filter(&state, .transactions) } else { selectTransaction(&state, state.manager.selection) }
        effects = refreshDetail(&state)
    case .notificationsLoaded(let id, let notifications):
        if state.manager.detail?.transactionID == id {
            state.manager.detail?.notifications = notifications
            state.manager.detail?.notificationsError = nil
        }
        effects = []
    case .notificationsFailed(let id, let message):
        if state.manager.detail?.transactionID == id { state.manager.detail?.notificationsError = message }
        effects = []
    case .historyFailed(let message):
        // An empty list and an alert, rather than "Loading transactions…" for ever.
        state.manager.transactions = state.manager.transactions ?? []
        if state.screen == .transactions, state.sheet == nil {
            state.sheet = .alert(title: "Cannot Load Transactions", message: message)
        }
        effects = []
    case .settingsFailed(let message):
        if state.screen == .settings, state.sheet == nil {
            state.sheet = .alert(title: "Cannot Load Settings", message: message)
        }
        effects = []
    case .settingsLoaded(let rows, let accounts):
        // Read before a write still in flight: its rows would undo the value shown for that write
        // (and a next → would step from the old one). The write's own reload brings them.
        if case .setSetting? = state.inFlight {
            effects = []
            break
        }
        state.settings.rows = rows
        state.settings.accounts = accounts
        effects = []
    case .commandFinished(let command, let result):
        state.busy = nil
        state.inFlight = nil
        switch result {
        case .success(let message): state.flash = message
        case .failure(let failure):
            state.sheet = .alert(title: "Cannot \(command.verb)", message: failure.message)
            // Keys typed after a write that failed were meant for a value it did not set.
            state.pendingKeys = []
        }
        effects = reload(state)
    case .catalogReloaded(let paywall, let summary):
        state.paywall = paywall
        // The file is good again: the alert about its last bad version goes.
        if case .alert(catalogAlertTitle, _)? = state.sheet { state.sheet = nil }
        state.flash = summary
        effects = reload(state)
    case .catalogFailed(let message):
        let text = "\(message). The catalog loaded before stays in use: fix the file and save it again."
        if state.sheet == nil || { if case .alert(catalogAlertTitle, _)? = state.sheet { true } else { false } }() {
            state.sheet = .alert(title: catalogAlertTitle, message: text)
        } else {
            state.flash = "Catalog not reloaded: \(message)"
        }
        effects = []
    case .accountChanged(let account):
        state.busy = nil
        state.inFlight = nil
        state.account = account
        state.manager = ManagerState()
        // The last tester's checkmarks and balances are not shown under the new name meanwhile.
        state.snapshot = nil
        state.flash = "Signed in as \(account)"
        effects = reload(state)
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
    case .redeemed(let code, let result):
        effects = redeemed(&state, code: code, result)
    case .messageFailed(let message):
        if state.sheet == nil { state.sheet = .alert(title: "Cannot Handle the Message", message: message) }
        effects = []
    }
    if state.flash != flashBefore, state.flash != nil { state.flashSince = state.ticks }
    keepSelectionVisible(&state)
    return effects
}

/// How long a status-line note stays: six seconds of ten ticks.
let flashTicks = 60

/// "Monthly Subscription ×12, Go Pro": each name once, in order, counted when it repeats.
func counted(_ names: [String]) -> String {
    var order: [String] = []
    var counts: [String: Int] = [:]
    for name in names {
        if counts[name] == nil { order.append(name) }
        counts[name, default: 0] += 1
    }
    return order.map { counts[$0]! > 1 ? "\($0) ×\(counts[$0]!)" : $0 }.joined(separator: ", ")
}

// MARK: - Keys

private func mainScreen(_ state: inout State, _ key: Key) -> [Effect] {
    let page = max(1, Layout(state).tableHeight - 1)
    switch key {
    case .up, .character("k"): move(&state, by: -1)
    case .down, .character("j"): move(&state, by: 1)
    case .pageUp: move(&state, by: -page)
    case .pageDown: move(&state, by: page)
    case .home, .character("g"): move(&state, by: -state.products.count)
    case .end, .character("G"): move(&state, by: state.products.count)
    case .character("r") where state.loadError != nil, .enter where state.loadError != nil && state.snapshot == nil:
        return retry(&state)
    case .enter, .character(" "): return buy(&state)
    case .character("r"): return restore(&state)
    case .character("c"): return consume(&state)
    case .character("o"): openRedeemCode(&state)
    case .character("m"): openMessages(&state)
    case .character("b"): requestRefundOnPaywall(&state)
    case .character("l"): state.showLog.toggle()
    case .character("["), .character("]"), .character("{"), .character("}"): scrollLog(&state, key)
    case .character("?"), .character("h"): openHelp(&state)
    case .escape: state.sheet = .confirmQuit
    default: break
    }
    return []
}

/// Keys that mean the same on every screen: switching screens and quitting.
private func globalKey(_ state: inout State, _ key: Key) -> [Effect]? {
    switch key {
    case .character("p"): return show(&state, .paywall)
    case .character("t"): return show(&state, .transactions)
    case .character("s"): return show(&state, .settings)
    case .escape where state.screen != .paywall: return show(&state, .paywall)
    // The store's clock: a day, or a month, ahead; renewals due by then follow.
    case .character("+"): return run(.advanceClock(ISODuration(days: 1)), &state)
    case .character(">"): return run(.advanceClock(ISODuration(months: 1)), &state)
    case .character("q"):
        state.isRunning = false
        return []
    default: return nil
    }
}

/// Switches to a screen and reads what it shows.
func show(_ state: inout State, _ screen: Screen) -> [Effect] {
    state.screen = screen
    state.flash = nil
    // A prompt left open by a click on a tab closes; the filter it typed stays with its table.
    (state.search.isEditing, state.manager.search.isEditing) = (false, false)
    switch screen {
    case .paywall: return []
    case .transactions: return [.loadHistory]
    case .settings: return [.loadSettings]
    }
}

/// Everything the current screen shows, read again after a change.
func reload(_ state: State) -> [Effect] {
    switch state.screen {
    case .paywall: [.load]
    case .transactions: [.load, .loadHistory]
    case .settings: [.load, .loadSettings]
    }
}

/// Starts a store command with the spinner on.
func run(_ command: StoreCommand, _ state: inout State) -> [Effect] {
    guard state.busy == nil else { return [] }
    state.flash = nil
    state.busy = .working(command.progress)
    state.inFlight = command
    return [.run(command)]
}

private func click(_ state: inout State, _ target: ClickTarget) -> [Effect] {
    switch target {
    case .screen(let screen):
        return state.sheet == nil ? show(&state, screen) : []
    case .row(let index):
        guard state.sheet == nil else { return [] }
        switch state.screen {
        case .paywall: return []
        case .transactions: state.manager.selection = index
        case .settings: state.settings.selection = index
        }
        return []
    case .retry:
        return state.sheet == nil ? retry(&state) : []
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
    case .sheetKey(let character):
        return state.sheet == nil ? [] : sheet(&state, .character(character))
    }
}

/// Opens the current screen's help at its top.
func openHelp(_ state: inout State) {
    state.sheet = .help
    state.helpScroll = 0
}
