import StoreEngine
@testable import StorefrontCLI
import Testing

/// The one table behind the parser, `--help`, the completions and the man page:
/// a command or option missing from any of them fails here.
@Suite("Command table")
struct CommandTableTests {
    /// A plausible operand of each kind, so a command line can be made from the table alone.
    static func sample(_ kind: ValueKind) -> String {
        switch kind {
        case .text: "1"
        case .words(let words): words[0]
        case .file: "catalog.json"
        case .productID: "com.example.one"
        case .group: "premium"
        case .settingName: "askToBuy"
        case .settingValue: "true"
        case .command: "buy"
        }
    }

    /// A plausible value for an option, by its placeholder and kind.
    static func value(for option: OptionSpec) -> [String] {
        guard let placeholder = option.value else { return [] }
        if placeholder == "UUID" { return ["6F1A2B3C-4D5E-4F60-8A7B-9C0D1E2F3A4B"] }
        if placeholder == "SIGNATURE" { return ["header.payload.signature"] }
        if placeholder == "DATE" { return ["2026-01-31"] }
        if placeholder == "TOKEN" { return [HistoryRevision.token(after: 2_000_000_001)] }
        // serve checks its address and receivers as it parses.
        if placeholder == "HOST:PORT" { return ["127.0.0.1:0"] }
        if placeholder == "URL" { return ["http://127.0.0.1/"] }
        return [option.kind == .text ? "1" : sample(option.kind)]
    }

    /// Options that are only taken beside another one.
    static let companions: [String: [String]] = [
        "--der": ["--root"], "--signature": ["--offer", "x"], "--sign": ["--offer", "x"],
    ]

    /// The shortest command line made from the table's operands that parses, if any does. Each word
    /// of a fixed list is tried (`refund-request begin` takes options `approve` does not).
    static func parsed(_ command: CommandHelp, extra: [String] = []) -> Invocation? {
        var lines: [[String]] = [[]]
        for count in 0...command.operands.count {
            for line in lines {
                if let invocation = try? Invocation.parse([command.name] + line + extra) { return invocation }
            }
            guard count < command.operands.count else { break }
            let kind = command.operands[count]
            let choices = if case .words(let words) = kind { words } else { [sample(kind)] }
            lines = lines.flatMap { line in choices.map { line + [$0] } }
        }
        return nil
    }

    @Test(arguments: CommandHelp.all.map(\.name))
    func theParserKnowsEveryCommandOfTheTable(name: String) throws {
        let command = try #require(CommandHelp.named(name))
        let invocation = try #require(Self.parsed(command), "no operands from the table make \(name) parse")
        #expect(invocation.command != .paywall)
        if name != "help" { #expect(invocation.command != .help(nil)) }
    }

    @Test func theParserRefusesACommandTheTableLacks() {
        for name in ["purchase", "install", "complete", "Buy"] {
            #expect(expectUsageError([name])?.description == "no command \"\(name)\"")
        }
    }

    @Test func theParserRefusesAnOptionTheTableLacks() {
        #expect(OptionSpec.named("--bogus") == nil)
        #expect(expectUsageError(["products", "--bogus"])?.description == "unknown option --bogus")
        #expect(expectUsageError(["products", "-x"])?.description == "unknown option -x")
    }

    @Test(arguments: OptionSpec.all.map(\.long))
    func theParserKnowsEveryOptionOfTheTableInEverySpelling(long: String) throws {
        let option = try #require(OptionSpec.named(long))
        let users = option.global ? CommandHelp.all.filter { $0.name == "products" }
            : CommandHelp.all.filter { $0.options.contains(long) }
        #expect(!users.isEmpty, "\(long) belongs to no command")
        for command in users {
            for name in option.names {
                let extra = Self.companions[long, default: []] + [name] + Self.value(for: option)
                #expect(Self.parsed(command, extra: extra) != nil, "\(command.name) \(extra) does not parse")
            }
        }
    }

    @Test(arguments: OptionSpec.all.filter { !$0.global }.map(\.long))
    func aCommandOptionIsRefusedByTheCommandsThatDoNotListIt(long: String) throws {
        let option = try #require(OptionSpec.named(long))
        let value = Self.value(for: option)
        // `help` shows help whatever follows; every other command refuses an option it does not list.
        for command in CommandHelp.all where !command.options.contains(long) && command.name != "help" {
            #expect(Self.parsed(command) != nil)
            let samples = command.operands.map(Self.sample)
            let valid = (0...samples.count).map { Array(samples.prefix($0)) }
                .first { (try? Invocation.parse([command.name] + $0)) != nil }!
            let error = expectUsageError([command.name] + valid + [long] + value)
            #expect(error?.description == "\(command.name) takes no \(long)", "\(command.name) \(long)")
        }
    }

    @Test func everyCommandsUsageNamesItsOwnOptions() {
        for command in CommandHelp.all {
            #expect(command.usage.hasPrefix(command.name), "\(command.name)'s usage starts with its name")
            for option in command.options {
                #expect(command.usage.contains(option), "\(command.name)'s usage does not mention \(option)")
            }
        }
    }

    @Test func helpListsEveryVisibleCommandAndOptionButNotTheHiddenHelper() {
        let overview = CommandHelp.overview(defaultStore: "/x/store.sqlite")
        for command in CommandHelp.visible {
            #expect(overview.contains("\n  \(command.name) "), "\(command.name) is missing from --help")
        }
        for option in OptionSpec.all {
            #expect(overview.contains(option.synopsis), "\(option.long) is missing from --help")
        }
        #expect(!overview.contains("__complete"))
        #expect(CommandHelp.all.contains { $0.hidden && $0.name == "__complete" })
    }

    @Test func commandNamesAndOptionSpellingsAreUnique() {
        let names = CommandHelp.all.map(\.name)
        #expect(Set(names).count == names.count)
        let spellings = OptionSpec.all.flatMap(\.names)
        #expect(Set(spellings).count == spellings.count)
        for command in CommandHelp.all {
            for option in command.options {
                #expect(OptionSpec.named(option).map { !$0.global } == true, "\(command.name) lists \(option)")
            }
        }
    }

    // MARK: - The new commands

    @Test func completionsTakeOneKnownShell() throws {
        #expect(try Invocation.parse(["completions", "zsh"]).command == .completions(.zsh))
        #expect(expectUsageError(["completions", "tcsh"])?.description.contains("bash, zsh or fish") == true)
        #expect(expectUsageError(["completions"])?.command == "completions")
        #expect(try Invocation.parse(["man"]).command == .manPage)
        #expect(expectUsageError(["man", "1"])?.command == "man")
    }

    @Test func theCompletionHelperTakesWhatTheScriptsAsk() throws {
        #expect(try Invocation.parse(["__complete", "products"]).command == .complete(.products))
        #expect(try Invocation.parse(["__complete", "groups"]).command == .complete(.groups))
        #expect(try Invocation.parse(["-c", "x.json", "__complete", "setting-values", "storefront"]).command
                == .complete(.settingValues("storefront")))
        #expect(expectUsageError(["__complete", "accounts"]) != nil)
    }

    @Test func onlyPlainIdsAreOfferedToAShell() {
        for id in ["com.example.one", "barcode_month_subscription", "a-b+c@d", "café.premium"] {
            #expect(CompletionRequest.isPlainWord(id), "\(id)")
        }
        for id in ["", "two words", "it's", "\u{1b}[2J", "a;rm", "$(x)", "a\tb", "a:b", "`x`"] {
            #expect(!CompletionRequest.isPlainWord(id), "\(id.debugDescription)")
        }
    }
}
