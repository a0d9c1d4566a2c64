import StoreEngine

// MARK: - The command table's vocabulary
//
// One table drives the parser, `--help`, the shell completions and the man page:
// ``OptionSpec/all`` for the options and ``CommandHelp/all`` for the commands (each command
// type's own entry, in the order of ``StorefrontCommands/all``).
// The parser refuses any option or command that is not in it, so nothing can be
// parsed without being documented and completed.

/// What a value on the command line is, so the completions can offer candidates for it.
public enum ValueKind: Equatable, Sendable {
    /// Free text: nothing to offer (a name, a number, a JWS).
    case text
    /// One of these words.
    case words([String])
    /// A path to a file.
    case file
    /// A product id from the catalog.
    case productID
    /// A subscription group id or the id of one of its products, from the catalog.
    case group
    /// A setting's name.
    case settingName
    /// A value for the setting named by the operand before it.
    case settingValue
    /// A command's name.
    case command
}

/// One option the parser knows.
public struct OptionSpec: Equatable, Sendable {
    /// The long name, with its dashes: `--catalog`.
    public var long: String
    /// The short name, with its dash: `-c`.
    public var short: String?
    /// The value's placeholder (`PATH`), or nil for a flag.
    public var value: String?
    /// What the value is, for completion.
    public var kind: ValueKind
    /// One line for `--help`, the man page and the completions.
    public var summary: String
    /// Whether every command takes it; otherwise only the commands whose table entry lists it.
    public var global: Bool
    /// A value that parses, for the table's tests (default: one made from `kind`).
    var example: String?
    /// The options it is only taken beside, as a command line's words (`--der` needs `--root`).
    var needs: [String]

    init(_ long: String, short: String? = nil, value: String? = nil, kind: ValueKind = .text,
         global: Bool = false, example: String? = nil, needs: [String] = [], _ summary: String) {
        self.long = long
        self.short = short
        self.value = value
        self.kind = kind
        self.summary = summary
        self.global = global
        self.example = example
        self.needs = needs
    }

    /// Both spellings, short first: `-c, --catalog`.
    public var names: [String] { (short.map { [$0] } ?? []) + [long] }

    /// The option spelled `name` (long or short).
    public static func named(_ name: String) -> OptionSpec? {
        all.first { $0.long == name || $0.short == name }
    }

    /// Every option, global ones first, then each command's own in the order of the command table
    /// (an option several commands take, once): the order `--help` lists them.
    public static let all: [OptionSpec] = globals + CommandHelp.all.flatMap(\.options).reduce(into: []) { options, option in
        if !options.contains(where: { $0.long == option.long }) { options.append(option) }
    }

    /// The options every command takes, read into ``Invocation`` by the parser itself.
    static let globals: [OptionSpec] = [
        OptionSpec("--catalog", short: "-c", value: "PATH", kind: .file, global: true,
                   "the product catalog, a products.json or .storekit file (default ./products.json, else the one .storekit here)"),
        OptionSpec("--store", short: "-s", value: "PATH", kind: .file, global: true,
                   "the store file (default $STOREFRONT_STORE, else the state folder's store.sqlite)"),
        OptionSpec("--account", short: "-a", value: "NAME", global: true,
                   "the sandbox account (default: the one `accounts switch` chose); created on first use"),
        OptionSpec("--json", global: true, "print one JSON document instead of a table"),
        OptionSpec("--latency", value: "MS", global: true, "the paywall's simulated purchase latency (default 400)"),
        OptionSpec("--record", value: "FILE", kind: .file, global: true,
                   "the paywall writes the tester's actions to FILE as a scenario (replay FILE)"),
        OptionSpec("--help", short: "-h", global: true, "this help; `storefront COMMAND --help` for one command"),
        OptionSpec("--version", global: true, "the version and the commit it was built from"),
    ]
}

extension CommandHelp {
    /// The commands people see: every entry but the hidden helpers the completion scripts call.
    static var visible: [CommandHelp] { all.filter { !$0.hidden } }

    /// The options this command takes: the global ones, then its own.
    var allOptions: [OptionSpec] {
        OptionSpec.all.filter { $0.global || optionNames.contains($0.long) }
    }

    /// The long names of its own options.
    var optionNames: [String] { options.map(\.long) }
}

extension OptionSpec {
    /// Its names and value as `--help` shows them: `-c, --catalog PATH`.
    var synopsis: String {
        (short.map { "\($0), " } ?? "    ") + long + (value.map { " \($0)" } ?? "")
    }

    /// One line of `--help`'s option list.
    var helpLine: String {
        // Padded to the widest option, so no synopsis is cut and the summaries line up.
        let width = OptionSpec.all.map(\.synopsis.count).max() ?? 0
        return "  " + synopsis.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + summary
    }
}
