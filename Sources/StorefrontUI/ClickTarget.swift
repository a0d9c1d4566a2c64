import TerminalCore

/// Something on screen a mouse click can press.
public enum ClickTarget: Hashable, Sendable {
    case product(Int)
    case buy(Int)
    case restore
    case confirm
    case cancel
    /// A tab in the title bar.
    case screen(Screen)
    /// A row of the Transaction Manager or the settings screen.
    case row(Int)
    /// Load the store again after a failed load.
    case retry
    /// A sheet's button beside Confirm and Cancel: a click presses its key.
    case sheetKey(Character)
}

/// The paywall's canvas: cells, and hotspots that name what a click presses.
public typealias Canvas = CellCanvas<ClickTarget>

extension Size {
    /// Below this the paywall asks for more room instead of drawing a broken table.
    public static let minimum = Size(columns: 60, rows: 16)
}
