import Foundation
import StoreEngine
import TerminalCore
import Testing
@testable import StorefrontUI

// The guide's pictures of the paywall (docs/pictures/*.svg) are the paywall's own render: each is
// a state made by `update`, drawn by `render` into cells, and each cell written as SVG with its
// style. A screen that changes changes its picture, and this suite fails until `make docs` writes
// it again:
//
//     make docs      (STOREFRONT_WRITE_DOCS=1 swift test --skip-build --filter 'DocsTests|DocsPictureTests')

/// The size every picture is drawn at: wide enough for every column, short enough for a page.
private let pictureSize = Size(columns: 100, rows: 30)

/// Compares the picture of `state` with docs/pictures/`name`.svg (or writes it under `make docs`).
private func assertPicture(_ name: String, _ state: State, sourceLocation: SourceLocation = #_sourceLocation) throws {
    let svg = DocsPicture.svg(render(state, timeZone: utc), title: name)
    if let stale = try Docs.check(generated: svg, at: "docs/pictures/\(name).svg") {
        Issue.record(Comment(rawValue: stale), sourceLocation: sourceLocation)
    }
}

/// The demo store as the golden screens have it: something owned of each kind and a subscription renewing.
private func demoSnapshot() -> StoreSnapshot {
    let owned = [purchase(swiftShopping),
                 purchase(monthly, id: 2_000_000_002, expires: fixedDate.addingTimeInterval(86_400 * 30))]
    var snapshot = snapshot(owned: owned, balances: [coins: 300])
    snapshot.storeTime = fixedDate.addingTimeInterval(50_600)
    return snapshot
}

private func demoPaywall() -> State {
    var state = loadedState(columns: pictureSize.columns, rows: pictureSize.rows, snapshot: demoSnapshot())
    send(&state, .paywall(.select(index(of: iPhoneRage))), expecting: [])
    return state
}

@Suite("docs pictures")
struct DocsPictureTests {
    @Test("the paywall, and the App Store sheet over it")
    func paywallAndSheet() throws {
        var state = demoPaywall()
        try assertPicture("paywall", state)
        #expect(update(&state, .key(.enter)).isEmpty)
        #expect(state.sheet == .confirm(productID: iPhoneRage))
        try assertPicture("purchase-sheet", state)
    }

    @Test("the help sheet, the settings screen and the Transaction Manager's list")
    func otherScreens() throws {
        var help = demoPaywall()
        send(&help, .key(.character("?")), expecting: [])
        #expect(help.sheet == .help)
        try assertPicture("help", help)

        var settings = loadedState(on: .settings, columns: pictureSize.columns, rows: pictureSize.rows, snapshot: demoSnapshot())
        send(&settings, .settings(.loaded(settingRows(["askToBuy": "true"]), accounts: [Store.defaultAccount, "second@local"])), expecting: [])
        try assertPicture("settings", settings)

        var manager = loadedState(on: .transactions, columns: pictureSize.columns, rows: pictureSize.rows, snapshot: demoSnapshot())
        send(&manager, .manager(.historyLoaded(history)), expecting: [])
        try assertPicture("transaction-manager", manager)
    }

    @Test("the Transaction Manager's detail pane with a subscription's timeline, on a real store")
    func timeline() async throws {
        try await withDemoStore { store, clock in
            let day = { (days: Double) in fixedDate.addingTimeInterval(days * 86_400) }
            _ = try await store.app.buy(monthly)  // a free week
            clock.set(day(39))
            _ = try await store.appStore.processRenewals()
            try await store.testSession.setSetting("billingIssues", to: "true")
            try await store.testSession.setSetting("gracePeriod", to: "true")
            clock.set(day(73))
            _ = try await store.appStore.processRenewals()
            clock.set(day(87))
            _ = try await store.appStore.processRenewals()
            try await store.testSession.setSetting("billingIssues", to: "false")
            _ = try await store.appStore.processRenewals()
            _ = try await store.app.buy(yearly)  // an upgrade
            _ = try await store.app.buy(monthly)  // a downgrade at the renewal

            let state = try await managerState(store, columns: pictureSize.columns, rows: pictureSize.rows)
            #expect(render(state, timeZone: utc).lines.contains { $0.contains("Subscription timeline") })
            try assertPicture("timeline", state)
        }
    }

