import Foundation

/// Text as one word of a POSIX shell command line, for commands the front ends print to paste.
public enum ShellWord {
    /// `text` in single quotes (a quote inside written `'\''`).
    public static func quoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    /// `text` as it is when the shell reads nothing in it (letters, digits, `/._:@%+=,-`), else quoted.
    public static func word(_ text: String) -> String {
        let plain = !text.isEmpty && text.unicodeScalars.allSatisfy {
            $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "/._:@%+=,-".unicodeScalars.contains($0))
        }
        return plain ? text : quoted(text)
    }
}
