import StoreEngine

/// What the product table's shape takes a pass over every product to know: its
/// lines under group headings and the widest text of each column. Worked out
/// when a snapshot arrives, so a key press on a 10,000-product paywall does not
/// go over all of them again (it did, three times, in `update` and `render`).
///
/// A cache, not part of the state's value: any two are equal, and it is used only
/// while it was made from the state's snapshot and glyphs; otherwise the table is
/// measured afresh, so a state changed by hand draws exactly as before.
public struct TableMeasure: Equatable, Sendable {
    private var snapshot: StoreSnapshot?
    private var glyphs: Glyphs?
    private(set) var lines: [Layout.TableLine] = []
    private(set) var widths = ContentWidths()
    /// What each product is found by (/), folded (see `productHaystacks`): made at the first search.
    private var haystacks: [String]?

    public init() {}

    init(_ state: State) {
        snapshot = state.snapshot
        glyphs = state.glyphs
        lines = Layout.tableLines(state.products)
        widths = ContentWidths(state)
    }

    /// What each product of `state` is found by, made once per snapshot (a paywall never searched pays nothing).
    mutating func haystacks(for state: State) -> [String] {
        guard isCurrent(for: state) else { return productHaystacks(state) }
        if let haystacks { return haystacks }
        let made = productHaystacks(state)
        haystacks = made
        return made
    }

    /// Whether this was made from `state`'s snapshot and glyphs. Cheap when it was:
    /// the arrays and dictionaries compared share their storage.
    func isCurrent(for state: State) -> Bool {
        snapshot != nil && glyphs == state.glyphs && snapshot == state.snapshot
    }

    public static func == (_: TableMeasure, _: TableMeasure) -> Bool { true }
}

/// The widest text of each column over every product, in terminal columns; nil when there are no products.
struct ContentWidths: Sendable {
    var kind: Int?
    var price: Int?
    var name: Int?
    var status: Int?

    init() {}

    init(_ state: State) {
        let products = state.products
        // Without UTF-8 the texts are drawn transliterated ("39,99 EUR"), and measured so.
        let ascii = state.glyphs == .ascii
        let width = { (text: String) in TerminalText.width(ascii ? TerminalText.ascii(text) : text) }
        guard !products.isEmpty else { return }
        // One pass (four maps copied each of 10,000 products four times).
        var widest = (kind: 0, price: 0, name: 0, status: 0)
        for product in products {
            widest.kind = max(widest.kind, width(product.kindLabel))
            widest.price = max(widest.price, width(product.displayPrice))
            widest.name = max(widest.name, width(product.displayName))
            widest.status = max(widest.status, width(statusText(product, state)))
        }
        (kind, price, name, status) = (widest.kind, widest.price, widest.name, widest.status)
    }
}
