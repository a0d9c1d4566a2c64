import Foundation

/// Text as one word of a POSIX shell command line, for commands the front ends print to paste.
public enum ShellWord {
    /// `text` in single quotes (a quote inside written `'\''`).
    public static func quoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    /// `text` as it is when the shell reads nothing in it (letters, digits, `/._:@%+=,-`), else quoted;
    /// with control characters, in bash's `$'…'` with them escaped (`$'bad\e[2Jx\ty'`): pasted, it is
    /// the same text, and printed, no control sequence reaches the terminal.
    public static func word(_ text: String) -> String {
        let plain = !text.isEmpty && text.unicodeScalars.allSatisfy {
            $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "/._:@%+=,-".unicodeScalars.contains($0))
        }
        if plain { return text }
        guard text.unicodeScalars.contains(where: { CharacterSet.controlCharacters.contains($0) }) else { return quoted(text) }
        var escaped = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": escaped += "\\\\"
            case "'": escaped += "\\'"
            case "\n": escaped += "\\n"
            case "\t": escaped += "\\t"
            case "\r": escaped += "\\r"
            case "\u{1B}": escaped += "\\e"
            case _ where scalar.value < 0x80 && CharacterSet.controlCharacters.contains(scalar):
                escaped += String(format: "\\x%02x", scalar.value)
            case _ where CharacterSet.controlCharacters.contains(scalar):
                escaped += String(format: "\\U%08x", scalar.value)
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return "$'" + escaped + "'"
    }

    /// The `storefront` command a hint prints to paste: on `store` (a store file's path from the root,
    /// as a second terminal may be in another folder; a URI as shown) when given, so that it acts on
    /// this store, not on the default one.
    public static func storefront(store: String?) -> String {
        (["storefront"] + (store.map { ["--store", word(absolute($0))] } ?? [])).joined(separator: " ")
    }

    /// A store file's path from the root; a URI as it is.
    private static func absolute(_ store: String) -> String {
        guard case .file(let path) = StoreAddress(store), !path.hasPrefix("/") else { return store }
        return FileManager.default.currentDirectoryPath + "/" + path
    }
}
