import Foundation

/// The size of the screen in columns and rows.
public struct Size: Equatable, Sendable {
    public var columns: Int
    public var rows: Int
    public init(columns: Int, rows: Int) {
        self.columns = columns
        self.rows = rows
    }

    public func fits(_ other: Size) -> Bool { columns >= other.columns && rows >= other.rows }
}

/// A key a screen program understands, decoded from the terminal by the backend.
public enum Key: Equatable, Sendable {
    case character(Character)
    case up, down, left, right
    case pageUp, pageDown, home, end
    case enter, escape, tab, backspace
    /// Ctrl-C, read as a key (the terminal is in raw mode) so quitting restores the screen.
    case interrupt
}

/// Input from a terminal, already decoded.
public enum TerminalEvent: Equatable, Sendable {
    case key(Key)
    case click(x: Int, y: Int)
    case resize(Size)
}

/// What a screen program needs from a terminal: ncurses in the product, a
/// recording test double in tests.
public protocol Terminal<Target>: AnyObject {
    /// What the screens drawn on it name as clickable.
    associatedtype Target: Hashable & Sendable

    var size: Size { get }
    /// Whether the terminal can show UTF-8 (else the ASCII glyphs are used).
    var supportsUnicode: Bool { get }
    /// Shows a canvas, sending only what changed since the last one.
    func draw(_ canvas: CellCanvas<Target>)
    /// The next input, waiting at most `timeoutMilliseconds`; nil when none came.
    func nextEvent(timeoutMilliseconds: Int) -> TerminalEvent?
    /// The same, but the wait also ends (nil) as soon as `wake` is readable: a result from the
    /// engine is drawn when it comes, not at the end of a wait for a key.
    func nextEvent(timeoutMilliseconds: Int, wake: Int32) -> TerminalEvent?
    /// Why input can no longer be read (reads fail with EIO, the terminal hung up), once it is
    /// so: the program then stops instead of waiting for keys that cannot come.
    var inputLost: String? { get }
}

extension Terminal {
    /// A terminal whose input never fails.
    public var inputLost: String? { nil }

    /// A terminal that cannot wait on a descriptor waits for a key alone.
    public func nextEvent(timeoutMilliseconds: Int, wake: Int32) -> TerminalEvent? {
        nextEvent(timeoutMilliseconds: timeoutMilliseconds)
    }
}

