import Foundation
import StoreEngine

/// What the user asked for on the command line.
public struct Invocation: Equatable, Sendable {
    public var catalogPath = "products.json"
    /// Whether `--catalog` named the catalog; otherwise ./products.json, else the one `.storekit` here.
    public var catalogGiven = false
    /// `--store`; nil means `STOREFRONT_STORE` or the default location.
    public var storePath: String?
    /// `--account`; nil means the account last switched to, else ``Store/defaultAccount``.
    public var account: String?
    public var json = false
    /// The TUI's simulated purchase latency in milliseconds (`--latency`).
    public var latency: Int?
    /// `--record FILE`: the paywall writes the tester's actions there as a scenario.
    public var recordPath: String?
    public var command: Command

    public init(command: Command) { self.command = command }
}

/// What the command line asks for: the paywall, the version, or a command.
public enum Command: Equatable, Sendable {
    /// No subcommand: open the paywall.
    case paywall
    /// `--version`.
    case version
    /// A command (``StorefrontCommand``): its type says what it needs and runs it; its operands and
    /// options are its fields, read in its file.
    case run(AnyCommand)
}

/// A command's parsed value (a ``StorefrontCommand``), as ``Command/run(_:)`` holds it.
public struct AnyCommand: Equatable, Sendable {
    let value: any StorefrontCommand

    init(_ value: some StorefrontCommand) { self.value = value }

    public static func == (a: AnyCommand, b: AnyCommand) -> Bool { a.value.isEqual(to: b.value) }
}

/// A command line that does not parse: the message says what and how to fix it (exit 64).
public struct UsageError: Error, Equatable, CustomStringConvertible {
    public var description: String
    /// The command whose usage to show after the message, if known.
    public var command: String?
}

extension UsageError {
    /// The message, the command's usage line when known, and where to read more (exit 64).
    var failure: CommandFailure {
        var lines = ["storefront: \(description)"]
        if let command, let help = CommandHelp.named(command) { lines.append("Usage: storefront [OPTIONS] \(help.usage)") }
        lines.append("Run 'storefront --help' for the commands and options.")
        return CommandFailure(name: ExitCode.usage.name, message: description, lines: lines, code: .usage)
    }
}

extension Command {
    /// The parsed command of type `type`, if this is one.
    func value<Value: StorefrontCommand>(_ type: Value.Type) -> Value? {
        if case .run(let command) = self { command.value as? Value } else { nil }
    }

    /// Whether the command needs the catalog's products (their prices, kinds, groups): the paywall
    /// shows the catalog; every command says for itself.
    var needsCatalog: Bool {
        if case .run(let command) = self { command.value.needsCatalog } else { true }
    }

    /// Whether the command plays the app (which delivers waiting transactions when it starts),
    /// rather than the App Store, a parent, or the tester. The paywall does.
    var actsAsTheApp: Bool {
        if case .run(let command) = self { command.value.actsAsTheApp } else { true }
    }
}
