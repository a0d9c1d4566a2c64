import Foundation

// MARK: - Typed options
//
// An option is declared once, in the file of the command that reads it (or in `SharedOptions.swift`
// when several do): its table entry (``OptionSpec``: names, placeholder, completion, help) and how
// its text becomes a value. The parser only collects the texts given (``CommandArguments/given``);
// the command reads them with ``CommandArguments/value(_:)``, ``CommandArguments/values(_:)`` and
// ``CommandArguments/has(_:)``, so the accepted values, the completion words and the error's list
// are one definition.

/// An option that takes a value: its table entry, and how its text becomes a value (nil: refused).
struct Option<Value: Sendable>: Sendable {
    let spec: OptionSpec
    /// The whole refusal of a text `read` refuses: `--billing-plan takes monthly or upfront, not "yearly"`.
    let refusal: @Sendable (String) -> String
    let read: @Sendable (String) -> Value?
}

/// An option that takes no value.
struct Flag: Sendable {
    let spec: OptionSpec

    init(_ long: String, needs: [String] = [], _ summary: String) {
        spec = OptionSpec(long, needs: needs, summary)
    }
}

extension Option {
    /// One of a fixed list: the completion words, the reader and the refusal's list are the same values.
    static func choice(_ long: String, value: String, _ cases: [Value], name: @escaping @Sendable (Value) -> String,
                       _ summary: String) -> Option {
        words(long, value: value, cases.map(name), read: { text in cases.first { name($0) == text } }, summary)
    }

    /// One of `words` (which completion offers and the refusal lists), read by `read` (which may take other spellings too).
    static func words(_ long: String, value: String, _ words: [String], read: @escaping @Sendable (String) -> Value?,
                      _ summary: String) -> Option {
        let list = Self.list(words)
        return Option(spec: OptionSpec(long, value: value, kind: .words(words), summary),
                      refusal: { "\(long) takes \(list), not \"\($0)\"" }, read: read)
    }

    /// `a`, `a or b`, `a, b or c`.
    static func list(_ words: [String]) -> String {
        words.count < 2 ? words.joined() : words.dropLast().joined(separator: ", ") + " or " + words.last!
    }
}

extension Option where Value == Int {
    /// A whole number of at least `minimum`.
    static func number(_ long: String, short: String? = nil, value: String = "N", minimum: Int, _ summary: String) -> Option {
        Option(spec: OptionSpec(long, short: short, value: value, summary),
               refusal: { "\(long) needs a whole number of at least \(minimum), not \"\($0)\"" },
               read: { Int($0).flatMap { $0 >= minimum ? $0 : nil } })
    }
}

extension Option where Value == String {
    /// Text taken as it is; with `nonEmpty` (what it is: a file, an offer id) the empty text is refused:
    /// "--junit needs a file".
    static func text(_ long: String, value: String, kind: ValueKind = .text, nonEmpty: String? = nil, example: String? = nil,
                     needs: [String] = [], _ summary: String) -> Option {
        Option(spec: OptionSpec(long, value: value, kind: kind, example: example, needs: needs, summary),
               refusal: { _ in "\(long) needs \(nonEmpty ?? "a value")" },
               read: { text in nonEmpty != nil && text.isEmpty ? nil : text })
    }
}

extension CommandArguments {
    /// The value of `option` (the last one given wins; each one given must read), or nil when not given.
    func value<Value>(_ option: Option<Value>) throws(UsageError) -> Value? {
        try values(option).last
    }

    /// Every value given for a repeatable option, in order.
    func values<Value>(_ option: Option<Value>) throws(UsageError) -> [Value] {
        var values: [Value] = []
        for text in given[option.spec.long] ?? [] {
            guard let value = option.read(text) else { throw UsageError(description: option.refusal(text), command: name) }
            values.append(value)
        }
        return values
    }

    /// Whether `flag` was given.
    func has(_ flag: Flag) -> Bool { given[flag.spec.long] != nil }

    /// Whether `option` was given, whatever its value.
    func has<Value>(_ option: Option<Value>) -> Bool { given[option.spec.long] != nil }
}
