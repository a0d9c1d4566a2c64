/// How a cell looks. Colours are a hint: a monochrome terminal shows the
/// attributes only, and every screen stays readable that way.
public struct Style: Hashable, Sendable {
    public var bold = false
    public var reverse = false
    public var dim = false
    public var underline = false
    public var color: Color?

    public enum Color: Sendable, Hashable, CaseIterable {
        case green, yellow, red, cyan
    }

    public init(bold: Bool = false, reverse: Bool = false, dim: Bool = false, underline: Bool = false,
                color: Color? = nil) {
        (self.bold, self.reverse, self.dim, self.underline, self.color) = (bold, reverse, dim, underline, color)
    }

    public static let plain = Style()
}

/// One terminal cell: a character (one or two columns wide) and its style.
/// The cell right of a wide character holds `""` and is drawn by it.
public struct Cell: Hashable, Sendable {
    public var text: String
    public var style: Style

    public static let blank = Cell(text: " ", style: .plain)
}

/// A rectangle of cells a screen is rendered into, with the areas a click can press
/// (`Target` says what each is): pure data, compared whole in tests and copied cell by
/// cell to the terminal by a backend.
public struct CellCanvas<Target: Hashable & Sendable>: Equatable, Sendable {
    public let width: Int
    public let height: Int
    /// Replace every non-ASCII character with an ASCII stand-in (a terminal without UTF-8).
    public let asciiOnly: Bool
    public private(set) var cells: [Cell]
    /// Clickable areas, in drawing order (later ones on top).
    public private(set) var hotspots: [Hotspot] = []

    public struct Hotspot: Equatable, Sendable {
        public var x: Int
        public var y: Int
        public var width: Int
        public var target: Target
    }

    public init(width: Int, height: Int, asciiOnly: Bool = false) {
        self.width = max(0, width)
        self.height = max(0, height)
        self.asciiOnly = asciiOnly
        self.cells = Array(repeating: .blank, count: self.width * self.height)
    }

    public subscript(x: Int, y: Int) -> Cell {
        cells[y * width + x]
    }

    /// Writes `text` at (x, y), at most `limit` columns wide (to the right edge
    /// by default). Control characters are shown escaped; wide characters take
    /// two cells and are never split. A text cut short ends with "…" in its last
    /// column, so a cut never reads as the whole text. Returns the columns written.
    @discardableResult
    public mutating func put(_ text: String, x: Int, y: Int, limit: Int? = nil, style: Style = .plain) -> Int {
        guard y >= 0, y < height, x < width else { return 0 }
        let end = min(width, x + (limit ?? width))
        var column = x
        var last: (column: Int, columns: Int)?
        let safe = TerminalText.sanitized(text)
        for character in asciiOnly ? TerminalText.ascii(safe) : safe {
            let glyph = String(character)
            let columns = TerminalText.width(of: character)
            if columns == 0 {
                // A combining mark or joiner belongs to the character before it.
                if column > x, column - 1 >= 0, column - 1 < width {
                    cells[y * width + column - 1].text += glyph
                }
                continue
            }
            if column + columns > end {
                // The last character written gives its place to the ellipsis (a wide one, both cells).
                if let last, last.column >= 0 {
                    cells[y * width + last.column] = Cell(text: asciiOnly ? "~" : "…", style: style)
                    if last.columns == 2 { cells[y * width + last.column + 1] = Cell(text: " ", style: style) }
                }
                break
            }
            if column >= 0 {
                cells[y * width + column] = Cell(text: glyph, style: style)
                if columns == 2 { cells[y * width + column + 1] = Cell(text: "", style: style) }
            }
            last = (column, columns)
            column += columns
        }
        return column - x
    }

    /// Sets the style of a run of cells without changing their text (a highlighted row).
    public mutating func paint(x: Int, y: Int, width span: Int, style: Style) {
        guard y >= 0, y < height else { return }
        for column in max(0, x)..<min(width, x + span) {
            cells[y * width + column].style = style
        }
    }

    /// Clears a rectangle to blanks.
    public mutating func clear(x: Int, y: Int, width span: Int, height rows: Int) {
        for row in max(0, y)..<min(height, y + rows) {
            for column in max(0, x)..<min(width, x + span) {
                cells[row * width + column] = .blank
            }
        }
    }

    /// Marks a clickable area.
    public mutating func addHotspot(x: Int, y: Int, width span: Int, target: Target) {
        hotspots.append(Hotspot(x: x, y: y, width: span, target: target))
    }

    /// What a click at (x, y) presses: the topmost hotspot there.
    public func target(atX x: Int, y: Int) -> Target? {
        hotspots.last { $0.y == y && x >= $0.x && x < $0.x + $0.width }?.target
    }

    /// The screen as lines of text, trailing spaces trimmed: what tests compare.
    public var lines: [String] {
        (0..<height).map { row in
            var line = ""
            for column in 0..<width { line += cells[row * width + column].text }
            while line.last == " " { line.removeLast() }
            return line
        }
    }
}
