import Foundation
@testable import Scenarios
import StoreEngine
import StorefrontCLI
import TestSupport
import StorefrontUI
import Testing

/// A test double of the command line: it checks nothing, prints what it ran, and fails every
/// `buy` with purchaseNotAllowed, so the runner's handling of a command's outcome shows alone.
struct FailingBuyCommandLine: ScenarioCommandLine {
    func isCommand(_ name: String) -> Bool { true }
    func longOption(_ name: String) -> String? { nil }
    func check(_ arguments: [String]) throws {}

    func run(_ arguments: [String], catalog: Catalog, storePath: String,
             now: @escaping @Sendable () -> Date) async throws -> ScenarioCommandOutput {
        let store = try Store(catalog: catalog, path: storePath, now: now)
        let error = arguments.first == "buy" ? ScenarioCommandError(name: "purchaseNotAllowed", message: "Purchases are not allowed.") : nil
        return ScenarioCommandOutput(store: store, lines: ["ran " + arguments.joined(separator: " ")], json: nil, error: error)
    }

    func launch(_ store: Store) async throws -> [String] { ["launched"] }
    func json(_ transaction: Transaction) -> JSON { .object([]) }
    func json(_ renewalInfo: RenewalInfo) -> JSON { .object([]) }
}

@Suite("Scenario run")
struct ScenarioRunTests {
    static let empty = Catalog(paywall: Paywall(), defaultStorefront: "USA", storefronts: [], products: [], subscriptionGroups: [])

    /// `expect error` and `expect output` read what the command line reported; a failure that no
    /// `expect error` follows fails its step and skips the rest.
    @Test func theCommandLinesOutcomeIsWhatExpectationsRead() async throws {
        let scenario = try Scenario.parse("""
            catalog products.json
            buy x
            expect error purchaseNotAllowed
            clock
            expect output "ran clock"
            expect error none
            buy y
            expect error networkError
            buy z
            clock
            """, path: "/tmp/run.scenario", commands: FailingBuyCommandLine())
        let run = try ScenarioRun(scenario: scenario, catalog: Self.empty, commands: FailingBuyCommandLine())
        let result = await run.run(keep: false)
        #expect(result.steps.map(\.status) == [.passed, .passed, .passed, .passed, .passed, .passed, .failed, .failed, .skipped])
        #expect(result.steps[6].expected == "error networkError" && result.steps[6].found == "Purchases are not allowed.")
        #expect(result.steps[7].expected == "the command to succeed")
        #expect(!result.passed)
    }

    /// The parser the command line gives decides which store commands a scenario may hold.
    @Test func theCommandLinesParserChecksEachCommand() throws {
        struct Refusing: ScenarioCommandLine {
            struct Refused: Error, CustomStringConvertible { var description: String }
            func isCommand(_ name: String) -> Bool { true }
            func longOption(_ name: String) -> String? { name == "-s" ? "--store" : nil }
            func check(_ arguments: [String]) throws { if arguments.contains("bad") { throw Refused(description: "no \"bad\" here") } }
            func run(_ arguments: [String], catalog: Catalog, storePath: String,
                     now: @escaping @Sendable () -> Date) async throws -> ScenarioCommandOutput { fatalError("not run") }
            func launch(_ store: Store) async throws -> [String] { [] }
            func json(_ transaction: Transaction) -> JSON { .object([]) }
            func json(_ renewalInfo: RenewalInfo) -> JSON { .object([]) }
        }
        #expect(throws: ScenarioSyntaxError.self) { try Scenario.parse("catalog p.json\nbuy bad\n", path: "a.scenario", commands: Refusing()) }
        do {
            _ = try Scenario.parse("catalog p.json\nbuy bad\n", path: "a.scenario", commands: Refusing())
        } catch {
            #expect(error.line == 2 && error.column == 5 && error.message == "no \"bad\" here", "\(error)")
        }
        do {
            _ = try Scenario.parse("catalog p.json\nbuy x -s /tmp/s\n", path: "a.scenario", commands: Refusing())
            Issue.record("-s was allowed")
        } catch {
            #expect(error.message.contains("--store is not allowed"), "\(error)")
        }
        #expect(try Scenario.parse("catalog p.json\nbuy good\n", path: "a.scenario", commands: Refusing()).steps.count == 1)
    }
}

/// `expect` reads what the paywall shows, from the engine's standing, on the CLI's real commands.
@Suite("Scenario expect")
struct ScenarioExpectTests {
    /// Issue 26: after `clock advance P1W` renewed a trial, `expect screen "Renews"` passed while
    /// `expect owned` found nothing (it read the app's cache before the renewal was delivered).
    @Test func aRenewedTrialIsOwnedAsTheScreenSaysBeforeTheScreenIsOpened() async throws {
        let scenario = try Scenario.parse("""
            catalog products.json
            start 2026-01-05T09:00:00Z
            buy barcode_month_subscription
            clock advance P1W
            expect owned barcode_month_subscription
            expect screen "Renews Feb 12, 2026"
            expect owned barcode_month_subscription
            """, path: Repository.root.appendingPathComponent("renewed.scenario").path, commands: CLI.scenarioCommandLine)
        let catalog = try Catalog.load(contentsOf: Repository.catalog)
        let result = await (try ScenarioRun(scenario: scenario, catalog: catalog, commands: CLI.scenarioCommandLine)).run(keep: false)
        #expect(result.steps.map(\.status) == [.passed, .passed, .passed, .passed, .passed],
                "\(result.steps.map { "\($0.line) \($0.status) \($0.expected ?? "") \($0.found ?? "")" })")
    }
}
