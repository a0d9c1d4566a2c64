/// The symbols the paywall draws, with ASCII stand-ins for terminals whose
/// locale is not UTF-8.
public struct Glyphs: Equatable, Sendable {
    /// The owned mark, three columns wide: " ✓ " or "[x]".
    public var check: String
    /// The not-owned mark, three columns wide.
    public var noCheck: String
    public var pointer: String
    public var star: String
    public var horizontal: String
    public var vertical: String
    public var corners: (topLeft: String, topRight: String, bottomLeft: String, bottomRight: String)
    public var spinner: [String]
    public var dot: String
    public var up: String
    public var down: String
    /// Around a value that ← and → change: "‹ true ›".
    public var left: String
    public var right: String
    public var enter: String
    public var warning: String
    /// From one value to another: "$4.99 → $9.99".
    public var arrow: String
    /// Before REC in the title bar while `--record` writes.
    public var recordMark: String

    public static let unicode = Glyphs(
        check: " ✓ ", noCheck: "   ", pointer: "▸", star: "★", horizontal: "─", vertical: "│",
        corners: ("┌", "┐", "└", "┘"), spinner: ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"],
        dot: "·", up: "↑", down: "↓", left: "‹", right: "›", enter: "⏎", warning: "⚠", arrow: "→", recordMark: "●")

    public static let ascii = Glyphs(
        check: "[x]", noCheck: "[ ]", pointer: ">", star: "*", horizontal: "-", vertical: "|",
        corners: ("+", "+", "+", "+"), spinner: ["|", "/", "-", "\\"],
        dot: "-", up: "^", down: "v", left: "<", right: ">", enter: "Enter", warning: "!", arrow: "->", recordMark: "*")

    public static func == (a: Glyphs, b: Glyphs) -> Bool {
        a.check == b.check && a.spinner == b.spinner && a.horizontal == b.horizontal
    }
}
