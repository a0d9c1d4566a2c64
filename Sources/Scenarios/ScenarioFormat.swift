import Foundation
import StoreEngine
import StorefrontUI

// MARK: - The scenario format
//
// One step a line, `#` starts a comment (outside quotes), words split on blanks,
// "double" or 'single' quotes keep blanks in a word. A header names the catalog:
//
//     catalog ../products.json          # relative to the scenario file
//     start 2026-01-05T09:00:00Z        # optional: the store's clock at the start
//     size 100x30                       # optional: the headless paywall's size
//
// Steps: a store command in the CLI's own words (`buy ID`, `clock advance P1M`,
// `refund LAST --reason developerIssue`), optionally captured (`buy ID as trial`,
// later `$trial`); `press KEY…`, `select PRODUCT_ID`, `launch` and `wait DURATION`
// for the paywall; and `expect …` (see ``Expectation``).

/// One scenario file, parsed.
public struct Scenario: Sendable {
    /// The file as named on the command line.
    public var path: String
    /// The catalog, resolved against the scenario's folder.
    public var catalogPath: String
    /// The line of the `catalog` directive, for a catalog that does not load.
    public var catalogLine: Int
    /// The real time (and so the store's time) when the scenario starts.
    public var start: Date
    public var size: Size
    public var steps: [ScenarioStep]

    /// The file's name without its folder and extension.
    public var name: String {
        let file = (path as NSString).lastPathComponent
        return file.hasSuffix(".scenario") ? String(file.dropLast(".scenario".count)) : file
    }

    /// The store's time when no `start` line is given: fixed, so screens and dates repeat.
    public static let defaultStart = Date(timeIntervalSince1970: 1_767_600_000)  // 2026-01-05T08:00:00Z
    public static let defaultSize = Size(columns: 100, rows: 30)
}

/// A word of a line with the column it starts at (1-based).
public struct ScenarioWord: Sendable, Equatable {
    public var text: String
    public var column: Int
    /// Whether it was quoted: a quoted `LAST` or `$x` is text, not a reference.
    public var quoted = false
    /// The column after its last character (its closing quote).
    var end = 0
}

/// One line that does something.
public struct ScenarioStep: Sendable {
    public var line: Int
    /// The line as written, without its comment.
    public var source: String
    public var kind: Kind

    public enum Kind: Sendable {
        /// A store command as the CLI takes it; `capture` names its transaction for later (`as NAME`).
        case command(words: [ScenarioWord], capture: String?)
        /// Keys for the paywall, one after another, each followed by the engine work it starts.
        case press([Key])
        /// Move the paywall's selection to a product.
        case select(productID: String)
        /// Start the paywall again (as quitting and running `storefront` again).
        case launch
        /// Let real time pass (a fast clock runs; the paywall looks for changes meanwhile).
        case wait(ISODuration)
        case expect(Expectation)
    }

    /// Whether this step checks rather than acts.
    var isExpectation: Bool { if case .expect = kind { true } else { false } }
}

/// What an `expect` line checks.
public enum Expectation: Sendable, Equatable {
    /// `expect owned ID` / `expect not owned ID`: the app's checkmark (its owned products).
    case owned(productID: String, Bool)
    /// `expect entitled ID` / `expect not entitled ID`: the App Store's current entitlements.
    case entitled(productID: String, Bool)
    /// `expect balance ID N`: the app's balance of a consumable.
    case balance(productID: String, Int)
    /// `expect status GROUP STATE`: the group's `RenewalState` (`subscribed`, `inGracePeriod`, …, or `none`).
    case status(group: String, String)
    /// `expect renewal GROUP FIELD VALUE`: a field of the group's renewal info (`autoRenewProductID`, `expirationReason`, …).
    case renewal(group: String, field: String, value: String)
    /// `expect transactions ID N`: how many transactions of the product the account's history holds.
    case transactions(productID: String, Int)
    /// `expect transaction REF FIELD VALUE`: a field of a transaction as `--json` names it (`none` when
    /// absent); the value may be a reference too (`expect transaction LAST originalID $trial`).
    case transaction(ScenarioWord, field: String, value: ScenarioWord)
    /// `expect screen "TEXT"` / `expect not screen "TEXT"`: the paywall shows the text on some line.
    case screen(String, Bool)
    /// `expect output "TEXT"`: what the last command printed (standard output and error) contains it.
    case output(String)
    /// `expect error NAME`: the last step failed with this StoreKit error (or `none`).
    case error(String)
    /// `expect setting NAME VALUE`.
    case setting(name: String, value: String)
    /// `expect took >= DURATION`: the last step took at least that long in real time.
    case took(atLeast: Double)
    /// `expect notification TYPE [SUBTYPE]`: the store recorded this App Store Server Notification
    /// after the one the previous `expect notification` matched, so a run of them checks the order.
    case notification(type: String, subtype: String?)
}

