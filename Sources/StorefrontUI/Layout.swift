import StoreEngine

/// Where each part of the paywall goes for a state's screen size: shared by
/// `render` (to draw) and `update` (to scroll and page by what is visible).
struct Layout {
    /// A line of the product table: a group heading or a product row.
    enum TableLine: Equatable {
        case heading(String)
        case product(Int)

        var isHeading: Bool { if case .heading = self { true } else { false } }

        var title: String? { if case .heading(let title) = self { title } else { nil } }
    }

    let size: Size
    let headerRows: Int
    /// The first row of the table body, under the column titles.
    let tableTop: Int
    let tableHeight: Int
    /// The row with the status text and the Restore Purchases button.
    let actionRow: Int
    let logTop: Int
    let logHeight: Int
    let footerRow: Int
    let lines: [TableLine]

    init(_ state: State) {
        size = state.size
        lines = state.search.isFiltering ? state.search.lines
            : state.tableMeasure.isCurrent(for: state) ? state.tableMeasure.lines : Self.tableLines(state.products)
        let paywall = state.paywall
        // Title bar, title, subtitle, features; the features line goes first when room is short.
        var header = 2
        if !paywall.subtitle.isEmpty { header += 1 }
        if !paywall.features.isEmpty, size.rows >= 28 { header += 1 }
        headerRows = header
        footerRow = size.rows - 1
        tableTop = headerRows + 2  // a rule and the column titles
        // The log keeps a few rows; the rows the table does not need are the log's too.
        let least = state.showLog ? (size.rows >= 28 ? 4 : size.rows >= 20 ? 3 : 0) : 0
        let shared = footerRow - 3 - tableTop  // table and log, between the action row's and the footer's rules
        logHeight = least > 0 ? max(least, shared - max(5, lines.count)) : 0  // 5: a load error and [ Retry ]
        logTop = footerRow - 1 - logHeight  // a rule above the footer when the log shows
        actionRow = (logHeight > 0 ? logTop - 1 : footerRow - 1) - 1
        tableHeight = max(0, actionRow - tableTop)
    }

    /// The heading over the line at `index`: what a scrolled table keeps on its top row.
    func heading(over index: Int) -> String? {
        guard lines.indices.contains(index) else { return nil }
        return lines[...index].last { $0.isHeading }?.title
    }

    /// Products under their group headings, in the catalog's display order.
    static func tableLines(_ products: [Product]) -> [TableLine] {
        var lines: [TableLine] = []
        lines.reserveCapacity(products.count + 8)
        var currentHeading: String?
        for (index, product) in products.enumerated() {
            let heading = switch product.type {
            case .autoRenewable: "\(product.subscription?.groupDisplayName ?? "Subscriptions") (subscription group)"
            case .nonConsumable: "Non-consumables"
            case .consumable: "Consumables"
            case .nonRenewable: "Non-renewing subscriptions"
            }
            if heading != currentHeading {
                lines.append(.heading(heading))
                currentHeading = heading
            }
            lines.append(.product(index))
        }
        return lines
    }
}
