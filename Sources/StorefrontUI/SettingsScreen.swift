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
    let selection = min(state.settings.selection, lines.count - 1)
    // Wide enough for the longest name (includeConsumablesInHistory): a cut name is no name.
    let nameWidth = max(22, rows.map { TerminalText.width($0.value.name) + 2 }.max() ?? 0)
    // Wide enough for every value with its "(once)" and the selected one's ‹ ›: a cut
    // value ("notAvailableInStoref") would name the wrong error or none.
    // An error value keeps room for its " (once)" whether or not it is set, so `o` never moves the columns.
    let valueWidth = max(22, rows.map { row in
        TerminalText.width(row.value.value) + (row.acceptsOnce && row.value.value != "none" ? 7 : 0) + 4
    }.max() ?? 0)
    let summaryX = 4 + nameWidth + valueWidth + 9  // after the scope column
    let summaryWidth = max(0, canvas.width - summaryX - 1)
    // Below ~130 columns the descriptions do not fit beside the values: the selected line's is
    // wrapped whole under the list, and the column keeps a cut hint only where it has room for one.
    let description = settingsDescription(lines[selection], state)
    let panel = TerminalText.width(description.text) > summaryWidth
        ? Array(wrap(description.title + " " + description.text, canvas.width - 4).prefix(3)) : []
    // The panel's lines sit on the status line, under a rule; without it a blank line parts list and status.
    let height = max(1, panel.isEmpty ? statusRow - 1 - top : statusRow - panel.count - 1 - top)
    let columnWidth = summaryWidth >= 16 ? summaryWidth : 0
    // Scrolled just enough to keep the selection on screen.
    let scroll = max(0, min(selection - height + 1, lines.count - height))
    for (offset, line) in lines.dropFirst(max(0, scroll)).prefix(height).enumerated() {
        let index = max(0, scroll) + offset
        let row = top + offset
        let selected = index == selection
        // The line's head (pointer and name) is the highlight, as on the paywall; the value stays bold.
        let head = selected ? Style(reverse: true) : .plain
        if selected { highlight(row: row, pointerAt: 1, through: 4 + nameWidth - 2, state, into: &canvas) }
        let accent = Style(bold: true)
        let hint = TerminalText.truncated(settingsDescription(line, state).summary, to: columnWidth)
        switch line {
        case .setting(let i):
            let setting = rows[i]
            canvas.put(setting.value.name, x: 4, y: row, style: head)
            var value = setting.value.value + (setting.value.once ? " (once)" : "")
            if selected { value = "\(g.left) \(value) \(g.right)" }
            var valueStyle = accent
            if !setting.value.isDefault { valueStyle.color = .yellow }
            canvas.put(value, x: 4 + nameWidth, y: row, limit: valueWidth, style: valueStyle)
            canvas.put(setting.value.scope == .account ? "account" : "store", x: 4 + nameWidth + valueWidth + 1, y: row,
                       style: selected ? .plain : dim)
        case .account:
            canvas.put("Sandbox tester", x: 4, y: row, style: head)
            canvas.put(selected ? "\(g.left) \(state.account) \(g.right)" : state.account, x: 4 + nameWidth, y: row,
                       limit: canvas.width - 5 - nameWidth, style: accent)
        case .newTester, .reset:
            canvas.put(actionLabel(line), x: 4, y: row, style: Style(bold: true, reverse: selected))
        }
        canvas.put(hint, x: summaryX, y: row, style: selected ? .plain : dim)
        canvas.addHotspot(x: 0, y: row, width: canvas.width, target: .row(index))
    }
    if !panel.isEmpty {
        let panelTop = statusRow - panel.count
        rule(panelTop - 1, state, into: &canvas)
        for (offset, text) in panel.enumerated() {
            canvas.put(text, x: 2, y: panelTop + offset)
        }
        canvas.put(description.title, x: 2, y: panelTop, style: Style(bold: true))
    }
    drawStatus(state, row: statusRow, into: &canvas)
}

/// A settings line's description: its short form for the column, and the panel's title and whole text.
func settingsDescription(_ line: SettingsLine, _ state: State) -> (title: String, summary: String, text: String) {
    let g = state.glyphs
    switch line {
    case .setting(let i):
        guard let setting = state.settings.rows?[i] else { return ("", "", "") }
        let scope = setting.value.scope == .account ? "per account" : "for the whole store file"
        let once = setting.acceptsOnce ? "; o makes it apply to the next call only" : ""
        return (setting.value.name + ":", setting.summary, "\(setting.summary); \(scope)\(once)")
    case .account:
        let count = Set(state.settings.accounts + [state.account]).count
        let summary = "\(count) tester\(count == 1 ? "" : "s") in this store file; \(g.left)\(g.right) switch"
        return ("Sandbox tester:", summary, summary + "; the paywall and other processes follow the switch")
    case .newTester:
        let summary = "an empty history: test a first purchase again"
        return ("New tester:", summary, summary + " (a new sandbox account, signed in at once)")
    case .reset(.app):
        let summary = "owned products and balances go; Restore brings purchases back"
        return ("Delete the app:", summary, summary + ", as after deleting the app from a device")
    case .reset(.account):
        let summary = "transactions, settings and log of \(state.account)"
        return ("Clear this tester's history:", summary, summary + ": every transaction, setting and log entry of the tester goes")
    case .reset(.all):
        let summary = "every account and transaction in the store file"
        return ("Reset everything:", summary, summary + " goes, with every setting and log entry")
    }
}

private func actionLabel(_ line: SettingsLine) -> String {
    switch line {
    case .newTester: "[ New tester ]"
    case .reset(.app): "[ Delete the app ]"
    case .reset(.account): "[ Clear this tester's history ]"
    case .reset(.all): "[ Reset everything ]"
    case .setting, .account: ""
    }
}