/// A fault in a scenario file: where and what (exit 65).
public struct ScenarioSyntaxError: Error, Sendable, CustomStringConvertible {
    public var path: String
    public var line: Int
    public var column: Int
    public var message: String

    public var description: String { "\(path):\(line):\(column): \(message)" }
}

// MARK: - Reading a file

extension Scenario {
    /// The store commands a scenario may run: the ones that act on or read the store.
    static let allowedCommands: Set<String> = [
        "products", "buy", "restore", "transactions", "entitlements", "consume", "approve", "decline", "resolve",
        "refund", "delete-transaction", "accounts", "clock", "status", "auto-renew", "expire", "renew", "reset",
        "settings", "log", "offer-keys", "offer", "app-transaction", "redeem", "price-increase", "messages", "message",
        "refund-request",
    ]
    /// Options a scenario may not give: it has its own store and catalog, and reads results itself.
    static let refusedOptions: Set<String> = ["--store", "--catalog", "--json", "--latency", "--help", "--version", "--record"]

    /// Reads a scenario file; the catalog is resolved against the file's folder, the store
    /// commands checked with the command line's parser.
    public static func load(path: String, commands: any ScenarioCommandLine) throws(ScenarioSyntaxError) -> Scenario {
        // A regular file of at most 16 MiB (a scenario is lines someone wrote): a FIFO, a device or a
        // huge file is refused, never waited on or read into all memory.
        let data: [UInt8]
        switch BoundedFileRead.bytes(of: path, limit: 16 << 20) {
        case .success(let bytes): data = bytes
        case .failure(.notRegular(let kind)):
            throw ScenarioSyntaxError(path: path, line: 0, column: 0, message: "is \(kind), not a regular file: a scenario is read from a file")
        case .failure(.tooLarge):
            throw ScenarioSyntaxError(path: path, line: 0, column: 0, message: "is larger than 16 MiB, the most a scenario may be")
        case .failure: throw ScenarioSyntaxError(path: path, line: 0, column: 0, message: "cannot read the file")
        }
        guard let text = String(validating: data, as: UTF8.self) else {
            throw ScenarioSyntaxError(path: path, line: 0, column: 0, message: "not UTF-8 text")
        }
        return try parse(text, path: path, commands: commands)
    }

