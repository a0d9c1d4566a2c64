import Foundation
import StoreEngine

extension Invocation {
    /// Parses the arguments after the program name. Options may come before or
    /// after the subcommand, as `--name value` or `--name=value`.
    public static func parse(_ arguments: [String]) throws(UsageError) -> Invocation {
        var invocation = Invocation(command: .paywall)
        var operands: [String] = []
        var wantsHelp = false
        // The command's own options given, as text, for its type to read; its name and operands follow.
        var line = CommandArguments(name: "", entry: CommandHelp(name: "", usage: "", summary: "", details: ""))
        var rest = arguments[...]

        func value(for option: String, inline: String?) throws(UsageError) -> String {
            if let inline { return inline }
            guard let next = rest.first else {
                throw UsageError(description: "\(option) needs a value", command: operands.first)
            }
            // `--store --json` is a value forgotten, not a file named `--json` (and no JSON);
            // a value that begins so is written `\(option)=--json`. A negative number is a value.
            if next.hasPrefix("-"), next.count > 1, Double(next) == nil {
                throw UsageError(description: "\(option) needs a value, and \(next) is an option (for a value beginning with -, write \(option)=\(next))",
                                 command: operands.first)
            }
            rest.removeFirst()
            return next
        }
        func number(_ text: String, for option: String, minimum: Int) throws(UsageError) -> Int {
            guard let number = Int(text), number >= minimum else {
                throw UsageError(description: "\(option) needs a whole number of at least \(minimum), not \"\(text)\"",
                                 command: operands.first)
            }
            return number
        }

        while let argument = rest.popFirst() {
            if argument == "--" {
                operands.append(contentsOf: rest)
                break
            }
            guard argument.hasPrefix("-"), argument.count > 1 else {
                operands.append(argument)
                continue
            }
            // `--name=` has an empty value; it must not take the next argument as its value.
            let parts = argument.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
            let option = parts[0]
            let inline = parts.count > 1 ? parts[1] : nil
            // Only the table's options exist: an option cannot be parsed without being documented.
            guard let spec = OptionSpec.named(option) else {
                throw UsageError(description: "unknown option \(option)", command: operands.first)
            }
            if let inline, spec.value == nil {
                throw UsageError(description: "\(option) takes no value, not \"\(inline)\"", command: operands.first)
            }
            switch spec.long {
            case "--catalog":
                let path = try value(for: option, inline: inline)
                guard !path.isEmpty else { throw UsageError(description: "--catalog needs a path", command: nil) }
                invocation.catalogPath = path
                invocation.catalogGiven = true
            case "--store":
                // An empty path would make SQLite open a temporary database that vanishes on exit.
                let path = try value(for: option, inline: inline)
                guard !path.isEmpty else { throw UsageError(description: "--store needs a path", command: nil) }
                invocation.storePath = path
            case "--account":
                let name = try value(for: option, inline: inline)
                guard !name.isEmpty else { throw UsageError(description: "--account needs a name", command: nil) }
                invocation.account = name
            case "--json": invocation.json = true
            case "--latency":
                invocation.latency = try number(try value(for: option, inline: inline), for: option, minimum: 0)
            case "--record":
                let path = try value(for: option, inline: inline)
                guard !path.isEmpty else { throw UsageError(description: "--record needs a file", command: nil) }
                invocation.recordPath = path
            case "--help": wantsHelp = true
            case "--version": invocation.command = .version; return invocation
            default:
                // A command's own option: its command reads the text (see `Option`), once the command is known.
                line.given[spec.long, default: []].append(spec.value == nil ? "" : try value(for: option, inline: inline))
            }
        }

        guard let name = operands.first else {
            invocation.command = wantsHelp ? .run(AnyCommand(HelpCommand())) : .paywall
            return invocation
        }
        let args = Array(operands.dropFirst())
        if wantsHelp || name == "help" {
            let topic = name == "help" ? args.first : name
            if let topic, CommandHelp.named(topic) == nil {
                throw UsageError(description: "no command \"\(topic)\"", command: nil)
            }
            if invocation.json { throw Self.noJSONForm("help", topic: topic) }
            invocation.command = .run(AnyCommand(HelpCommand(topic: topic)))
            return invocation
        }

        // The table says which commands exist; each command's type reads its own operands.
        guard let type = StorefrontCommands.named(name) else {
            throw UsageError(description: "no command \"\(name)\"", command: nil)
        }
        if invocation.json, !type.help.printsJSON { throw Self.noJSONForm(name, topic: name) }
        line.name = name
        line.args = args
        line.entry = type.help
        invocation.command = .run(AnyCommand(try type.parse(line)))
        return invocation
    }

    /// `--json` given to a command with no JSON form: said, in the one JSON shape, not ignored.
    static func noJSONForm(_ name: String, topic: String?) -> UsageError {
        UsageError(description: "\(name) has no JSON form (its output is a document of its own): run it without --json",
                   command: topic)
    }

    /// An ISO-8601 date (midnight UTC) or date and time, as `--since` takes it.
    static func date(_ text: String) -> Date? {
        if let date = try? Date(text, strategy: .iso8601) { return date }
        if let date = try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)) { return date }
        return try? Date(text, strategy: Date.ISO8601FormatStyle().year().month().day())
    }
}
