import Foundation
import StoreEngine

/// One command of `storefront` (a word on the command line: `buy`, `settings`, `serve`, …) with
/// everything about it side by side: its entry in the command table (name, usage, one-line
/// summary, details, options, operands), its parsed value (the type itself: its operands and
/// options are its fields), whether it needs the catalog, whether it plays the app, and how it runs.
///
/// The command table (`--help`, the man page, the shell completions, and the parser's list of
/// commands and options) is ``StorefrontCommands/all``. A new command is a type conforming to this
/// protocol, in its family's file, and one line in ``StorefrontCommands/all``; an option is declared and
/// read in its command's file alone.
protocol StorefrontCommand: Sendable, Equatable {
    /// The command's entry in the command table.
    static var help: CommandHelp { get }
    /// Reads the operands and options after the command's name.
    static func parse(_ line: CommandArguments) throws(UsageError) -> Self
    /// Whether it needs the catalog; without one it runs on an absent catalog, naming products by
    /// id. Default: no.
    var needsCatalog: Bool { get }
    /// Whether it plays the app, which delivers waiting transactions when it starts, rather than
    /// the App Store, a parent or the tester. Default: no.
    var actsAsTheApp: Bool { get }
    /// Runs before any catalog or store is opened (help, tools, catalog files, scenarios, the store
    /// file's checkup) and returns its exit code; nil when it runs on a store. Default: nil.
    func runAlone(_ context: CommandContext) async -> ExitCode?
    /// Runs on an open store: its report, which prints as text or as JSON with `--json`; nil when
    /// it printed its output itself. Default: nothing to report.
    func run(in session: Session) async throws -> Report?
}

extension StorefrontCommand {
    var needsCatalog: Bool { false }
    var actsAsTheApp: Bool { false }
    func runAlone(_ context: CommandContext) async -> ExitCode? { nil }
    func run(in session: Session) async throws -> Report? { nil }

    /// Whether `other` is the same command with the same operands and options.
    func isEqual(to other: any StorefrontCommand) -> Bool { (other as? Self) == self }
}

/// What a command that runs alone has to work with.
struct CommandContext {
    var invocation: Invocation
    var console: Console
    /// Where the catalog and the store file are (the engine's one rule).
    var location: StoreLocation
    /// The store file when neither `--store` nor `STOREFRONT_STORE` names one (help shows it).
    var defaultStore: String
}

/// The command table: every command, in the order `--help`, the man page and the completions list them.
enum StorefrontCommands {
    static let all: [any StorefrontCommand.Type] = [
        ProductsCommand.self, BuyCommand.self, RestoreCommand.self, TransactionsCommand.self,
        ApproveCommand.self, DeclineCommand.self, ResolveCommand.self, RefundCommand.self, DeleteTransactionCommand.self,
        AccountsCommand.self, EntitlementsCommand.self, ConsumeCommand.self, ResetCommand.self, SettingsCommand.self,
        ClockCommand.self, StatusCommand.self, AutoRenewCommand.self, ExpireCommand.self, RenewCommand.self,
        LogCommand.self, KeyCommand.self,
        AppTransactionCommand.self, ReceiptCommand.self, OfferKeysCommand.self, OfferCommand.self, RedeemCommand.self,
        RefundRequestCommand.self, PriceIncreaseCommand.self, MessagesCommand.self, MessageCommand.self,
        CatalogCommand.self, DoctorCommand.self, StoreCopyCommand.self, VerifyCommand.self, ReplayCommand.self,
        CompletionsCommand.self, ManCommand.self, ServeCommand.self, NotificationsCommand.self,
        HelpCommand.self, CompleteCommand.self,
    ]

    /// The command named `name`.
    static func named(_ name: String) -> (any StorefrontCommand.Type)? {
        all.first { $0.help.name == name }
    }
}

/// A command's operands and the options given, as the parser read them, for its ``StorefrontCommand/parse(_:)``.
struct CommandArguments {
    /// The command's name and its operands after it.
    var name: String
    var args: [String]
    /// The command's entry in the table: the options it takes.
    var entry: CommandHelp
    /// The command's own options given, by long name: the texts given, in order ("" for a flag).
    /// The command reads them with ``value(_:)``, ``values(_:)`` and ``has(_:)``.
    var given: [String: [String]] = [:]

    init(name: String, entry: CommandHelp) {
        self.name = name
        self.args = []
        self.entry = entry
    }

    /// Exactly `count` operands, else a usage error saying `what` is needed.
    func expect(_ count: Int, _ what: String) throws(UsageError) {
        guard args.count == count else {
            let problem = args.count < count ? "needs \(what)" : "takes \(count == 0 ? "no operands" : what), not \"\(args.joined(separator: " "))\""
            throw UsageError(description: "\(name) \(problem)", command: name)
        }
    }

    /// Only the options the table lists for this command, less those this form of it refuses
    /// (settings takes --once with set only): "settings takes no --once".
    func allow(refusing: [OptionSpec] = []) throws(UsageError) {
        let allowed = entry.optionNames.filter { name in !refusing.contains { $0.long == name } }
        if let option = OptionSpec.all.first(where: { !$0.global && given[$0.long] != nil && !allowed.contains($0.long) }) {
            throw UsageError(description: "\(name) takes no \(option.long)", command: name)
        }
    }

    /// The one operand, a transaction id.
    func transactionID() throws(UsageError) -> Int64 { try id(of: "transaction") }

    /// The one operand, a pending request's id (Ask to Buy, an interrupted purchase): a request, in
    /// Apple's word, is not a transaction until it completes.
    func requestID() throws(UsageError) -> Int64 { try id(of: "request") }

    private func id(of what: String) throws(UsageError) -> Int64 {
        try expect(1, "a \(what.uppercased())_ID")
        guard let id = Int64(args[0]), id > 0 else {
            throw UsageError(description: "\(name) needs a \(what) id (a whole number), not \"\(args[0])\"", command: name)
        }
        return id
    }
}