    /// Parses a scenario's text. `path` names it in errors and anchors a relative catalog path.
    public static func parse(_ text: String, path: String, commands: any ScenarioCommandLine) throws(ScenarioSyntaxError) -> Scenario {
        var scenario = Scenario(path: path, catalogPath: "", catalogLine: 0, start: defaultStart, size: defaultSize, steps: [])
        var captures: Set<String> = []
        // "\r\n" is one Character in Swift, not "\n" after "\r": split on both, or a CRLF file is one line.
        let lines = text.split(omittingEmptySubsequences: false) { $0 == "\n" || $0 == "\r\n" }
        for (index, rawLine) in lines.enumerated() {
            let number = index + 1
            func fail(_ column: Int, _ message: String) -> ScenarioSyntaxError {
                ScenarioSyntaxError(path: path, line: number, column: column, message: message)
            }
            let line = rawLine.hasSuffix("\r") ? String(rawLine.dropLast()) : String(rawLine)
            let words: [ScenarioWord]
            do { words = try tokenize(line) } catch { throw fail(error.column, error.message) }
            guard let first = words.first else { continue }
            let rest = Array(words.dropFirst())
            func step(_ kind: ScenarioStep.Kind) {
                let text = String(line.prefix(words.last!.end)).trimmingCharacters(in: .whitespaces)
                scenario.steps.append(ScenarioStep(line: number, source: text, kind: kind))
            }

            switch first.text {
            case "catalog" where !first.quoted && rest.count == 1 && rest[0].text != "check" && rest[0].text != "convert":
                guard scenario.steps.isEmpty else { throw fail(first.column, "catalog must come before the first step") }
                guard scenario.catalogLine == 0 else { throw fail(first.column, "catalog is named twice (line \(scenario.catalogLine))") }
                let folder = path.pathFolder
                scenario.catalogPath = rest[0].text.hasPrefix("/") || folder.isEmpty
                    ? rest[0].text : (folder as NSString).appendingPathComponent(rest[0].text)
                scenario.catalogLine = number
            case "start":
                guard scenario.steps.isEmpty else { throw fail(first.column, "start must come before the first step") }
                guard rest.count == 1, let date = try? Date(rest[0].text, strategy: .iso8601) else {
                    throw fail(rest.first?.column ?? first.column + 5, "start needs an ISO-8601 date and time such as 2026-01-05T09:00:00Z")
                }
                scenario.start = date
            case "size":
                guard scenario.steps.isEmpty else { throw fail(first.column, "size must come before the first step") }
                let parts = rest.first?.text.split(separator: "x").compactMap { Int($0) } ?? []
                guard rest.count == 1, parts.count == 2, parts[0] >= 60, parts[1] >= 16, parts[0] <= 500, parts[1] <= 200 else {
                    throw fail(rest.first?.column ?? first.column + 4, "size needs COLUMNSxROWS such as 100x30 (at least 60x16)")
                }
                scenario.size = Size(columns: parts[0], rows: parts[1])
            case "press":
                guard !rest.isEmpty else { throw fail(first.column + 5, "press needs a key: enter, space, esc, up, down, left, right, tab, a character, …") }
                var keys: [Key] = []
                for word in rest {
                    guard let key = keyNamed(word.text) else {
                        throw fail(word.column, "unknown key \"\(word.text)\": use enter, space, esc, up, down, left, right, tab, backspace, pgup, pgdn, home, end, ctrl-c or one character")
                    }
                    keys.append(key)
                }
                step(.press(keys))
            case "select":
                guard rest.count == 1 else { throw fail(first.column, "select needs one PRODUCT_ID") }
                step(.select(productID: rest[0].text))
            case "launch":
                guard rest.isEmpty else { throw fail(rest[0].column, "launch takes nothing") }
                step(.launch)
            case "wait":
                guard rest.count == 1, let duration = ISODuration(rest[0].text), duration != ISODuration() else {
                    throw fail(rest.first?.column ?? first.column + 4, "wait needs an ISO-8601 duration such as PT2S or PT1M")
                }
                step(.wait(duration))
            case "expect":
                do { step(.expect(try expectation(rest, captures: captures))) } catch { throw fail(error.column, error.message) }
            default:
                var commandWords = words
                var capture: String?
                if words.count >= 3, words[words.count - 2].text == "as", !words[words.count - 2].quoted {
                    let name = words[words.count - 1]
                    guard name.text.range(of: "^[A-Za-z_][A-Za-z0-9_-]*$", options: .regularExpression) != nil else {
                        throw fail(name.column, "as needs a name of letters, digits, _ and -, not \"\(name.text)\"")
                    }
                    capture = name.text
                    commandWords.removeLast(2)
                }
                do { try checkCommand(commandWords, captures: captures, commands: commands) } catch { throw fail(error.column, error.message) }
                if let capture { captures.insert(capture) }
                step(.command(words: commandWords, capture: capture))
            }
        }
        guard scenario.catalogLine > 0 else {
            throw ScenarioSyntaxError(path: path, line: 1, column: 1,
                                      message: "no catalog: the scenario needs a line such as `catalog ../products.json` before its steps")
        }
        return scenario
    }

    /// A fault at a column of the current line.
    struct LineFault: Error {
        var column: Int
        var message: String
    }

