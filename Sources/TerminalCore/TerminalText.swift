/// Text from a catalog or a store file is data: before it reaches a terminal,
/// control characters and escape sequences are made visible and harmless, and
/// widths are counted in terminal columns, not characters.
public enum TerminalText {
    /// The text with every control character, escape sequence introducer and
    /// bidirectional override replaced by a visible escape (`\e`, `\n`, `\u{202E}`),
    /// so it prints on one line and cannot move the cursor, recolour or reorder the screen.
    public static func sanitized(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isUnsafe) else { return text }
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            guard isUnsafe(scalar) else { out.append(scalar); continue }
            let escape: String
            switch scalar {
            case "\u{1B}": escape = "\\e"
            case "\n": escape = "\\n"
            case "\r": escape = "\\r"
            case "\t": escape = "\\t"
            default: escape = "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
            }
            out.append(contentsOf: escape.unicodeScalars)
        }
        return String(out)
    }

    /// Control characters (C0, DEL, C1) and the bidirectional controls that can
    /// make a terminal show text in another order than it is stored.
    static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00..<0x20, 0x7F...0x9F: true
        case 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069, 0x061C: true
        // Invisible format marks a terminal draws in no column (or in one): a byte-order mark, a
        // word joiner. Shown as escapes, so each redraw puts exactly what was measured.
        case 0xFEFF, 0x2060...0x2064, 0xFFF9...0xFFFB: true
        default: false
        }
    }

    /// Columns a scalar takes in a terminal: 0 for combining marks and
    /// zero-width joiners, 2 for East Asian wide and emoji, 1 otherwise.
    public static func width(of scalar: Unicode.Scalar) -> Int {
        let value = scalar.value
        // Below U+0300 nothing is wide or a combining mark: skip the property lookup.
        if value < 0x0300 { return 1 }
        switch value {
        case 0x0300...0x036F, 0x200B...0x200D, 0xFE00...0xFE0F, 0x20D0...0x20FF, 0x1AB0...0x1AFF, 0x1DC0...0x1DFF:
            return 0
        case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF,
             0xA000...0xA4CF, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60,
             0xFFE0...0xFFE6, 0x1F300...0x1F64F, 0x1F900...0x1F9FF, 0x1F680...0x1F6FF,
             0x1FA70...0x1FAFF, 0x1F7E0...0x1F7EB, 0x1F1E6...0x1F1FF, 0x1F004, 0x1F0CF, 0x1F18E, 0x1F191...0x1F19A,
             0x231A...0x231B, 0x23E9...0x23EC, 0x23F0, 0x23F3, 0x25FD...0x25FE, 0x2614...0x2615, 0x2648...0x2653,
             0x267F, 0x2693, 0x26A1, 0x26AA...0x26AB, 0x26BD...0x26BE, 0x26C4...0x26C5, 0x26CE, 0x26D4, 0x26EA,
             0x26F2...0x26F3, 0x26F5, 0x26FA, 0x26FD, 0x2705, 0x270A...0x270B, 0x2728, 0x274C, 0x274E,
             0x2753...0x2755, 0x2757, 0x2795...0x2797, 0x27B0, 0x27BF, 0x2B1B...0x2B1C, 0x2B50, 0x2B55,
             0x20000...0x2FFFD, 0x30000...0x3FFFD:
            return 2
        default:
            return scalar.properties.generalCategory == .nonspacingMark ? 0 : 1
        }
    }

    /// Columns a character (a grapheme cluster) takes: its first scalar's width, two for an emoji
    /// sequence (joined with U+200D, or with the emoji presentation selector U+FE0F), never more than two.
    public static func width(of character: Character) -> Int {
        let scalars = character.unicodeScalars
        guard let first = scalars.first else { return 0 }
        var columns = width(of: first)
        if scalars.count > 1 {
            if scalars.contains(where: { $0.value == 0x200D || $0.value == 0xFE0F }) { columns = 2 }
            if columns == 0 { columns = scalars.dropFirst().map { width(of: $0) }.max() ?? 0 }
        }
        return min(columns, 2)
    }

    /// Columns a string takes in a terminal, as the canvas puts it: character by character.
    public static func width(_ text: String) -> Int {
        // ASCII, most of any catalog: one column a byte. The paywall measures every product's texts.
        if text.utf8.allSatisfy({ $0 < 0x80 }) { return text.utf8.count }
        return text.reduce(0) { $0 + width(of: $1) }
    }

    /// The text cut to at most `columns` columns, ending in "…" when cut.
    /// The text is made safe first (``sanitized(_:)``), so a name is cut after its escapes are
    /// made visible and never spills into the next column.
    public static func truncated(_ text: String, to columns: Int) -> String {
        guard columns > 0 else { return "" }
        let text = sanitized(text)
        guard width(text) > columns else { return text }
        var out = ""
        var used = 0
        for character in text {
            let w = width(of: character)
            if used + w > columns - 1 { break }
            out.append(character)
            used += w
        }
        return out + "…"
    }

    /// The text for a terminal without UTF-8: letters lose their accents (`Münzen` → `Munzen`),
    /// currency signs become their codes (`€` → `EUR`), typographic marks their ASCII kin, and
    /// whatever has none becomes `?`.
    public static func ascii(_ text: String) -> String {
        if text.utf8.allSatisfy({ $0 < 0x80 }) { return text }
        var out = ""
        for character in text {
            if character.isASCII {
                out.append(character)
            } else if let known = asciiStandIns[character] {
                out += known
            } else {
                let bare = String(character).decomposedStringWithCanonicalMapping.unicodeScalars.filter(\.isASCII)
                out += bare.isEmpty ? "?" : String(String.UnicodeScalarView(bare))
            }
        }
        return out
    }

    private static let asciiStandIns: [Character: String] = [
        "€": "EUR", "£": "GBP", "¥": "JPY", "₩": "KRW", "₹": "INR", "₽": "RUB", "₺": "TRY", "₪": "ILS", "₫": "VND",
        "₱": "PHP", "฿": "THB", "₴": "UAH", "₦": "NGN", "₸": "KZT", "₼": "AZN", "₾": "GEL", "₡": "CRC", "₲": "PYG",
        "ß": "ss", "æ": "ae", "Æ": "AE", "ø": "o", "Ø": "O", "œ": "oe", "Œ": "OE", "ł": "l", "Ł": "L", "đ": "d", "Đ": "D",
        "ı": "i", "þ": "th", "Þ": "Th", "ð": "d", "Ð": "D",
        "\u{00A0}": " ", "\u{202F}": " ", "\u{2009}": " ", "\u{2007}": " ",
        "‘": "'", "’": "'", "‚": ",", "“": "\"", "”": "\"", "„": "\"", "«": "<<", "»": ">>", "‹": "<", "›": ">",
        "–": "-", "—": "-", "−": "-", "…": "~", "·": "-", "•": "*", "×": "x", "\u{00AD}": "",
    ]

    /// The text padded with spaces to exactly `columns` columns (cut first when longer).
    public static func padded(_ text: String, to columns: Int) -> String {
        let fitted = truncated(text, to: columns)
        return fitted + String(repeating: " ", count: max(0, columns - width(fitted)))
    }
}
