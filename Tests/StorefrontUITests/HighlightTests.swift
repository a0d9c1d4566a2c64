import Foundation
import StoreEngine
import Testing
@testable import StorefrontUI

/// The selected row's look: its head (pointer, checkmark, name) in reverse video, `[ Buy ]` at
/// the right, the rest of the row as other rows have it; so a cursor move changes few cells.
@Suite("selected row highlight")
struct HighlightTests {
    /// The columns of `row` drawn in reverse video.
    func reversed(_ canvas: Canvas, row: Int) -> [Int] {
        (0..<canvas.width).filter { canvas[$0, row].style.reverse }
    }

    /// The row with the pointer on it.
    func selectedRow(_ canvas: Canvas, pointer: String = "▸") -> Int {
        canvas.lines.firstIndex { $0.hasPrefix(" " + pointer) || $0.hasPrefix(pointer) }!
    }

    @Test("100×30: the head through the name column is reversed; kind, price and status are not; [ Buy ] is green at the right")
    func paywallRow() throws {
        var state = loadedState(columns: 100, rows: 30, snapshot: snapshot(owned: [purchase(swiftShopping)]))
        state.selection = index(of: iPhoneRage)
        let canvas = render(state, timeZone: utc)
        let row = selectedRow(canvas)
        let line = canvas.lines[row]
        #expect(line.contains("iPhone Rage") && line.hasSuffix("[ Buy ]"), "\(line)")
        // Names start at 6 and the KIND column at 28: the bar is the name column and one space each side.
        #expect(canvas.lines[row - 7].distance(of: "KIND") == 28)
        #expect(reversed(canvas, row: row) == Array(0...26))
        let buy = line.distance(of: "[ Buy ]")
        for x in buy..<buy + 7 { #expect(canvas[x, row].style == Style(bold: true, color: .green)) }
        #expect(canvas[line.distance(of: "$0.99"), row].style == .plain)
        // No other row of the screen below the title bar has a reversed cell.
        for other in 1..<canvas.height where other != row { #expect(reversed(canvas, row: other).isEmpty, "row \(other)") }

        // An owned product's checkmark keeps its colour inside the bar.
        state.selection = index(of: swiftShopping)
        let owned = render(state, timeZone: utc)
        let ownedRow = selectedRow(owned)
        #expect(owned[3, ownedRow].text == "✓" && owned[3, ownedRow].style == Style(bold: true, reverse: true, color: .green))
        #expect(reversed(owned, row: ownedRow) == Array(0...26))
    }

    @Test("80×24 without UTF-8: the same bar (no KIND column), > as the pointer, [ Buy ] kept")
    func paywallRowASCII() {
        var loaded = snapshot()
        loaded.introEligibleGroups = ["premium"]
        var state = loadedState(columns: 80, rows: 24, snapshot: loaded)
        state.glyphs = .ascii
        state.selection = index(of: monthly)
        let canvas = render(state, timeZone: utc)
        let row = selectedRow(canvas, pointer: ">")
        #expect(canvas.lines[row].hasPrefix(" >[ ] Monthly Subscription  $4.99   1 week free") && canvas.lines[row].hasSuffix("[ Buy ]"),
                "\(canvas.lines[row])")
        #expect(reversed(canvas, row: row) == Array(0...26))
    }

    @Test("a cursor-down changes the two rows' heads, [ Buy ] and the position's digit, nothing else")
    func cursorMoveChangesLittle() {
        var state = loadedState(columns: 100, rows: 30)
        state.selection = index(of: iPhoneRage)
        let before = render(state, timeZone: utc)
        #expect(update(&state, .key(.down)).isEmpty)
        let after = render(state, timeZone: utc)
        var changed: [Int: [Int]] = [:]
        for y in 0..<after.height {
            for x in 0..<after.width where before[x, y] != after[x, y] { changed[y, default: []].append(x) }
        }
        let (from, to) = (selectedRow(before), selectedRow(after))
        #expect(to == from + 1)
        let rule = before.lines.firstIndex { $0.contains(" 5/9 ") }!
        #expect(Set(changed.keys) == [rule, from, to])
        #expect(changed[rule] == [before.lines[rule].distance(of: "5/9")], "only the digit of 5/9 → 6/9")
        let buy = before.lines[from].distance(of: "[ Buy ]")
        for row in [from, to] {
            #expect(changed[row]!.allSatisfy { $0 <= 26 || (buy..<buy + 7).contains($0) }, "row \(row): \(changed[row]!)")
        }
    }

    @Test("the Transaction Manager and the settings screen draw the same head highlight")
    func otherScreens() {
        var manager = loadedState(on: .transactions)
        send(&manager, .manager(.historyLoaded(history)), expecting: [])
        let list = render(manager, timeZone: utc)
        let row = selectedRow(list)
        // ID at 2, the product column from 14 to the PURCHASED column's gap.
        let purchased = list.lines[row - 1].distance(of: "PURCHASED")
        #expect(reversed(list, row: row) == Array(0...(purchased - 2)))
        #expect(list[purchased, row].style == .plain)

        var settings = loadedState(on: .settings)
        send(&settings, .settings(.loaded(settingRows(["askToBuy": "true"]), accounts: [Store.defaultAccount])), expecting: [])
        settings.settings.selection = 1
        let screen = render(settings, timeZone: utc)
        let line = selectedRow(screen)
        #expect(screen.lines[line].contains("askToBuy") && screen.lines[line].contains("‹ true ›"))
        let value = screen.lines[line].distance(of: "‹ true ›")
        #expect(reversed(screen, row: line) == Array(0...(value - 2)))
        #expect(screen[value + 2, line].style == Style(bold: true, color: .yellow), "the value stays bold, in its colour")
    }
}
