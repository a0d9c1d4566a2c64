import Foundation
@testable import StorefrontCLI
import Testing

/// Issue 31's command-line friction: one catalog rule for every command that reads products,
/// pending purchases called requests, exit 75 in `--help`, `clock advance` counting its renewals.
@Suite("Catalog rule (process)")
struct CatalogRuleTests {
    /// The id of the account's one pending request, as `transactions --pending --json` lists it.
    func pendingID(_ sandbox: Sandbox) async throws -> Int {
        let run = try await sandbox.storefront("transactions", "--pending", "--json")
        run.expect(exit: 0)
        let requests = try run.jsonObject().objects("requests")
        return try #require(requests.first?["id"] as? Int, "no pending request:\n\(run)")
    }

    @Test("approve and resolve in a folder with no catalog use the one this store file last ran with, as decline runs")
    func approveAndResolveAnywhere() async throws {
        let sandbox = try Sandbox()
        // The paywall's terminal: the repository's catalog (named here), Ask to Buy on, a purchase pending.
        try await sandbox.storefront("settings", "set", "askToBuy", "true").expect(exit: 0)
        try await sandbox.storefront("buy", "com.razeware.razefaces.iphonerage").expect(exit: 0)
        let asked = try await pendingID(sandbox)
        // A second terminal, in a folder with no products.json: no --catalog.
        #expect(!FileManager.default.fileExists(atPath: sandbox.path("products.json")))
        let approve = try await sandbox.run(["--store", sandbox.store, "approve", String(asked)])
        approve.expect(exit: 0)
        #expect(approve.stdout.contains("Approved"), "\(approve)")

        try await sandbox.storefront("settings", "set", "askToBuy", "false").expect(exit: 0)
        try await sandbox.storefront("settings", "set", "interruptedPurchases", "true").expect(exit: 0)
        try await sandbox.storefront("buy", "com.razeware.razefaces.nightlyrage").expect(exit: 0)
        let interrupted = try await pendingID(sandbox)
        let resolve = try await sandbox.run(["--store", sandbox.store, "resolve", String(interrupted)])
        resolve.expect(exit: 0)
        #expect(resolve.stdout.contains("Resolved"), "\(resolve)")
    }

    @Test("a store file that never ran with a catalog still says how to give one (66)")
    func noCatalogEver() async throws {
        let sandbox = try Sandbox()
        let run = try await sandbox.run(["--store", sandbox.store, "approve", "5"])
        run.expect(exit: 66)
        #expect(run.stderr.contains("else the one this store file last ran with"), "\(run)")
    }

    @Test("a catalog named with --catalog wins over the one remembered")
    func namedWins() async throws {
        let sandbox = try Sandbox()
        try await sandbox.storefront("products").expect(exit: 0)
        let other = try sandbox.write("one.json", """
            {"products": [{"id": "only.one", "type": "nonConsumable", "displayName": "Only One", "price": "1.99"}]}
            """)
        let named = try await sandbox.storefront(["products", "--json"], catalog: other)
        named.expect(exit: 0)
        #expect(named.stdout.contains("only.one") && !named.stdout.contains("iphonerage"), "\(named)")
        // And it is the one remembered now.
        let remembered = try await sandbox.run(["--store", sandbox.store, "products", "--json"])
        remembered.expect(exit: 0)
        #expect(remembered.stdout.contains("only.one"), "\(remembered)")
    }
}

@Suite("Command-line words and codes")
struct CommandLineWordsTests {
    @Test("approve, decline and resolve take a REQUEST_ID: a pending purchase is a request, not a transaction")
    func requestID() throws {
        for command in ["approve", "decline", "resolve"] {
            let help = try #require(CommandHelp.all.first { $0.name == command })
            #expect(help.usage == "\(command) REQUEST_ID [--json]")
            #expect(expectUsageError([command])?.description.contains("REQUEST_ID") == true)
            #expect(expectUsageError([command, "x"])?.description.contains("request id") == true)
        }
        #expect(expectUsageError(["refund"])?.description.contains("TRANSACTION_ID") == true, "a refund takes a transaction")
    }

    @Test("--help names every exit code, 75 (store file busy) among them")
    func exitCodesInHelp() async throws {
        let sandbox = try Sandbox()
        let help = await JSONErrorTests.run(["--help"], in: sandbox)
        #expect(help.code == .success)
        let codes = help.out.components(separatedBy: "Exit codes:").last ?? ""
        for code in ExitCode.allCases {
            #expect(codes.contains("\(code.rawValue) "), "--help leaves out exit \(code.rawValue)")
        }
        #expect(codes.contains("75 store file busy"))
    }
}

@Suite("clock advance (in process)")
struct ClockAdvanceReportTests {
    @Test("clock advance says how many renewals it made, in text and in --json")
    func renewalsMade() async throws {
        let sandbox = try Sandbox()
        #expect(await JSONErrorTests.run(["buy", "barcode_year_subscription"], in: sandbox).code == .success)
        let text = await JSONErrorTests.run(["clock", "advance", "P25M"], in: sandbox)
        #expect(text.code == .success)
        #expect(text.out.contains("2 renewals made."), "\(text)")
        let json = await JSONErrorTests.run(["clock", "advance", "P1Y", "--json"], in: sandbox)
        let document = try #require(try JSONSerialization.jsonObject(with: Data(json.out.utf8)) as? [String: Any], "\(json)")
        #expect(document["renewals"] as? Int == 1, "\(json)")
        let none = await JSONErrorTests.run(["clock", "advance", "P1D"], in: sandbox)
        #expect(none.out.contains("No renewal was due by then."), "\(none)")
    }

