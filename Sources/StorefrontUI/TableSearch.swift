import Foundation
import StoreEngine

// Search in the long tables (the paywall's products, the manager's transactions), as in less or
// vim: `/` opens a prompt on the bottom line and the table is filtered as it is typed; Enter keeps
// the filter, Esc clears it; on the paywall n and N step to the next and previous match (in the
// manager n renews, so ↑ ↓ step through the matches there).

/// A search over a table: what was typed, whether the prompt is open, and what it matches.
public struct TableSearch: Equatable, Sendable {
    public var query = ""
    /// The prompt is open: keys type into it.
    public var isEditing = false
    /// The rows that match, in table order (product or transaction indices); nil while nothing is typed.
    public var matches: [Int]?
    /// The product table's lines for the matches, under their groups' headings (the paywall's).
    var lines: [Layout.TableLine] = []

    public init() {}

    /// Whether the table shows only the matches.
    public var isFiltering: Bool { matches != nil }

    /// The position of row `index` among the matches (its insertion point when it is not one).
    func position(of index: Int) -> Int {
        guard let matches else { return index }
        var (low, high) = (0, matches.count)
        while low < high {
            let middle = (low + high) / 2
            if matches[middle] < index { low = middle + 1 } else { high = middle }
        }
        return low
    }

    func contains(_ index: Int) -> Bool {
        guard let matches else { return true }
        let at = position(of: index)
        return at < matches.count && matches[at] == index
    }
}

/// Text folded for matching: case and accents ignored ("munzen" finds "Münzen").
func searchFolded(_ text: String) -> String {
    text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
}

// MARK: - Keys

/// Keys of the search: the open prompt's, `/`, and Esc, n, N while a filter is kept. Nil lets the key through
/// (↑ ↓ PgUp PgDn Home End move among the matches even while typing).
func searchKey(_ state: inout State, _ key: Key) -> [Effect]? {
    guard state.screen == .paywall || (state.screen == .transactions && state.manager.detail == nil) else { return nil }
    let onPaywall = state.screen == .paywall
    var search = onPaywall ? state.search : state.manager.search
    if search.isEditing {
        switch key {
        case .character(let character): search.query.append(character)
        case .backspace:
            if search.query.isEmpty { search.isEditing = false } else { search.query.removeLast() }
        case .enter: search.isEditing = false
        case .escape: search = TableSearch()
        case .up, .down, .pageUp, .pageDown, .home, .end: return nil
        default: return []
        }
    } else {
        switch key {
        case .character("/"): search.isEditing = true
        case .escape where search.isFiltering: search = TableSearch()
        case .character("n") where onPaywall && search.isFiltering, .character("N") where onPaywall && search.isFiltering:
            stepMatch(&state, by: key == .character("n") ? 1 : -1)
            return []
        default: return nil
        }
    }
    if onPaywall { state.search = search } else { state.manager.search = search }
    filter(&state, onPaywall ? .paywall : .transactions)
    return []
}

/// Whether the search takes a key: what `searchKey` handles rather than lets through, for routing.
func searchTakes(_ key: Key, _ state: State) -> Bool {
    guard state.screen == .paywall || (state.screen == .transactions && state.manager.detail == nil) else { return false }
    let onPaywall = state.screen == .paywall
    let search = onPaywall ? state.search : state.manager.search
    if search.isEditing {
        switch key {
        case .up, .down, .pageUp, .pageDown, .home, .end: return false
        default: return true
        }
    }
    switch key {
    case .character("/"): return true
    case .escape: return search.isFiltering
    case .character("n"), .character("N"): return onPaywall && search.isFiltering
    default: return false
    }
}

/// n / N: the next or previous match, round from the last to the first.
private func stepMatch(_ state: inout State, by step: Int) {
    guard let matches = state.search.matches, !matches.isEmpty else { return }
    let at = state.search.position(of: state.selection)
    let current = at < matches.count && matches[at] == state.selection ? at : (step > 0 ? at - 1 : at)
    state.selection = matches[((current + step) % matches.count + matches.count) % matches.count]
}

