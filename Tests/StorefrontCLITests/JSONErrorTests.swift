import Foundation
import StoreEngine
@testable import StorefrontCLI
import Synchronization
import Testing

/// One stream's lines, written by a command run in process.
private final class Lines: Sendable {
    private let lines = Mutex<[String]>([])
    func append(_ line: String) { lines.withLock { $0.append(line) } }
    var text: String { lines.withLock { $0.joined(separator: "\n") } }
}

/// Every failure with `--json` prints the README's one shape on standard output,
/// `{"error": {"name", "domain"?, "skErrorCode"?, "message"}}`, and exits as the text failure does.
@Suite("CLI --json errors")
struct JSONErrorTests {
    /// A bad line for each command that gets past the parser where one can (an id, a value or a
    /// file the store does not know); a command not listed gets an option no command has.
    static let badArguments: [String: [String]] = [
        "products": ["products", "extra"],
        "buy": ["buy", "no.such.product"],
        "restore": ["restore", "extra"],
        "transactions": ["transactions", "--limit", "0"],
        "approve": ["approve", "999"],
        "decline": ["decline", "999"],
        "resolve": ["resolve", "999"],
        "refund": ["refund", "999"],
        "delete-transaction": ["delete-transaction", "999"],
        "accounts": ["accounts", "family", "add", "nofamily", "nobody"],
        "entitlements": ["entitlements", "extra"],
        "consume": ["consume", "no.such.product"],
        "reset": ["reset", "everything"],
        "settings": ["settings", "set", "bogus", "1"],
        "clock": ["clock", "advance", "soon"],
        "status": ["status", "a", "b"],
        "auto-renew": ["auto-renew", "no.such.group", "on"],
        "expire": ["expire", "no.such.group"],
        "renew": ["renew", "no.such.group"],
        "log": ["log", "--limit", "0"],
        "key": ["key", "import"],
        "verify": ["verify", "not.a.jws"],
        "serve": ["serve", "keys", "remove", "no-such-key"],
        "notifications": ["notifications", "extra"],
        "help": ["help", "no-such-command"],
        "app-transaction": ["app-transaction", "extra"],
        "receipt": ["receipt", "extra"],
        "offer-keys": ["offer-keys", "add", "KEY", "/no/such/key.p8"],
        "offer": ["offer", "sign", "no.such.product", "no-offer"],
        "redeem": ["redeem", "NO-SUCH-CODE"],
        "price-increase": ["price-increase", "no.such.product", "1.99"],
        "messages": ["messages", "show", "999"],
        "message": ["message", "send", "bogus"],
        "refund-request": ["refund-request", "begin", "999"],
        "catalog": ["catalog", "check", "/no/such/catalog.json"],
        "doctor": ["doctor", "extra"],
        "replay": ["replay", "/no/such/flow.scenario"],
        "completions": ["completions", "tcsh"],
        "man": ["man", "extra"],
        "__complete": ["__complete", "everything"],
    ]

    /// What one in-process run printed, and its exit code.
    struct Ran: CustomStringConvertible {
        var code: ExitCode
        var out: String
        var err: String
        var description: String { "exit \(code.rawValue)\n--- stdout ---\n\(out)\n--- stderr ---\n\(err)" }
    }

    /// Runs the command line in process (as the binary's main does), on the sandbox's store and the demo catalog.
    static func run(_ arguments: [String], in sandbox: Sandbox) async -> Ran {
        let out = Lines(), err = Lines()
        let console = Console(out: { out.append($0) }, err: { err.append($0) }, outData: { _ in })
        let code = await CLI.run(["--catalog", Binary.catalog, "--store", sandbox.store] + arguments,
                                 environment: ["HOME": sandbox.home], console: console)
        return Ran(code: code, out: out.text, err: err.text)
    }