    /// A renewal that was due and failed is not "no renewal was due": the engine's outcome says
    /// it failed (billing retry), then that the subscription expired when the retry ran out.
    @Test("with billing problems on, clock advance says the renewal failed, then that the subscription expired")
    func failedRenewalsAreSaid() async throws {
        let sandbox = try Sandbox()
        #expect(await JSONErrorTests.run(["buy", "barcode_year_subscription"], in: sandbox).code == .success)
        #expect(await JSONErrorTests.run(["settings", "set", "billingIssues", "true"], in: sandbox).code == .success)
        let failed = await JSONErrorTests.run(["clock", "advance", "P13M", "--json"], in: sandbox)
        let document = try #require(try JSONSerialization.jsonObject(with: Data(failed.out.utf8)) as? [String: Any], "\(failed)")
        #expect(document["renewals"] as? Int == 0 && document["failedRenewals"] as? Int == 1, "\(failed)")
        let expired = await JSONErrorTests.run(["clock", "advance", "P3M"], in: sandbox)
        #expect(expired.out.contains("1 subscription expired."), "\(expired)")
        #expect(!expired.out.contains("No renewal was due"), "\(expired)")
    }
}


@Suite("Catalog notes (in process)")
struct CatalogNotesCommandTests {
    /// Runs the command line in process on `catalog`; what it printed, out and err.
    func run(_ arguments: [String], catalog: String, in sandbox: Sandbox) async -> (ExitCode, [String], [String]) {
        let out = Printed(), err = Printed()
        let console = Console(out: out.console.out, err: err.console.out, outData: { _ in })
        let code = await CLI.run(["--catalog", catalog, "--store", sandbox.store] + arguments,
                                 environment: ["HOME": sandbox.home], console: console)
        return (code, out.text.split(separator: "\n").map(String.init), err.text.split(separator: "\n").map(String.init))
    }

    @Test("catalog check summarises a .storekit file's notes once; other commands say so in one line")
    func summarisedOnce() async throws {
        let sandbox = try Sandbox()
        let file = sandbox.path("Products.storekit")
        try FileManager.default.copyItem(atPath: Repository.root.appendingPathComponent("Tests/Fuzz/corpus/storekit-v3.storekit").path,
                                         toPath: file)
        let (code, out, _) = await run(["catalog", "check", file], catalog: file, in: sandbox)
        #expect(code == .success)
        let headings = out.filter { $0.hasPrefix("Notes: ") }
        #expect(headings == ["Notes: 3 (what reading the file repaired or ignored; the catalog works as read)"], "\(out)")
        let items = out.filter { $0.hasPrefix("  - ") }
        #expect(items.count == 3 && Set(items).count == 3, "\(out)")
        #expect(!items.contains { $0.contains("Products.storekit: ") }, "the file is named once, above: \(items)")
        let (products, _, err) = await run(["products"], catalog: file, in: sandbox)
        #expect(products == .success)
        let notes = err.filter { $0.hasPrefix("storefront: note:") }
        #expect(notes.count == 1 && notes[0].contains("3 notes") && notes[0].contains("catalog check"), "\(err)")
    }
}

@Suite("Screen expectations (in process)")
struct ScreenExpectationTests {
    /// Replays `text` as a scenario file; its exit code and the --json report's first scenario.
    func replay(_ text: String) async throws -> (ExitCode, [String: Any]) {
        let sandbox = try Sandbox()
        let file = try sandbox.write("screen.scenario", text)
        let printed = Printed()
        let console = Console(out: printed.console.out, err: { _ in }, outData: { _ in })
        let code = await ReplayCommand.run(paths: [file], junit: nil, keep: false, json: true, console: console,
                                           hooks: ScenarioHooks())
        let document = try JSONSerialization.jsonObject(with: Data(printed.text.utf8)) as? [String: Any]
        let scenario = try #require((document?["scenarios"] as? [[String: Any]])?.first, "\(printed.text)")
        return (code, scenario)
    }

    @Test("a row recorded at one width holds at 80×24 and 120×40: the line's text, not its spacing",
          arguments: ["80x24", "120x40"])
    func textNotSpacing(size: String) async throws {
        let (code, scenario) = try await replay("""
            catalog \(Binary.catalog)
            size \(size)
            buy com.razeware.razefaces.swiftshopping
            expect screen "Swift Shopping        $0.99   Owned"
            expect screen "Swift Shopping $0.99 Owned"
            expect not screen "Swift Shopping $0.99 Refunded"
            """)
        #expect(code == .success, "\(scenario)")
    }

    @Test("a failed screen expectation shows the lines around the one that differed, that one marked")
    func excerptAroundTheLine() async throws {
        let (code, scenario) = try await replay("""
            catalog \(Binary.catalog)
            select com.razeware.razefaces.swiftshopping
            press enter enter
            expect screen "Restored Swift Shopping for free"
            """)
        #expect(code == .failure)
        let steps = try #require(scenario["steps"] as? [[String: Any]])
        let screen = try #require(steps.last?["screen"] as? [String], "\(steps)")
        let marked = screen.filter { $0.contains("▶") }
        #expect(marked.count == 1 && marked[0].contains("Purchased Swift Shopping"),
                "the status line that differed, not the product's row: \(screen)")
        #expect(screen.count == 5)
    }
}
