/// A small model of an xterm screen, fed with the bytes a program writes to
/// its terminal: text, cursor addressing, erase, insert/delete, scrolling,
/// and the graphic rendition of each cell (compared, never drawn). Enough of
/// VT100/xterm for what ncurses emits for TERM=xterm-256color.
struct Screen {
    /// A cell's graphic rendition (SGR), kept so a moved highlight can be seen.
    struct Rendition: Hashable {
        var bold = false, dim = false, underline = false, reverse = false
        var foreground = -1, background = -1
    }

    let columns: Int
    let rows: Int
    private(set) var text: [[Character]]
    private(set) var renditions: [[Rendition]]
    private var row = 0, column = 0
    /// xterm's deferred wrap: a character written in the last column moves the cursor on only with the next one.
    private var wrapPending = false
    private var current = Rendition()
    private var scrollTop = 0, scrollBottom: Int
    private var saved = (row: 0, column: 0)
    private var lineDrawing = false
    private var lastPrinted: Character = " "
    /// Whether the program asked for application cursor keys (DECCKM): arrows are then sent as ESC O x.
    private(set) var applicationCursorKeys = false

    private enum ParseState { case ground, escape, csi, osc, oscEscape, charset, utf8 }
    private var state = ParseState.ground
    private var parameters: [UInt8] = []
    private var utf8: [UInt8] = []
    private var utf8Needed = 0

    init(columns: Int, rows: Int) {
        self.columns = columns
        self.rows = rows
        text = Array(repeating: Array(repeating: " ", count: columns), count: rows)
        renditions = Array(repeating: Array(repeating: Rendition(), count: columns), count: rows)
        scrollBottom = rows - 1
    }

    /// The text of a row, trailing blanks trimmed.
    func line(_ row: Int) -> String {
        var line = String(text[row])
        while line.last == " " { line.removeLast() }
        return line
    }

    var lines: [String] { (0..<rows).map(line) }

    /// The first row showing `needle`, and the column it starts at.
    func find(_ needle: String) -> (row: Int, column: Int)? {
        for row in 0..<rows {
            let line = String(text[row])
            if let range = line.range(of: needle) {
                return (row, line.distance(from: line.startIndex, to: range.lowerBound))
            }
        }
        return nil
    }

    func contains(_ needle: String) -> Bool { find(needle) != nil }

    func rendition(row: Int, column: Int) -> Rendition { renditions[row][column] }

    // MARK: - Feeding bytes

    mutating func feed(_ bytes: [UInt8]) {
        for byte in bytes { feed(byte) }
    }

