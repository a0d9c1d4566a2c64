import StoreEngine

// The settings screen (s): every simulated condition with its value, the
// sandbox testers, and the resets a device offers.

/// A line of the settings screen.
enum SettingsLine: Equatable {
    case setting(Int)
    case account
    case newTester
    case reset(ResetScope)
}

/// The screen's lines: the settings, then the tester and the resets.
func settingsLines(_ state: State) -> [SettingsLine] {
    guard let rows = state.settings.rows else { return [] }
    return rows.indices.map(SettingsLine.setting) + [.account, .newTester, .reset(.app), .reset(.account), .reset(.all)]
}

// MARK: - Keys

func settingsKey(_ state: inout State, _ key: Key) -> [Effect] {
    if key == .character("?") || key == .character("h") {
        openHelp(&state)
        return []
    }
    let lines = settingsLines(state)
    guard !lines.isEmpty else { return [] }
    let selection = min(state.settings.selection, lines.count - 1)
    switch key {
    case .up, .character("k"): state.settings.selection = max(0, selection - 1)
    case .down, .character("j"): state.settings.selection = min(lines.count - 1, selection + 1)
    case .home, .character("g"): state.settings.selection = 0
    case .end, .character("G"): state.settings.selection = lines.count - 1
    case .left, .right, .enter, .character(" "):
        return change(&state, lines[selection], by: key == .left ? -1 : 1)
    case .character("o"):
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
        // Shown at once, so a second press steps on from it; while the first change is being made,
        // the next one waits its turn (the last value pressed wins).
        state.settings.rows?[index].value.value = next
        state.settings.rows?[index].value.once = false
        let command = StoreCommand.setSetting(name: row.value.name, value: next, once: false)
        guard state.busy == nil else {
            state.queuedSetting = command
            return []
        }
        return run(command, &state)
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

// MARK: - Drawing

func drawSettings(_ state: State, into canvas: inout Canvas) {
    let g = state.glyphs
    canvas.put("Settings", x: 2, y: 1, style: Style(bold: true, color: .yellow))
    canvas.put(" \(g.dot) simulated conditions, kept in the store file; other processes see them at once",
               x: 10, y: 1, limit: canvas.width - 11)
    rule(2, state, into: &canvas)
    guard let rows = state.settings.rows else {
        canvas.put("\(spinner(state)) Loading settings…", x: 2, y: 3)
        return
    }
    let lines = settingsLines(state)
    let top = 3
    let statusRow = canvas.height - 2
    let height = max(1, statusRow - 1 - top)
    let selection = min(state.settings.selection, lines.count - 1)
    // Scrolled just enough to keep the selection on screen.
    let scroll = max(0, min(selection - height + 1, lines.count - height))
    // Wide enough for the longest name (includeConsumablesInHistory): a cut name is no name.
    let nameWidth = max(22, rows.map { TerminalText.width($0.value.name) + 2 }.max() ?? 0)
    // Wide enough for every value with its "(once)" and the selected one's ‹ ›: a cut
    // value ("notAvailableInStoref") would name the wrong error or none.
    // An error value keeps room for its " (once)" whether or not it is set, so `o` never moves the columns.
    let valueWidth = max(22, rows.map { row in
        TerminalText.width(row.value.value) + (row.acceptsOnce && row.value.value != "none" ? 7 : 0) + 4
    }.max() ?? 0)
    let summaryX = 4 + nameWidth + valueWidth + 9  // after the scope column
    for (offset, line) in lines.dropFirst(max(0, scroll)).prefix(height).enumerated() {
        let index = max(0, scroll) + offset
        let row = top + offset
        let selected = index == selection
        let base = selected ? Style(reverse: true) : .plain
        if selected { highlight(row: row, pointerAt: 1, state, into: &canvas) }
        var accent = base
        accent.bold = true
        switch line {
        case .setting(let i):
            let setting = rows[i]
            canvas.put(setting.value.name, x: 4, y: row, style: base)
            var value = setting.value.value + (setting.value.once ? " (once)" : "")
            if selected { value = "\(g.left) \(value) \(g.right)" }
            var valueStyle = accent
            if !setting.value.isDefault { valueStyle.color = .yellow }
            canvas.put(value, x: 4 + nameWidth, y: row, limit: valueWidth, style: valueStyle)
            canvas.put(setting.value.scope == .account ? "account" : "store", x: 4 + nameWidth + valueWidth + 1, y: row,
                       style: selected ? base : dim)
            canvas.put(TerminalText.truncated(setting.summary, to: max(0, canvas.width - summaryX - 1)), x: summaryX, y: row,
                       style: selected ? base : dim)
        case .account:
            canvas.put("Sandbox tester", x: 4, y: row, style: base)
            canvas.put(selected ? "\(g.left) \(state.account) \(g.right)" : state.account, x: 4 + nameWidth, y: row,
                       limit: canvas.width - 5 - nameWidth, style: accent)
            let count = Set(state.settings.accounts + [state.account]).count
            canvas.put("\(count) tester\(count == 1 ? "" : "s") in this store file; \(g.left)\(g.right) switch",
                       x: summaryX, y: row, limit: max(0, canvas.width - summaryX - 1), style: selected ? base : dim)
        case .newTester:
            action("[ New tester ]", "an empty history: test a first purchase again", row, selected, &canvas, summaryX)
        case .reset(.app):
            action("[ Delete the app ]", "owned products and balances go; Restore brings purchases back", row, selected, &canvas, summaryX)
        case .reset(.account):
            action("[ Clear this tester's history ]", "transactions, settings and log of \(state.account)", row, selected, &canvas, summaryX)
        case .reset(.all):
            action("[ Reset everything ]", "every account and transaction in the store file", row, selected, &canvas, summaryX)
        }
        canvas.addHotspot(x: 0, y: row, width: canvas.width, target: .row(index))
    }
    drawStatus(state, row: statusRow, into: &canvas)
}

private func action(_ label: String, _ summary: String, _ row: Int, _ selected: Bool, _ canvas: inout Canvas,
                    _ summaryX: Int) {
    let base = selected ? Style(reverse: true) : .plain
    var accent = base
    accent.bold = true
    canvas.put(label, x: 4, y: row, style: accent)
    canvas.put(TerminalText.truncated(summary, to: max(0, canvas.width - summaryX - 1)), x: summaryX, y: row,
               style: selected ? base : dim)
}
