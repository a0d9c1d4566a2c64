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

/// How `buy --offer` gives its promotional offer's signature.
public enum OfferSigning: Equatable, Sendable {
    /// `--signature`: a compact JWS, or the legacy `KEY_ID:NONCE:TIMESTAMP:SIGNATURE`.
    case given(PromotionalOfferSignature)
    /// `--sign`: signed now as the app's server would, with the key the store holds.
    case sign(keyID: String?)
}

/// A subcommand and its operands.
public enum Command: Equatable, Sendable {
    /// No subcommand: open the paywall.
    case paywall
    /// A command whose parsed value is its own type (``CommandValue``): its operands and options are
    /// its fields, read in its file. The cases below are the commands not yet moved to it.
    case run(AnyCommand)
    case version
}

/// A command's own parsed value (``CommandValue``), as ``Command/run(_:)`` holds it.
public struct AnyCommand: Equatable, Sendable {
    let value: any CommandValue

    init(_ value: some CommandValue) { self.value = value }

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
    /// The parsed value of a ``CommandValue`` of type `type`, if this is one.
    func value<Value: CommandValue>(_ type: Value.Type) -> Value? {
        if case .run(let command) = self { command.value as? Value } else { nil }
    }

    /// The command that parsed to this value, which says what it needs and runs it;
    /// nil for the paywall and `--version`, which are no command.
    var type: (any StorefrontCommand.Type)? {
        switch self {
        case .paywall, .version: nil
        case .run(let command): Swift.type(of: command.value)
        }
    }
}
