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
    return effects + receiveMessages(&state) + predictOffer(&state, after: action) + predictRefundRequest(&state, after: action)
}

/// At most this many keys wait for a write: a held-down key does not pile up for minutes.
let pendingKeyLimit = 64

private func apply(_ state: inout State, _ action: Action) -> [Effect] {
    let flashBefore = state.flash
    let effects = reduce(&state, action)
    if state.flash != flashBefore, state.flash != nil { state.flashSince = state.ticks }
    keepSelectionVisible(&state)
    return effects
}

/// The root reducer: app-wide actions here, scoped ones to their screen's or sheet's reducer.
func reduce(_ state: inout State, _ action: Action) -> [Effect] {
    switch action {
    case .key(.interrupt), .terminate, .quit:
        state.isRunning = false
        return []
    case .key(let key) where state.busy != nil && (state.screen == .settings || !state.pendingKeys.isEmpty):
        // A setting is being written (or the screen reloads): the key waits its turn instead of being
        // dropped, so → → on a slow write still steps twice, and o after → applies to the new value.
        if state.pendingKeys.count < pendingKeyLimit { state.pendingKeys.append(key) }
        return []
    case .key(let key):
        return route(key, state).map { reduce(&state, $0) } ?? []
    case .click(let target):
        return route(target, state).map { reduce(&state, $0) } ?? []
    case .show(let screen):
        return show(&state, screen)
    case .runCommand(let command):
        return run(command, &state)
    case .paywall(let action):
        return reducePaywall(&state, action)
    case .manager(let action):
        return reduceManager(&state, action)
    case .settings(let action):
        return reduceSettings(&state, action)
    case .sheet(let action):
        return reduceSheet(&state, action)
    case .resized(let size):
        state.size = size
        // A smaller window must not leave the manager's cursor below its list.
        selectTransaction(&state, state.manager.selection)
        return []
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
        return due
    case .loaded(let snapshot):
        return loaded(&state, snapshot)
    case .loadRefused(let message, let conditions):
        state.snapshot?.conditions = conditions
        return update(&state, .loadFailed(message))
    case .loadFailed(let message):
        // The products loaded before stay on screen, as an app keeps its Product values.
        if state.loadError != nil, state.busy == .loading { state.failedRetries += 1 }
        state.loadError = message
        if state.busy == .loading {
            state.busy = nil
            state.flash = nil
        }
        return []
    case .dataVersion(let version):
        guard state.knownDataVersion != version, state.busy == nil else { return [] }
        // Asked for once per change: a load that fails (offline) is not repeated until the next write.
        state.knownDataVersion = version
        return reload(state)
    case .renewalsMade:
        return state.busy == nil ? reload(state) : []
    case .catchingUpRenewals(let made):
        state.renewalsCaughtUp += made
        state.flash = "Catching up renewals: \(state.renewalsCaughtUp) made…"
        return [.load]
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
        return reload(state)
    case .catalogReloaded(let paywall, let summary):
        state.paywall = paywall
        // The file is good again: the alert about its last bad version goes.
        if case .alert(catalogAlertTitle, _)? = state.sheet { state.sheet = nil }
        state.flash = summary
        return reload(state)
    case .catalogFailed(let message):
        let text = "\(message). The catalog loaded before stays in use: fix the file and save it again."
        if state.sheet == nil || { if case .alert(catalogAlertTitle, _)? = state.sheet { true } else { false } }() {
            state.sheet = .alert(title: catalogAlertTitle, message: text)
        } else {
            state.flash = "Catalog not reloaded: \(message)"
        }
        return []
    case .accountChanged(let account):
        state.busy = nil
        state.inFlight = nil
        state.account = account
        state.manager = ManagerState()
        // The last tester's checkmarks and balances are not shown under the new name meanwhile.
        state.snapshot = nil
        state.flash = "Signed in as \(account)"
        return reload(state)
    case .messageFailed(let message):
        if state.sheet == nil { state.sheet = .alert(title: "Cannot Handle the Message", message: message) }
        return []
    }
}

/// The store's contents read: the table, what arrived, the launch's deliveries, another process's account switch.
private func loaded(_ state: inout State, _ snapshot: StoreSnapshot) -> [Effect] {
    let flashBefore = state.flash
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
        if !state.catalogNotes.isEmpty, state.sheet == nil {
            let count = state.catalogNotes.count
            state.sheet = .alert(title: "Catalog Notes", message: "Reading the catalog made \(count) note\(count == 1 ? "" : "s") "
                                    + "(storefront catalog check FILE lists them): " + state.catalogNotes.joined(separator: " · "))
        }
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
        return [.run(.switchAccount(current))]
    } else {
        // The load finished what arrived; the manager's list, read alongside it, may predate that.
        return !updates.isEmpty && state.screen == .transactions ? [.loadHistory] : []
    }
}

// MARK: - Routing

/// The action a key stands for where it is typed: the open sheet takes every key; then the manager's
/// detail pane, the search, the keys every screen shares, and the screen's own. Nil: the key does nothing there.
func route(_ key: Key, _ state: State) -> Action? {
    if let sheet = state.sheet { return .sheet(SheetAction(sheet, key)) }
    if detailTakes(key, state) { return .manager(.detail(key)) }
    if searchTakes(key, state) { return state.screen == .paywall ? .paywall(.search(key)) : .manager(.search(key)) }
    if let global = globalAction(key, state) { return global }
    switch state.screen {
    case .paywall: return PaywallAction(key, state).map(Action.paywall)
    case .transactions: return ManagerAction(key, state).map(Action.manager)
    case .settings: return SettingsAction(key, state).map(Action.settings)
    }
}

/// Keys that mean the same on every screen: switching screens, the store's clock, and quitting.
private func globalAction(_ key: Key, _ state: State) -> Action? {
    switch key {
    case .character("p"): .show(.paywall)
    case .character("t"): .show(.transactions)
    case .character("s"): .show(.settings)
    case .escape where state.screen != .paywall: .show(.paywall)
    // The store's clock: a day, or a month, ahead; renewals due by then follow.
    case .character("+"): .runCommand(.advanceClock(ISODuration(days: 1)))
    case .character(">"): .runCommand(.advanceClock(ISODuration(months: 1)))
    case .character("q"): .quit
    default: nil
    }
}

/// The action a click stands for: a tab, a row, a button on the paywall or on the sheet.
func route(_ target: ClickTarget, _ state: State) -> Action? {
    if let sheet = state.sheet {
        // Under a sheet only its own buttons answer.
        switch target {
        case .confirm: return .sheet(SheetAction(sheet, .enter))
        case .cancel: return .sheet(SheetAction(sheet, .escape))
        case .sheetKey(let character): return .sheet(SheetAction(sheet, .character(character)))
        default: return nil
        }
    }
    switch target {
    case .screen(let screen): return .show(screen)
    case .row(let index):
        switch state.screen {
        case .paywall: return nil
        case .transactions: return .manager(.select(index))
        case .settings: return .settings(.select(index))
        }
    case .retry: return .paywall(.retry)
    case .product(let index): return .paywall(.select(index))
    case .buy(let index): return .paywall(.buyProduct(at: index))
    case .restore: return .paywall(.restore)
    case .confirm, .cancel, .sheetKey: return nil
    }
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

/// Opens the current screen's help at its top.
func openHelp(_ state: inout State) {
    state.sheet = .help
    state.helpScroll = 0
}
