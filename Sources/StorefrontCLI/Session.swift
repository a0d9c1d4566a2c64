import Foundation
import StoreEngine
import StorefrontUI

/// What a command has to say: one result, as JSON for scripts and as lines for people.
struct Report {
    var json: JSON
    var lines: [String]

    init(json: JSON, _ lines: [String]) {
        self.json = json
        self.lines = lines
    }

    init(json: JSON, _ line: String) {
        self.init(json: json, [line])
    }

    /// What an action did, in the engine's one sentence; `--json` has the command's own members, then
    /// the outcome's `action` (its name) and `summary` (the sentence).
    init(_ outcome: ActionOutcome, _ members: KeyValuePairs<String, JSON?>) {
        self.init(json: .object(members), [TerminalText.sanitized(outcome.sentence)])
        self = saying(outcome)
    }

    /// This report with `outcome`'s `action` and `summary` after its own JSON members.
    func saying(_ outcome: ActionOutcome) -> Report {
        guard case .object(let own) = json else { return self }
        let added = [JSON.Member("action", .string(outcome.name)), JSON.Member("summary", .string(outcome.sentence))]
        return Report(json: .object(own + added), lines)
    }
}

/// One command against an open store: each command returns a ``Report``, printed here.
struct Session {
    let store: Store
    let invocation: Invocation
    let console: Console

    var app: AppFace { store.app }
    var appStore: AppStoreFace { store.appStore }
    var testSession: TestSessionFace { store.testSession }

    /// Runs `command` and prints its report as text, or as JSON with `--json`.
    func run(_ command: Command) async throws {
        // Written as it is read: a history of a million is never held whole.
        if let listing = command.value(TransactionsCommand.self), !listing.pending {
            return try await listTransactions(Page(limit: listing.limit, since: listing.since, after: listing.after))
        }
        guard let report = try await report(for: command) else { return }
        if invocation.json {
            console.out(report.json.serialized())
        } else {
            report.lines.forEach(console.out)
        }
    }

    /// The report of one command, unprinted (scenarios read it). Internal for them.
    func report(for command: Command) async throws -> Report? {
        guard case .run(let command) = command else { return nil }
        return try await command.value.run(in: self)
    }

    /// A product's name as the current storefront shows it, cleaned for the terminal.
    func displayName(_ productID: String) async throws -> String {
        TerminalText.sanitized(try await app.product(id: productID)?.displayName ?? productID)
    }
}

/// `accounts create` named an account that exists (exit 1).
struct AccountExists: NamedFailure {
    /// The account's name.
    var account: String
    var name: String { "accountExists" }
    var description: String { "the account \(account) exists already" }
    var hint: String? { "switch to it with: storefront accounts switch NAME" }
}

/// `verify` found the JWS wanting (exit 1).
struct VerifyFailed: Error {
    var reason: String
}