    /// Splits a line into words; `#` outside quotes ends it.
    static func tokenize(_ line: String) throws(LineFault) -> [ScenarioWord] {
        var words: [ScenarioWord] = []
        var current: String?
        var start = 0
        var quoted = false
        var quote: (Character, Int)?
        var column = 0
        var characters = Array(line)[...]
        while let character = characters.popFirst() {
            column += 1
            if let (mark, _) = quote {
                if character == mark {
                    quote = nil
                } else if character == "\\", mark == "\"", let next = characters.popFirst() {
                    column += 1
                    current!.append(next == "n" ? "\n" : next)
                } else {
                    current!.append(character)
                }
                continue
            }
            switch character {
            case " ", "\t":
                if let word = current { words.append(ScenarioWord(text: word, column: start, quoted: quoted, end: column - 1)) }
                current = nil
                quoted = false
            case "#" where current == nil:
                return words
            case "\"", "'":
                if current == nil { (current, start) = ("", column) }
                quote = (character, column)
                quoted = true
            default:
                if current == nil { (current, start) = ("", column) }
                current!.append(character)
            }
        }
        if let (mark, at) = quote { throw LineFault(column: at, message: "the quote \(mark) is not closed") }
        if let word = current { words.append(ScenarioWord(text: word, column: start, quoted: quoted, end: column)) }
        return words
    }

    /// The key a `press` word names.
    static func keyNamed(_ name: String) -> Key? {
        let named: [String: Key] = [
            "enter": .enter, "return": .enter, "space": .character(" "), "esc": .escape, "escape": .escape,
            "up": .up, "down": .down, "left": .left, "right": .right, "tab": .tab, "backspace": .backspace,
            "pgup": .pageUp, "pageup": .pageUp, "pgdn": .pageDown, "pagedown": .pageDown, "home": .home, "end": .end,
            "ctrl-c": .interrupt,
        ]
        if let key = named[name.lowercased()] { return key }
        return name.count == 1 ? .character(name.first!) : nil
    }

    /// The word `press` writes for a key (the recorder's spelling).
    static func keyName(_ key: Key) -> String {
        switch key {
        case .enter: "enter"
        case .character(" "): "space"
        case .character(let character): String(character)
        case .escape: "esc"
        case .up: "up"
        case .down: "down"
        case .left: "left"
        case .right: "right"
        case .tab: "tab"
        case .backspace: "backspace"
        case .pageUp: "pgup"
        case .pageDown: "pgdn"
        case .home: "home"
        case .end: "end"
        case .interrupt: "ctrl-c"
        }
    }

    /// Checks a store command line with the CLI's own parser, references standing in as numbers.
    static func checkCommand(_ words: [ScenarioWord], captures: Set<String>, commands: any ScenarioCommandLine) throws(LineFault) {
        let first = words[0]
        guard allowedCommands.contains(first.text) else {
            let hint = commands.isCommand(first.text) ? "a scenario runs store commands only, not \(first.text)"
                : "unknown step \"\(first.text)\": a store command (buy, refund, clock advance, settings set, …), press, select, launch, wait or expect"
            throw LineFault(column: first.column, message: hint)
        }
        for word in words where !word.quoted {
            let option = String(word.text.split(separator: "=", maxSplits: 1).first ?? "")
            if let long = commands.longOption(option), refusedOptions.contains(long) {
                throw LineFault(column: word.column, message: "a scenario has its own store, catalog and output: \(long) is not allowed")
            }
            if !word.quoted, word.text.hasPrefix("$"), !captures.contains(String(word.text.dropFirst())) {
                throw LineFault(column: word.column, message: "\(word.text) is not captured before this line (capture with `… as \(word.text.dropFirst())`)")
            }
        }
        let arguments = words.map { isReference($0) ? "1" : $0.text }
        do {
            try commands.check(arguments)
        } catch {
            let error = String(describing: error)
            // Point at the word the message quotes, else at the command.
            let quotedWord = words.dropFirst().first { word in
                error.description.contains("\"\(word.text)\"") || error.description.hasSuffix(" " + word.text)
            }
            let option = words.dropFirst().first { word in
                word.text.hasPrefix("-") && error.description.contains(word.text.split(separator: "=").first.map(String.init) ?? word.text)
            }
            let culprit = quotedWord ?? option
            throw LineFault(column: culprit?.column ?? first.column, message: error.description)
        }
    }

    /// `LAST` or `$name`, unquoted.
    static func isReference(_ word: ScenarioWord) -> Bool {
        !word.quoted && (word.text == "LAST" || word.text.hasPrefix("$"))
    }
}
