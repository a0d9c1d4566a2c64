extension String {
    /// The text with zeros before it, to `width` characters (`U+0007`, mode `0600`).
    package func leftPadded(to width: Int) -> String {
        String(repeating: "0", count: max(0, width - count)) + self
    }
}
