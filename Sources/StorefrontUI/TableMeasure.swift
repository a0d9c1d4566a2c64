import Dispatch
import Foundation
import StoreEngine
import Synchronization

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
        let width: @Sendable (String) -> Int = { text in TerminalText.width(ascii ? TerminalText.ascii(text) : text) }
        guard !products.isEmpty else { return }
        // One pass (four maps copied each of 10,000 products four times), a slice on each core: each
        // product's status is its standing in words, ~2.5 µs a product, a fifth of the first paint's
        // CPU on 10,000 products with 100,000 transactions.
        let slices = products.count < 2_000 ? 1 : min(4, ProcessInfo.processInfo.activeProcessorCount)
        let widest = Mutex([Widest](repeating: Widest(), count: slices))
        DispatchQueue.concurrentPerform(iterations: slices) { slice in
            var found = Widest()
            for product in products[products.count * slice / slices ..< products.count * (slice + 1) / slices] {
                found.kind = max(found.kind, width(product.kindLabel))
                found.price = max(found.price, width(product.displayPrice))
                found.name = max(found.name, width(product.displayName))
                found.status = max(found.status, width(statusText(product, state)))
            }
            widest.withLock { $0[slice] = found }
        }
        let all = widest.withLock { $0 }
        (kind, price, name, status) = (all.map(\.kind).max(), all.map(\.price).max(), all.map(\.name).max(),
                                       all.map(\.status).max())
    }

    private struct Widest { var kind = 0, price = 0, name = 0, status = 0 }
}
