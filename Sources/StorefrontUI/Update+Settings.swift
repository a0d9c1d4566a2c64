import StoreEngine

// The settings screen's actions and its reducer: the cursor, stepping a setting's value, the
// sandbox tester, the resets, and the engine's answer to reading them.

/// What happens on the settings screen: its keys, as what they mean, and what the engine read for it.
public enum SettingsAction: Equatable, Sendable {
    /// Moves the cursor by lines (kept on the screen's lines).
    case move(by: Int)
    /// Puts the cursor on a line (a click on it).
    case select(Int)
    /// ← → ⏎ space: the selected line's next (+1) or previous (-1) value, or its action.
    case change(by: Int)
    /// o: an error setting applies to the next call only, or again to every call.
    case toggleOnce
    case openHelp

    // MARK: Engine results

    case loaded([SettingRow], accounts: [String])
    /// The values could not be read.
    case loadFailed(String)
}

extension SettingsAction {
    /// What a key means on the settings screen (nil: nothing).
    init?(_ key: Key, _ state: State) {
        let count = settingsLines(state).count
        switch key {
        case .character("?"), .character("h"): self = .openHelp
        case .up, .character("k"): self = .move(by: -1)
        case .down, .character("j"): self = .move(by: 1)
        case .home, .character("g"): self = .move(by: -count)
        case .end, .character("G"): self = .move(by: count)
        case .left: self = .change(by: -1)
        case .right, .enter, .character(" "): self = .change(by: 1)
        case .character("o"): self = .toggleOnce
        default: return nil
        }
    }
}

/// The settings screen's reducer.
func reduceSettings(_ state: inout State, _ action: SettingsAction) -> [Effect] {
    switch action {
    case .openHelp:
        openHelp(&state)
        return []
    case .select(let index):
        state.settings.selection = index
        return []
    case .loaded(let rows, let accounts):
        // Read before a write still in flight: its rows would undo the value shown for that write
        // (and a next → would step from the old one). The write's own reload brings them.
        if case .setSetting? = state.inFlight { return [] }
        state.settings.rows = rows
        state.settings.accounts = accounts
        return []
    case .loadFailed(let message):
        if state.screen == .settings, state.sheet == nil {
            state.sheet = .alert(title: "Cannot Load Settings", message: message)
        }
        return []
    case .move, .change, .toggleOnce:
        break
    }
    let lines = settingsLines(state)
    guard !lines.isEmpty else { return [] }
    let selection = min(state.settings.selection, lines.count - 1)
    switch action {
    case .move(let offset): state.settings.selection = min(max(0, selection + offset), lines.count - 1)
    case .change(let step): return change(&state, lines[selection], by: step)
    case .toggleOnce:
        guard case .setting(let index) = lines[selection], let row = state.settings.rows?[index] else { return [] }
        guard row.acceptsOnce, row.value.value != "none" else {
            state.flash = "o (once) applies to an error setting that names an error"
            return []
        }
        return run(.setSetting(name: row.value.name, value: row.value.value, once: !row.value.once), &state)
    default: break
    }
    return []
}

private func change(_ state: inout State, _ line: SettingsLine, by step: Int) -> [Effect] {
    switch line {
    case .setting(let index):
        guard let row = state.settings.rows?[index], !row.choices.isEmpty else { return [] }
        let count = row.choices.count
        let next: String
        if let current = row.choices.firstIndex(of: row.value.value) {
            next = row.choices[(current + step + count) % count]
        } else {
            // A value set elsewhere that the list lacks (latency 250): → the next larger, ← the next smaller.
            let above = Int(row.value.value).map { value in row.choices.firstIndex { (Int($0) ?? .min) > value } ?? count } ?? 0
            next = row.choices[step > 0 ? above % count : (above - 1 + count) % count]
        }
        // Shown at once; a key typed while it is written waits for the write (`State.pendingKeys`)
        // and then steps on from it.
        guard state.busy == nil else { return [] }
        state.settings.rows?[index].value.value = next
        state.settings.rows?[index].value.once = false
        return run(.setSetting(name: row.value.name, value: next, once: false), &state)
    case .account:
        var accounts = state.settings.accounts
        if !accounts.contains(state.account) { accounts.append(state.account) }
        guard accounts.count > 1, let current = accounts.firstIndex(of: state.account) else {
            state.flash = "Only one tester: choose New tester to add one"
            return []
        }
        return run(.switchAccount(accounts[(current + step + accounts.count) % accounts.count]), &state)
    case .newTester:
        return step > 0 ? run(.newTester, &state) : []
    case .reset(let scope):
        if step > 0 { state.sheet = .confirmCommand(.reset(scope)) }
        return []
    }
}