    private mutating func feed(_ byte: UInt8) {
        switch state {
        case .ground:
            if byte == 0x1B { state = .escape; return }
            if byte < 0x20 || byte == 0x7F { control(byte); return }
            if byte < 0x80 { print(Character(Unicode.Scalar(byte))); return }
            utf8 = [byte]
            utf8Needed = byte >= 0xF0 ? 3 : byte >= 0xE0 ? 2 : 1
            state = .utf8
        case .utf8:
            utf8.append(byte)
            utf8Needed -= 1
            if utf8Needed == 0 {
                state = .ground
                print(Character(String(decoding: utf8, as: UTF8.self)))
            }
        case .escape:
            state = .ground
            switch byte {
            case UInt8(ascii: "["): parameters = []; state = .csi
            case UInt8(ascii: "]"): state = .osc
            case UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "*"), UInt8(ascii: "+"):
                parameters = [byte]; state = .charset
            case UInt8(ascii: "7"): saved = (row, column)
            case UInt8(ascii: "8"): (row, column) = saved; wrapPending = false
            case UInt8(ascii: "D"): lineFeed()
            case UInt8(ascii: "E"): column = 0; lineFeed()
            case UInt8(ascii: "M"): reverseIndex()
            case UInt8(ascii: "c"): self = Screen(columns: columns, rows: rows)
            default: break  // ESC = / ESC > (keypad modes) and the like change nothing on screen
            }
        case .charset:
            if parameters.first == UInt8(ascii: "(") { lineDrawing = byte == UInt8(ascii: "0") }
            state = .ground
        case .osc:
            if byte == 0x07 { state = .ground } else if byte == 0x1B { state = .oscEscape }
        case .oscEscape:
            state = byte == UInt8(ascii: "\\") ? .ground : .osc
        case .csi:
            if byte >= 0x40 && byte <= 0x7E {
                state = .ground
                csi(final: byte)
            } else {
                parameters.append(byte)
            }
        }
    }

    private mutating func control(_ byte: UInt8) {
        switch byte {
        case 0x0D: column = 0; wrapPending = false
        case 0x0A, 0x0B, 0x0C: lineFeed()
        case 0x08: if column > 0 { column -= 1 }; wrapPending = false
        case 0x09: column = min(columns - 1, (column / 8 + 1) * 8); wrapPending = false
        case 0x0E: lineDrawing = true
        case 0x0F: lineDrawing = false
        default: break
        }
    }

    private static let decGraphics: [Character: Character] = [
        "q": "─", "x": "│", "l": "┌", "k": "┐", "m": "└", "j": "┘", "t": "├", "u": "┤",
        "v": "┴", "w": "┬", "n": "┼", "a": "▒", "`": "◆", "~": "·", "0": "█",
    ]

    private mutating func print(_ character: Character) {
        var character = character
        if lineDrawing, let mapped = Self.decGraphics[character] { character = mapped }
        if wrapPending {
            column = 0
            lineFeed()
            wrapPending = false
        }
        text[row][column] = character
        renditions[row][column] = current
        lastPrinted = character
        if column == columns - 1 { wrapPending = true } else { column += 1 }
    }

    private mutating func lineFeed() {
        wrapPending = false
        if row == scrollBottom { scrollUp(1) } else if row < rows - 1 { row += 1 }
    }

    private mutating func reverseIndex() {
        wrapPending = false
        if row == scrollTop { scrollDown(1) } else if row > 0 { row -= 1 }
    }

    private mutating func scrollUp(_ count: Int, from top: Int? = nil) {
        let top = top ?? scrollTop
        for _ in 0..<min(count, scrollBottom - top + 1) {
            text.remove(at: top)
            renditions.remove(at: top)
            text.insert(Array(repeating: " ", count: columns), at: scrollBottom)
            renditions.insert(Array(repeating: blankRendition, count: columns), at: scrollBottom)
        }
    }

    private mutating func scrollDown(_ count: Int, from top: Int? = nil) {
        let top = top ?? scrollTop
        for _ in 0..<min(count, scrollBottom - top + 1) {
            text.remove(at: scrollBottom)
            renditions.remove(at: scrollBottom)
            text.insert(Array(repeating: " ", count: columns), at: top)
            renditions.insert(Array(repeating: blankRendition, count: columns), at: top)
        }
    }

    /// Erased cells take the current background (xterm's back-colour erase), nothing else.
    private var blankRendition: Rendition { Rendition(background: current.background) }

    private mutating func erase(row: Int, from start: Int, to end: Int) {
        guard start < end else { return }
        for column in max(0, start)..<min(columns, end) {
            text[row][column] = " "
            renditions[row][column] = blankRendition
        }
    }

    // MARK: - Control sequences

    private mutating func csi(final: UInt8) {
        let isPrivate = parameters.first.map { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: ">") || $0 == UInt8(ascii: "=") } ?? false
        let numbers = String(decoding: parameters.filter { $0 != UInt8(ascii: "?") && $0 != UInt8(ascii: ">") && $0 != UInt8(ascii: "=") },
                             as: UTF8.self)
            .split(separator: ";", omittingEmptySubsequences: false).map { Int($0) }
        func number(_ index: Int, default value: Int = 1) -> Int {
            guard index < numbers.count, let number = numbers[index], number != 0 else { return value }
            return number
        }
        if isPrivate {
            if final == UInt8(ascii: "h") || final == UInt8(ascii: "l") {
                let on = final == UInt8(ascii: "h")
                for mode in numbers.compactMap({ $0 }) {
                    if mode == 1 { applicationCursorKeys = on }
                    if mode == 1049 || mode == 47 || mode == 1047 {  // alternate screen: starts blank
                        for row in 0..<rows { erase(row: row, from: 0, to: columns) }
                    }
                }
            }
            return
        }
        if final != UInt8(ascii: "b") { wrapPending = false }
        switch final {
        case UInt8(ascii: "H"), UInt8(ascii: "f"):
            row = min(rows - 1, number(0) - 1)
            column = min(columns - 1, number(1) - 1)
        case UInt8(ascii: "A"): row = max(0, row - number(0))
        case UInt8(ascii: "B"), UInt8(ascii: "e"): row = min(rows - 1, row + number(0))
        case UInt8(ascii: "C"), UInt8(ascii: "a"): column = min(columns - 1, column + number(0))
        case UInt8(ascii: "D"): column = max(0, column - number(0))
        case UInt8(ascii: "E"): row = min(rows - 1, row + number(0)); column = 0
        case UInt8(ascii: "F"): row = max(0, row - number(0)); column = 0
        case UInt8(ascii: "G"), UInt8(ascii: "`"): column = min(columns - 1, number(0) - 1)
        case UInt8(ascii: "d"): row = min(rows - 1, number(0) - 1)
        case UInt8(ascii: "K"):
            switch number(0, default: 0) {
            case 0: erase(row: row, from: column, to: columns)
            case 1: erase(row: row, from: 0, to: column + 1)
            default: erase(row: row, from: 0, to: columns)
            }
        case UInt8(ascii: "J"):
            switch number(0, default: 0) {
            case 0:
                erase(row: row, from: column, to: columns)
                for below in (row + 1)..<rows { erase(row: below, from: 0, to: columns) }
            case 1:
                for above in 0..<row { erase(row: above, from: 0, to: columns) }
                erase(row: row, from: 0, to: column + 1)
            default:
                for any in 0..<rows { erase(row: any, from: 0, to: columns) }
            }
        case UInt8(ascii: "X"): erase(row: row, from: column, to: column + number(0))
        case UInt8(ascii: "@"):
            let count = min(number(0), columns - column)
            text[row].insert(contentsOf: Array(repeating: " ", count: count), at: column)
            renditions[row].insert(contentsOf: Array(repeating: blankRendition, count: count), at: column)
            text[row].removeLast(count)
            renditions[row].removeLast(count)
        case UInt8(ascii: "P"):
            let count = min(number(0), columns - column)
            text[row].removeSubrange(column..<(column + count))
            renditions[row].removeSubrange(column..<(column + count))
            text[row] += Array(repeating: " ", count: count)
            renditions[row] += Array(repeating: blankRendition, count: count)
        case UInt8(ascii: "L"): if row >= scrollTop && row <= scrollBottom { scrollDown(number(0), from: row) }
        case UInt8(ascii: "M"): if row >= scrollTop && row <= scrollBottom { scrollUp(number(0), from: row) }
        case UInt8(ascii: "S"): scrollUp(number(0))
        case UInt8(ascii: "T"): scrollDown(number(0))
        case UInt8(ascii: "b"): for _ in 0..<number(0) { print(lastPrinted) }
        case UInt8(ascii: "r"):
            scrollTop = min(rows - 1, number(0) - 1)
            scrollBottom = min(rows - 1, number(1, default: rows) - 1)
            (row, column) = (0, 0)
        case UInt8(ascii: "s"): saved = (row, column)
        case UInt8(ascii: "u"): (row, column) = saved
        case UInt8(ascii: "m"): selectRendition(numbers.map { $0 ?? 0 })
        default: break  // modes, reports, window operations: nothing on screen
        }
    }

    private mutating func selectRendition(_ codes: [Int]) {
        var codes = codes.isEmpty ? [0] : codes
        while !codes.isEmpty {
            let code = codes.removeFirst()
            switch code {
            case 0: current = Rendition()
            case 1: current.bold = true
            case 2: current.dim = true
            case 4: current.underline = true
            case 7: current.reverse = true
            case 22: current.bold = false; current.dim = false
            case 24: current.underline = false
            case 27: current.reverse = false
            case 30...37: current.foreground = code - 30
            case 39: current.foreground = -1
            case 40...47: current.background = code - 40
            case 49: current.background = -1
            case 90...97: current.foreground = code - 90 + 8
            case 100...107: current.background = code - 100 + 8
            case 38, 48:
                // 38;5;n or 38;2;r;g;b
                var value = -1
                if codes.first == 5, codes.count >= 2 { value = codes[1]; codes.removeFirst(2) }
                else if codes.first == 2, codes.count >= 4 { value = (codes[1] << 16) | (codes[2] << 8) | codes[3]; codes.removeFirst(4) }
                if code == 38 { current.foreground = value } else { current.background = value }
            default: break
            }
        }
    }
}