    @Test("a bad argument with --json prints the one error shape, with the text failure's exit code",
          arguments: CommandHelp.all.map(\.name))
    func badArgumentPrintsTheErrorShape(command: String) async throws {
        let arguments = Self.badArguments[command] ?? [command, "--no-such-option"]
        let sandbox = try Sandbox()
        let text = await Self.run(arguments, in: sandbox)
        let json = await Self.run(arguments + ["--json"], in: sandbox)
        #expect(text.code != .success, "\(arguments) did not fail:\n\(text)")
        #expect(json.code == text.code, "--json changed the exit code:\n\(text)\n\(json)")
        #expect(!json.err.isEmpty, "the failure is still said on standard error:\n\(json)")
        let value = try JSONSerialization.jsonObject(with: Data(json.out.utf8))
        let document = try #require(value as? [String: Any], "stdout is not one JSON object:\n\(json)")
        let error = try #require(document["error"] as? [String: Any], "no error object:\n\(json)")
        #expect((error["name"] as? String)?.isEmpty == false, "\(json)")
        #expect((error["message"] as? String)?.isEmpty == false, "\(json)")
        for key in error.keys { #expect(["name", "domain", "skErrorCode", "message"].contains(key), "\(key) in \(json)") }
        if let code = error["skErrorCode"] { #expect(code is Int, "\(json)") }
    }

    /// A good line of each command whose output is a document of its own.
    static let documentCommands: [String: [String]] = [
        "help": ["help"], "completions": ["completions", "bash"], "man": ["man"], "key": ["key", "export"],
        "__complete": ["__complete", "products"],
    ]

    /// `--json` was ignored by these: the text came out as if it had not been given.
    @Test("a command with no JSON form refuses --json as a usage error in the one shape, never ignores it",
          arguments: CommandHelp.all.filter { !$0.printsJSON }.map(\.name))
    func commandsWithoutJSONSaySo(command: String) async throws {
        let arguments = try #require(Self.documentCommands[command], "a good line for \(command)")
        let sandbox = try Sandbox()
        #expect(await Self.run(arguments, in: sandbox).code == .success)
        let json = await Self.run(arguments + ["--json"], in: sandbox)
        #expect(json.code == .usage, "\(json)")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(json.out.utf8)) as? [String: Any], "\(json)")
        let error = try #require(document["error"] as? [String: Any], "\(json)")
        #expect(error["name"] as? String == "usage" && (error["message"] as? String)?.contains("no JSON form") == true, "\(json)")
        // `--help --json` too.
        #expect(await Self.run(["products", "--help", "--json"], in: sandbox).code == .usage)
    }

    /// The case the issue names: a setting that does not exist printed no JSON at all.
    @Test func anUnknownSettingIsAUsageErrorInJSON() async throws {
        let sandbox = try Sandbox()
        let run = try await sandbox.storefront(["settings", "set", "bogus", "1", "--json"])
        run.expect(exit: 64)
        let error = try #require(try run.jsonObject()["error"] as? [String: Any], "\(run)")
        #expect(error["name"] as? String == "usage")
        #expect((error["message"] as? String)?.contains("bogus") == true, "\(run)")
    }

    /// A StoreKit error keeps its domain and SKError code; a refund request's error has the same shape.
    @Test func storeErrorsCarryTheirDomainAndCode() async throws {
        let sandbox = try Sandbox()
        try await sandbox.storefront(["settings", "set", "canMakePayments", "false"]).expect(exit: 0)
        let buy = try await sandbox.storefront(["buy", "com.razeware.razefaces.swiftshopping", "--json"])
        buy.expect(exit: 1)
        let error = try #require(try buy.jsonObject()["error"] as? [String: Any], "\(buy)")
        #expect(error["name"] as? String == "purchaseNotAllowed" && error["skErrorCode"] as? Int == 4, "\(buy)")
        #expect(error["domain"] as? String == "Product.PurchaseError", "\(buy)")
    }

    /// A scenario's store command fails with the name `--json` gives the same failure: a family
    /// error was `family` in a scenario and `familyError` in `--json`.
    @Test("a scenario names a command's error as --json does",
          arguments: [["accounts", "family", "add", "nofamily", "nobody"], ["accounts", "create", "ann"],
                      ["settings", "set", "bogus", "1"], ["refund-request", "begin", "999"], ["buy", "no.such.product"]])
    func scenarioErrorNamesAreTheCLIs(arguments: [String]) async throws {
        // Each line twice in each place: the second run fails (`accounts create` of an account made by the first).
        let sandbox = try Sandbox()
        _ = await Self.run(arguments, in: sandbox)
        let json = await Self.run(arguments + ["--json"], in: sandbox)
        let document = try #require(try JSONSerialization.jsonObject(with: Data(json.out.utf8)) as? [String: Any], "\(json)")
        let cliName = try #require((document["error"] as? [String: Any])?["name"] as? String, "\(json)")
        let catalog = try Catalog.load(contentsOf: Binary.catalog)
        let commands = ScenarioCommands(report: ScenarioHooks().command)
        _ = try await commands.run(arguments, catalog: catalog, storePath: sandbox.path("scenario.sqlite"), now: { Date() })
        let scenario = try await commands.run(arguments, catalog: catalog, storePath: sandbox.path("scenario.sqlite"), now: { Date() })
        #expect(scenario.error?.name == cliName, "the scenario says \(scenario.error?.name ?? "no error"); --json says \(cliName)")
    }
}