/// Works out what the screen's search matches now (after typing, or a new load) and puts the
/// cursor on a match when it is on a row the filter hides.
func filter(_ state: inout State, _ screen: Screen) {
    switch screen {
    case .paywall:
        let query = searchFolded(state.search.query)
        guard !query.isEmpty else {
            (state.search.matches, state.search.lines) = (nil, [])
            return
        }
        let haystacks = state.tableMeasure.haystacks(for: state)
        let matches = haystacks.indices.filter { haystacks[$0].contains(query) }
        state.search.matches = matches
        let wanted = Set(matches)
        let all = state.tableMeasure.isCurrent(for: state) ? state.tableMeasure.lines : Layout.tableLines(state.products)
        var lines: [Layout.TableLine] = []
        var heading: Layout.TableLine?
        for line in all {
            switch line {
            case .heading: heading = line
            case .product(let index) where wanted.contains(index):
                if let pending = heading { lines.append(pending) }
                heading = nil
                lines.append(line)
            case .product: break
            }
        }
        state.search.lines = lines
        if !state.search.contains(state.selection), let first = matches.first { state.selection = first }
    case .transactions:
        let query = searchFolded(state.manager.search.query)
        guard !query.isEmpty, let transactions = state.manager.transactions else {
            state.manager.search.matches = nil
            selectTransaction(&state, state.manager.selection)
            return
        }
        state.manager.search.matches = transactions.indices.filter { index in
            let tx = transactions[index]
            return searchFolded([String(tx.id), tx.productID, name(of: tx.productID, in: state),
                                 state.manager.facts(of: tx, state).state.text].joined(separator: "\n")).contains(query)
        }
        if !state.manager.search.contains(state.manager.selection), let first = state.manager.search.matches?.first {
            state.manager.selection = first
        }
        selectTransaction(&state, state.manager.selection)
    case .settings:
        break
    }
}

/// What a product is found by: its name, id, kind, price and status, folded.
func productHaystacks(_ state: State) -> [String] {
    state.products.map { product in
        searchFolded([product.displayName, product.id, product.kindLabel, product.displayPrice, statusText(product, state)]
            .joined(separator: "\n"))
    }
}

// MARK: - Drawing

/// " 37/200 ", or with a filter " /coin · 2/7 ": where the cursor is among the rows shown, on the
/// rule above the table (`row`), near its right end.
func drawPosition(_ search: TableSearch, position: Int, count: Int, row: Int, _ state: State, into canvas: inout Canvas) {
    let shown = search.matches?.count ?? count
    var text = shown == 0 ? "0/0" : "\(min(position + 1, shown))/\(shown)"
    if search.isFiltering { text = "/\(search.query) \(state.glyphs.dot) " + text }
    let width = min(TerminalText.width(text), max(0, canvas.width / 2))
    canvas.put(" " + TerminalText.truncated(text, to: width) + " ", x: canvas.width - width - 4, y: row,
               style: search.isFiltering ? Style(bold: true, color: .yellow) : dim)
}

/// The open prompt on the bottom line, as less and vim have it: the text typed, a cursor, what Enter and Esc do.
func drawSearchPrompt(_ search: TableSearch, total: Int, row: Int, _ state: State, into canvas: inout Canvas) {
    canvas.clear(x: 0, y: row, width: canvas.width, height: 1)
    let used = canvas.put("/" + search.query, x: 1, y: row, limit: canvas.width / 2, style: bold)
    canvas.put(" ", x: 1 + used, y: row, style: Style(reverse: true))
    let count = search.matches.map { "\($0.count) of \(total) match" } ?? "\(total) rows"
    canvas.put("  \(count)  \(state.glyphs.enter) keep  esc clear  \(state.glyphs.up)\(state.glyphs.down) move", x: 2 + used, y: row,
               limit: max(0, canvas.width - used - 3), style: dim)
}