    @Test("a cell's style becomes the picture's: reverse swaps the colours, bold and colour carry over, markup is escaped")
    func svgOfCells() {
        var canvas = CellCanvas<Int>(width: 6, height: 1)
        canvas.put("<a&", x: 0, y: 0, style: Style(reverse: true))
        canvas.put("ok", x: 4, y: 0, style: Style(bold: true, color: .green))
        let svg = DocsPicture.svg(canvas, title: "t")
        #expect(svg.contains("&lt;a&amp;") && !svg.contains("<a&"))
        #expect(svg.contains("<rect x=\"0\" y=\"\(DocsPicture.padding)\" width=\"\(3 * DocsPicture.cellWidth)\""), "reverse: a filled run")
        #expect(svg.contains("font-weight=\"bold\"") && svg.contains(DocsPicture.palette(.green)))
        #expect(svg.hasPrefix("<svg ") && svg.hasSuffix("</svg>\n"))
    }
}

/// A cell canvas as an SVG picture: one `<text>` per run of cells in one style, each stretched to
/// exactly its columns, so the grid holds whatever monospace font the reader's browser picks.
enum DocsPicture {
    static let cellWidth = 9
    static let lineHeight = 18
    static let padding = 8
    static let background = "#1d1f21", foreground = "#d8d8d8"

    static func palette(_ color: Style.Color) -> String {
        switch color {
        case .green: "#5fb35f"
        case .yellow: "#d7ba5a"
        case .red: "#e06c60"
        case .cyan: "#56b6c2"
        }
    }

    static func svg<Target>(_ canvas: CellCanvas<Target>, title: String) -> String {
        let width = canvas.width * cellWidth, height = canvas.height * lineHeight + 2 * padding
        var out = ["<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(width)\" height=\"\(height)\" viewBox=\"0 0 \(width) \(height)\" "
                   + "font-family=\"DejaVu Sans Mono, Menlo, Consolas, monospace\" font-size=\"15\">",
                   "<title>\(escaped(title))</title>",
                   "<rect width=\"100%\" height=\"100%\" fill=\"\(background)\"/>"]
        for row in 0..<canvas.height {
            var column = 0
            while column < canvas.width {
                let style = canvas[column, row].style
                var end = column
                var text = ""
                while end < canvas.width, canvas[end, row].style == style {
                    text += canvas[end, row].text
                    end += 1
                }
                out += run(text, x: column, columns: end - column, row: row, style: style)
                column = end
            }
        }
        out.append("</svg>")
        return out.joined(separator: "\n") + "\n"
    }

    /// One run of cells: a filled rectangle when reversed, then its text unless it is blank.
    private static func run(_ text: String, x: Int, columns: Int, row: Int, style: Style) -> [String] {
        var lines: [String] = []
        let ink = style.color.map(palette) ?? foreground
        let top = padding + row * lineHeight
        if style.reverse {
            lines.append("<rect x=\"\(x * cellWidth)\" y=\"\(top)\" width=\"\(columns * cellWidth)\" height=\"\(lineHeight)\" fill=\"\(ink)\"/>")
        }
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else { return lines }
        // Leading and trailing blanks are left out; the run's text starts at its first visible column.
        let lead = text.prefix { $0 == " " }.count
        var shown = String(text.dropFirst(lead))
        while shown.last == " " { shown.removeLast() }
        let span = TerminalText.width(shown)
        var attributes = "x=\"\((x + lead) * cellWidth)\" y=\"\(top + lineHeight - 5)\" textLength=\"\(span * cellWidth)\" "
            + "lengthAdjust=\"spacingAndGlyphs\" fill=\"\(style.reverse ? background : ink)\""
        if style.bold { attributes += " font-weight=\"bold\"" }
        if style.dim { attributes += " opacity=\"0.6\"" }
        if style.underline { attributes += " text-decoration=\"underline\"" }
        lines.append("<text \(attributes) xml:space=\"preserve\">\(escaped(shown))</text>")
        return lines
    }

    private static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;")
    }
}
