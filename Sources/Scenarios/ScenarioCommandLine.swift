import Foundation
import StoreEngine

/// The store commands a scenario runs, in the command line's own words. The CLI supplies
/// it (`storefront replay`), so the scenario language parses and runs its commands with the
/// CLI's own parser and reports without depending on the CLI.
public protocol ScenarioCommandLine: Sendable {
    /// Whether `name` is one of the command line's commands (a scenario runs only its store commands).
    func isCommand(_ name: String) -> Bool
    /// The long name of the option spelled `name` (`-s` is `--store`); nil when there is none.
    func longOption(_ name: String) -> String?
    /// Checks that the arguments parse as a command line; the error's description says why not.
    func check(_ arguments: [String]) throws
    /// Runs one command line on the store file at `storePath`, opened for it alone as by another
    /// `storefront` process; a failure of the command comes back in ``ScenarioCommandOutput/error``.
    func run(_ arguments: [String], catalog: Catalog, storePath: String,
             now: @escaping @Sendable () -> Date) async throws -> ScenarioCommandOutput
    /// What `storefront` does before it shows the paywall (delivering unfinished transactions); the lines it printed.
    func launch(_ store: Store) async throws -> [String]
    /// A transaction as `--json` prints it: `expect transaction REF FIELD VALUE` names its fields.
    func json(_ transaction: Transaction) -> JSON
    /// Renewal info as `status --json` prints it: `expect renewal GROUP FIELD VALUE` names its fields.
    func json(_ renewalInfo: RenewalInfo) -> JSON
}

/// What one command of a scenario did.
public struct ScenarioCommandOutput: Sendable {
    /// The store it ran on, as the account it named.
    public var store: Store
    /// The lines it printed, standard output and error together.
    public var lines: [String]
    /// Its report, as `--json` would print it; nil when it failed or printed no report.
    public var json: JSON?
    /// How it failed, when it did.
    public var error: ScenarioCommandError?

    public init(store: Store, lines: [String], json: JSON?, error: ScenarioCommandError?) {
        self.store = store
        self.lines = lines
        self.json = json
        self.error = error
    }
}

/// A command's failure as `expect error NAME` matches it: a name (a StoreKit error's case) and the message.
public struct ScenarioCommandError: Sendable, Equatable {
    public var name: String
    public var message: String

    public init(name: String, message: String) {
        self.name = name
        self.message = message
    }
}
