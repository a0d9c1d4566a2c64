import StoreEngine

/// Help for one subcommand: its usage line, a summary for the command list,
/// and the details `storefront COMMAND --help` prints.
///
/// Each command's type (``StorefrontCommand``) holds its entry; together they are the command
/// table: the parser accepts only the commands listed, with the options each lists, and the
/// completions and man page are made from it.
struct CommandHelp {
    var name: String
    var usage: String
    var summary: String
    var details: String
    /// The options this command takes besides the global ones (declared in its file, or in
    /// `SharedOptions.swift` when several commands take one).
    var options: [OptionSpec] = []
    /// What each operand is, by position, for the completions.
    var operands: [ValueKind] = []
    /// A helper for the completion scripts: parsed, but not listed in help, completions or the man page.
    var hidden = false
    /// False for a command whose output is a document of its own (help, a roff page, a shell
    /// script, a PEM key): `--json` is refused as a usage error, in the one JSON shape, not ignored.
    var printsJSON = true

    /// The command table, in the order of ``StorefrontCommands/all``: each command's own entry.
    static let all: [CommandHelp] = StorefrontCommands.all.map { $0.help }

    /// The settings column of `settings --help`: the longest name and a space, so no name is cut.
    static let settingNameWidth = SettingDefinition.all.map(\.name.count).max()! + 1

    static func named(_ name: String) -> CommandHelp? {
        all.first { $0.name == name }
    }

    /// `storefront --help`.
    static func overview(defaultStore: String) -> String {
        let width = visible.map(\.name.count).max() ?? 0
        let commands = visible.map { "  \($0.name.padding(toLength: width + 2, withPad: " ", startingAt: 0))\($0.summary)" }
        let global = OptionSpec.all.filter(\.global).map(\.helpLine)
        let own = OptionSpec.all.filter { !$0.global }.map { option in
            option.helpLine + " (" + visible.filter { $0.optionNames.contains(option.long) }.map(\.name).joined(separator: ", ") + ")"
        }
        return """
            storefront — a StoreKit simulator for the terminal

            Usage:
              storefront [OPTIONS]                 open the paywall (needs a terminal)
              storefront [OPTIONS] COMMAND [--json]

            Commands:
            \(commands.joined(separator: "\n"))

            Options:
            \(global.joined(separator: "\n"))

            Options of some commands (storefront COMMAND --help):
            \(own.joined(separator: "\n"))

            The store file: --store, else $STOREFRONT_STORE, else
              \(defaultStore)

            Exit codes: 0 done, 1 the operation failed, 2 no terminal for the paywall,
            64 usage, 65 bad catalog, 66 catalog missing, 74 store file unusable,
            75 store file busy: another process held it too long, nothing was done, try again
            (doctor: 1 problems found, 74 cannot be read).
            """
    }

    /// `storefront COMMAND --help`.
    var text: String {
        "Usage: storefront [OPTIONS] \(usage)\n\n\(summary).\n\n\(details)\n"
    }
}
