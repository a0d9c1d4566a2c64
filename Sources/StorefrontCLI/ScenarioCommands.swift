import Foundation
import Scenarios
import StoreEngine
import StorefrontUI

/// Where a replay meets the engine, replaceable by tests: a test double here breaks one
/// rule on purpose and shows that the scenario covering it fails, and how it reads.
struct ScenarioHooks: Sendable {
    /// A store command's report: the CLI's own Session, unless a test replaces a rule.
    var command: @Sendable (Session, Command) async throws -> Report? = { session, command in
        try await session.report(for: command)
    }
    /// The paywall's effects: ``EngineEffects``, unless a test wraps them.
    var effects: ScenarioEffects = { engine in engine.perform }
}

/// The CLI's side of a scenario's store commands: its parser, its command table and its Session.
struct ScenarioCommands: ScenarioCommandLine {
    /// A command's report (``Session/report(for:)``, unless a test replaces a rule).
    var report: @Sendable (Session, Command) async throws -> Report?

    func isCommand(_ name: String) -> Bool { CommandHelp.named(name) != nil }

    func longOption(_ name: String) -> String? { OptionSpec.named(name)?.long }

    func check(_ arguments: [String]) throws { _ = try Invocation.parse(arguments) }

    func run(_ arguments: [String], catalog: Catalog, storePath: String,
             now: @escaping @Sendable () -> Date) async throws -> ScenarioCommandOutput {
        let invocation = try Invocation.parse(arguments)
        let store = try Store(catalog: catalog, path: storePath, account: invocation.account, now: now)
        let output = LineCollector()
        let session = Session(store: store, invocation: invocation,
                              console: Console(out: output.append, err: output.append, outData: { _ in }))
        var reported: JSON?
        var failure: ScenarioCommandError?
        do {
            try await store.appStore.processRenewals()
            if invocation.command.actsAsTheApp { try await session.deliverUnfinished() }
            if let report = try await report(session, invocation.command) {
                report.lines.forEach(output.append)
                reported = report.json
            }
        } catch let error as any NamedFailure {
            failure = ScenarioCommandError(name: error.name, message: error.description)
        }
        return ScenarioCommandOutput(store: store, lines: output.all, json: reported, error: failure)
    }

    func json(_ transaction: Transaction) -> JSON { transaction.json }

    func json(_ renewalInfo: RenewalInfo) -> JSON { renewalInfo.json }

    func launch(_ store: Store) async throws -> [String] {
        let output = LineCollector()
        let session = Session(store: store, invocation: Invocation(command: .paywall),
                              console: Console(out: output.append, err: output.append, outData: { _ in }))
        try await store.appStore.processRenewals()
        try await session.deliverUnfinished()
        return output.all
    }
}

extension CLI {
    /// The command line scenarios run their store commands on: this CLI's parser, table and commands.
    public static var scenarioCommandLine: any ScenarioCommandLine {
        ScenarioCommands(report: { session, command in try await session.report(for: command) })
    }
}
