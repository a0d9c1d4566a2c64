import CBuildInfo
import StoreEngine

/// `completions bash|zsh|fish`: the shell's completion script.
struct CompletionsCommand: StorefrontCommand {
    var shell: Shell

    static var help: CommandHelp { ToolCommands.completionsHelp }

    static func parse(_ line: CommandArguments) throws(UsageError) -> Self {
        try line.expect(1, "a shell: bash, zsh or fish")
        try line.allow()
        guard let shell = Shell(rawValue: line.args[0]) else {
            throw UsageError(description: "completions takes bash, zsh or fish, not \"\(line.args[0])\"", command: line.name)
        }
        return Self(shell: shell)
    }

    func runAlone(_ context: CommandContext) async -> ExitCode? {
        context.console.out(Completions.script(for: shell))
        return .success
    }
}

/// `man`: the manual page storefront(1).
struct ManCommand: StorefrontCommand {
    static var help: CommandHelp { ToolCommands.manHelp }

    static func parse(_ line: CommandArguments) throws(UsageError) -> Self {
        try line.expect(0, "")
        try line.allow()
        return Self()
    }

    func runAlone(_ context: CommandContext) async -> ExitCode? {
        context.console.out(ManPage.roff)
        return .success
    }
}

/// `__complete WHAT`: candidates for the completion scripts (hidden).
struct CompleteCommand: StorefrontCommand {
    var request: CompletionRequest

    static var help: CommandHelp { ToolCommands.completeHelp }

    static func parse(_ line: CommandArguments) throws(UsageError) -> Self {
        try line.allow()
        guard let request = CompletionRequest(line.args) else {
            throw UsageError(description: "__complete takes products, groups or setting-values NAME", command: line.name)
        }
        return Self(request: request)
    }

    func runAlone(_ context: CommandContext) async -> ExitCode? {
        for candidate in request.candidates(catalogPath: context.invocation.catalogPath) { context.console.out(candidate) }
        return .success
    }
}

/// `help [COMMAND]`, `--help`, `COMMAND --help`: the commands and options, or one command's details.
struct HelpCommand: StorefrontCommand {
    /// The command to explain; nil for all of them.
    var topic: String?

    static let help = CommandHelp(
        name: "help", usage: "help [COMMAND]",
        summary: "The commands and options, or one command's details",
        details: "The same as `storefront --help`, or `storefront COMMAND --help` when a COMMAND is named.",
        operands: [.command], printsJSON: false)

    static func parse(_ line: CommandArguments) throws(UsageError) -> Self {
        Self(topic: line.args.first)
    }

    func runAlone(_ context: CommandContext) async -> ExitCode? {
        context.console.out(topic.flatMap(CommandHelp.named)?.text ?? CommandHelp.overview(defaultStore: context.defaultStore))
        return .success
    }
}

/// `--version`, `completions`, `man` and the hidden `__complete`: the commands that
/// install and describe the tool. None opens a store file; only `__complete` reads the catalog.
enum ToolCommands {
    static let completionsHelp = CommandHelp(
        name: "completions", usage: "completions bash|zsh|fish",
        summary: "Print the shell's completion script",
        details: """
            Prints a completion script for commands, options, setting names and values,
            and the product ids and subscription groups of the catalog in the current
            folder (or the one --catalog names). Load it for this shell with
              source <(storefront completions bash)
              source <(storefront completions zsh)
              storefront completions fish | source
            or install it where the shell looks (make install does): bash's
            share/bash-completion/completions/storefront, zsh's share/zsh/site-functions/_storefront,
            fish's share/fish/vendor_completions.d/storefront.fish.
            """,
        operands: [.words(Shell.allCases.map(\.rawValue))], printsJSON: false)

    static let manHelp = CommandHelp(
        name: "man", usage: "man",
        summary: "Print the manual page storefront(1) in roff",
        details: """
            Prints the manual page made from the same table as this help: commands, options,
            settings, exit codes, files and environment. Read it with `storefront man | man -l -`.
            """, printsJSON: false)

    static let completeHelp = CommandHelp(
        name: "__complete", usage: "__complete products | groups | setting-values NAME",
        summary: "Candidates for the completion scripts, one a line",
        details: """
            What the completion scripts ask for at completion time: the catalog's product ids,
            its subscription groups and their product ids, or the values of a setting. Prints
            nothing (and exits 0) when the catalog cannot be read.
            """,
        operands: [.words(["products", "groups", "setting-values"]), .settingName],
        hidden: true, printsJSON: false)

    /// `storefront --version`: the version and the commit it was built from.
    static var versionLine: String {
        let commit = String(cString: storefront_build_commit())
        return "storefront \(CLI.version) (\(commit.isEmpty ? "unknown commit" : "commit \(commit)"))"
    }
}

/// What a completion script asks `storefront __complete` for.
public enum CompletionRequest: Equatable, Sendable {
    case products
    case groups
    case settingValues(String)

    /// Reads `__complete`'s operands; nil when they ask for nothing known.
    init?(_ operands: [String]) {
        switch operands {
        case ["products"]: self = .products
        case ["groups"]: self = .groups
        case let list where list.count == 2 && list[0] == "setting-values": self = .settingValues(list[1])
        default: return nil
        }
    }

    /// The candidates, one per line; none when the catalog is needed and cannot be read.
    func candidates(catalogPath: String) -> [String] {
        let catalog = try? Catalog.load(contentsOf: catalogPath)
        switch self {
        case .products:
            return catalog?.products.map(\.id).filter(Self.isPlainWord) ?? []
        case .groups:
            guard let catalog else { return [] }
            let subscriptions = catalog.products.filter { $0.subscription != nil }.map(\.id)
            return (catalog.subscriptionGroups.map(\.id) + subscriptions).filter(Self.isPlainWord)
        case .settingValues(let name):
            guard let setting = SettingDefinition.named(name) else { return [] }
            let empty = Catalog(paywall: Paywall(), defaultStorefront: "USA", storefronts: [], products: [],
                                subscriptionGroups: [])
            return setting.choices(in: catalog ?? empty).filter(Self.isPlainWord)
        }
    }

    /// Whether a catalog's id can be offered to a shell as it is: ids with spaces,
    /// quotes or control characters are typed by hand, not completed.
    static func isPlainWord(_ text: String) -> Bool {
        !text.isEmpty && text.unicodeScalars.allSatisfy { scalar in
            scalar.isASCII ? (scalar.properties.isAlphabetic || scalar.properties.numericType != nil
                || "._-@+".unicodeScalars.contains(scalar)) : scalar.properties.isAlphabetic
        }
    }
}
