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

    /// A plausible value for an option: its declared example, else one of its kind.
    static func value(for option: OptionSpec) -> [String] {
        guard option.value != nil else { return [] }
        return [option.example ?? (option.kind == .text ? "1" : sample(option.kind))]
    }

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
        if name != "help" { #expect(invocation.command != .run(AnyCommand(HelpCommand()))) }
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
            : CommandHelp.all.filter { $0.optionNames.contains(long) }
        #expect(!users.isEmpty, "\(long) belongs to no command")
        for command in users {
            for name in option.names {
                let extra = option.needs + [name] + Self.value(for: option)
                #expect(Self.parsed(command, extra: extra) != nil, "\(command.name) \(extra) does not parse")
            }
        }
    }

    @Test(arguments: OptionSpec.all.filter { !$0.global }.map(\.long))
    func aCommandOptionIsRefusedByTheCommandsThatDoNotListIt(long: String) throws {
        let option = try #require(OptionSpec.named(long))
        let value = Self.value(for: option)
        // `help` shows help whatever follows; every other command refuses an option it does not list.
        for command in CommandHelp.all where !command.optionNames.contains(long) && command.name != "help" {
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
            for option in command.optionNames {
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
            for option in command.optionNames {
                #expect(OptionSpec.named(option).map { !$0.global } == true, "\(command.name) lists \(option)")
            }
        }
    }

    @Test("an option several commands take is one declaration: the same names, value, completion and help")
    func oneSpecPerLongName() {
        for option in OptionSpec.all {
            for command in CommandHelp.all {
                for declared in command.options where declared.long == option.long {
                    #expect(declared == option, "\(command.name) declares \(option.long) differently")
                }
            }
        }
        #expect(!OptionSpec.globals.contains { global in CommandHelp.all.contains { $0.optionNames.contains(global.long) } })
    }

    @Test("every option of a fixed list refuses another word with a message listing each word it takes")
    func everyWordsOptionRefusesBogusListingEachWord() throws {
        var checked = 0
        for option in OptionSpec.all {
            guard case .words(let words) = option.kind else { continue }
            let command = try #require(CommandHelp.all.first { $0.optionNames.contains(option.long) })
            let extra = option.needs + [option.long, "bogus"]
            // The operands that let the option through (refund-request's --request-reason wants begin).
            let operands = (0...command.operands.count).lazy.flatMap { count in
                Self.operandLines(command, count: count)
            }.first { (try? Invocation.parse([command.name] + $0 + option.needs + [option.long] + Self.value(for: option))) != nil }
            let line = try #require(operands, "\(option.long): no line of \(command.name) takes it")
            let error = try #require(expectUsageError([command.name] + line + extra), "\(command.name) \(option.long) bogus parsed")
            for word in words { #expect(error.description.contains(word), "\(option.long)'s refusal \"\(error.description)\" lacks \(word)") }
            #expect(error.description.contains("\"bogus\""))
            checked += 1
        }
        #expect(checked >= 5)
    }

    /// Every line of `count` operands made from the table's kinds (each word of a fixed list tried).
    static func operandLines(_ command: CommandHelp, count: Int) -> [[String]] {
        command.operands.prefix(count).reduce([[]]) { lines, kind in
            let choices = if case .words(let words) = kind { words } else { [sample(kind)] }
            return lines.flatMap { line in choices.map { line + [$0] } }
        }
    }

    // MARK: - The new commands

    @Test func completionsTakeOneKnownShell() throws {
        #expect(try Invocation.parse(["completions", "zsh"]).command == .run(AnyCommand(CompletionsCommand(shell: .zsh))))
        #expect(expectUsageError(["completions", "tcsh"])?.description.contains("bash, zsh or fish") == true)
        #expect(expectUsageError(["completions"])?.command == "completions")
        #expect(try Invocation.parse(["man"]).command == .run(AnyCommand(ManCommand())))
        #expect(expectUsageError(["man", "1"])?.command == "man")
    }

    @Test func theCompletionHelperTakesWhatTheScriptsAsk() throws {
        #expect(try Invocation.parse(["__complete", "products"]).command == .run(AnyCommand(CompleteCommand(request: .products))))
        #expect(try Invocation.parse(["__complete", "groups"]).command == .run(AnyCommand(CompleteCommand(request: .groups))))
        #expect(try Invocation.parse(["-c", "x.json", "__complete", "setting-values", "storefront"]).command
                == .run(AnyCommand(CompleteCommand(request: .settingValues("storefront")))))
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
