import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import StoreEngine
@testable import StorefrontCLI
import StorefrontUI
import Synchronization
import Testing

/// Lines a replay printed, for tests that run it in process.
final class Printed: Sendable {
    private let lines = Mutex<[String]>([])
    var console: Console { Console(out: { line in self.lines.withLock { $0.append(line) } },
                                   err: { line in self.lines.withLock { $0.append(line) } }, outData: { _ in }) }
    var text: String { lines.withLock { $0.joined(separator: "\n") } }
}

@Suite("Scenario commands in the command table")
struct ScenarioCommandTableTests {
    @Test func replayAndRecordAreInTheCommandTable() throws {
        let replay = try Invocation.parse(["replay", "a.scenario", "b.scenario", "--junit", "out.xml", "--keep"])
        #expect(replay.command == .run(AnyCommand(ReplayCommand(paths: ["a.scenario", "b.scenario"], junit: "out.xml", keep: true))))
        #expect(try Invocation.parse(["--record", "flow.scenario"]).recordPath == "flow.scenario")
        #expect(throws: UsageError.self) { try Invocation.parse(["replay"]) }
        #expect(throws: UsageError.self) { try Invocation.parse(["buy", "x", "--junit", "j.xml"]) }
    }
}

@Suite("Replay")
struct ReplayTests {
    static let scenarios = Binary.repository.appendingPathComponent("scenarios")

    static var scenarioFiles: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: scenarios.path)) ?? [])
            .filter { $0.hasSuffix(".scenario") }.sorted().map { scenarios.appendingPathComponent($0).path }
    }

    /// The guide's QA recipes (docs/qa-recipes.md), as scenario files: every one passes, through the built binary,
    /// and the JUnit report says so in a form XML readers take.
    @Test func everyRecipeScenarioPasses() async throws {
        let files = Self.scenarioFiles
        #expect(files.count >= 26, "the QA recipes: \(files)")
        let sandbox = try Sandbox()
        let junit = sandbox.path("junit.xml")
        let run = try await sandbox.run(["replay"] + files + ["--junit", junit])
        run.expect(exit: 0)
        #expect(run.stdout.contains("\(files.count) of \(files.count) scenarios passed"), "\(run)")

        let xml = try Data(contentsOf: URL(fileURLWithPath: junit))
        let reader = JUnitReader()
        let parser = XMLParser(data: xml)
        parser.delegate = reader
        #expect(parser.parse(), "JUnit XML does not parse: \(String(decoding: xml, as: UTF8.self))")
        #expect(reader.testcases == files.count && reader.failures == 0)
    }

    /// The QA recipes that are no scenario file, each because a step cannot be written as one;
    /// docs/qa-recipes.md names them under its tables and says why.
    static let recipesWithoutScenario: Set<String> = ["Promotional offer signatures"]

    /// Every scenario file is a recipe of the guide's QA recipes page, linked from its table; and
    /// every recipe links its scenario file, or is one of the exceptions the page explains.
    @Test func theQARecipesLinkEachScenario() throws {
        let recipes = try String(contentsOf: Binary.repository.appendingPathComponent("docs/qa-recipes.md"), encoding: .utf8)
        for file in Self.scenarioFiles {
            let name = (file as NSString).lastPathComponent
            #expect(recipes.contains("(../scenarios/\(name))"), "docs/qa-recipes.md does not link scenarios/\(name)")
        }
        // The recipes: the first cells of the recipe tables' rows.
        let flows = DocsTests.tableRows(in: recipes, after: "| flow | recipe |").compactMap(\.cells.first)
        let prose = recipes.split(separator: "\n").filter { !$0.hasPrefix("|") }.joined(separator: "\n")
        #expect(flows.count >= 40, "docs/qa-recipes.md's recipes: \(flows)")
        var unlinked: Set<String> = []
        for flow in flows {
            if let link = flow.firstMatch(of: /\]\(\.\.\/scenarios\/([^)]+)\)/) {
                let path = Self.scenarios.appendingPathComponent(String(link.output.1)).path
                #expect(FileManager.default.fileExists(atPath: path), "docs/qa-recipes.md links \(link.output.1), which scenarios/ has not")
            } else {
                unlinked.insert(flow.trimmingCharacters(in: .whitespaces))
            }
        }
        let asListed = unlinked == Self.recipesWithoutScenario
        #expect(asListed,
                "recipes without a scenario: \(unlinked.sorted()); write one in scenarios/ and link it, or say on the page why it cannot be one and list it here")
        for flow in Self.recipesWithoutScenario {
            let explained = prose.contains(flow)
            #expect(explained, "docs/qa-recipes.md does not say why \(flow) has no scenario")
        }
    }

    @Test func aFailingStepSaysWhatWasExpectedAndFoundAndKeepsTheStore() async throws {
        let sandbox = try Sandbox()
        try FileManager.default.copyItem(atPath: Binary.catalog, toPath: sandbox.path("products.json"))
        let file = try sandbox.write("owned.scenario", """
            catalog products.json
            buy com.razeware.razefaces.swiftshopping
            expect owned com.razeware.razefaces.iphonerage
            expect screen "Renews Jan 7"
            buy no.such.product
            expect owned com.razeware.razefaces.swiftshopping
            """)
        let run = try await sandbox.run(["replay", file, "--json", "--keep"])
        run.expect(exit: 1)
        let document = try run.jsonObject()
        let scenario = try #require((document["scenarios"] as? [[String: Any]])?.first)
        let steps = try #require(scenario["steps"] as? [[String: Any]])
        #expect(steps.map { $0["status"] as? String } == ["passed", "failed", "failed", "failed", "skipped"])
        #expect(steps[1]["expected"] as? String == "com.razeware.razefaces.iphonerage owned (the app's checkmark)")
        #expect(steps[1]["found"] as? String == "owned: com.razeware.razefaces.swiftshopping")
        #expect((steps[2]["screen"] as? [String])?.contains { $0.contains("Swift Shopping") } == true)
        #expect((steps[3]["found"] as? String)?.contains("productUnavailable") == true)
        let kept = try #require(scenario["keptStore"] as? String)
        #expect(FileManager.default.fileExists(atPath: kept))
        try? FileManager.default.removeItem(atPath: (kept as NSString).deletingLastPathComponent)
    }

    @Test func notificationsAreExpectedInTheOrderTheStoreRecordedThem() async throws {
        let sandbox = try Sandbox()
        try FileManager.default.copyItem(atPath: Binary.catalog, toPath: sandbox.path("products.json"))
        let file = try sandbox.write("notifications.scenario", """
            catalog products.json
            buy barcode_month_subscription
            clock advance P1W
            expect notification SUBSCRIBED INITIAL_BUY
            expect notification DID_RENEW
            expect notification SUBSCRIBED
            expect notification REFUND
            """)
        let run = try await sandbox.run(["replay", file, "--json"])
        run.expect(exit: 1)
        // The one error shape beside the report, as every failure prints it.
        let error = try #require(try run.jsonObject()["error"] as? [String: Any], "\(run)")
        #expect(error["name"] as? String == "failure" && error["message"] as? String == "1 of 1 scenario failed")
        let scenario = try #require((try run.jsonObject()["scenarios"] as? [[String: Any]])?.first)
        let steps = try #require(scenario["steps"] as? [[String: Any]])
        #expect(steps.map { $0["status"] as? String } == ["passed", "passed", "passed", "passed", "failed", "failed"],
                "a SUBSCRIBED after the renewal was not recorded; neither was a REFUND:\n\(run)")
        #expect(steps[4]["found"] as? String == "none recorded since")
    }

    @Test func aMalformedScenarioExits65WithItsPlaceAndRunsNothing() async throws {
        let sandbox = try Sandbox()
        let good = try sandbox.write("good.scenario", "catalog \(Binary.catalog)\nbuy com.razeware.razefaces.swiftshopping\n")
        let bad = try sandbox.write("bad.scenario", "catalog \(Binary.catalog)\n\nexpect owned\n")
        let run = try await sandbox.run(["replay", good, bad])
        run.expect(exit: 65)
        #expect(run.stderr.contains("bad.scenario:3:13: expect owned takes a PRODUCT_ID"), "\(run)")
        #expect(!run.stdout.contains("PASS"))
        let json = try await sandbox.run(["replay", good, bad, "--json"])
        json.expect(exit: 65)
        let error = try #require(try json.jsonObject()["error"] as? [String: Any], "\(json)")
        #expect(error["name"] as? String == "malformedScenario", "named for what is malformed, not badCatalog")
        let missing = try await sandbox.run(["replay", sandbox.path("none.scenario")])
        missing.expect(exit: 66)
    }

    // MARK: - A rule broken on purpose

    /// A test double of the App Store face whose refund is reported but never made: the
    /// refund recipe fails, on the line that checks the entitlement is gone.
    @Test func aBrokenRefundRuleFailsTheRefundScenario() async throws {
        var hooks = ScenarioHooks()
        hooks.command = { session, command in
            if let refund = command.value(RefundCommand.self) { return Report(json: .object([:]), "Refunded \(refund.transactionID)") }
            return try await session.report(for: command)
        }
        let printed = Printed()
        let code = await ReplayCommand.run(paths: [Self.scenarios.appendingPathComponent("refund.scenario").path],
                                           junit: nil, keep: false, json: false, console: printed.console, hooks: hooks)
        #expect(code == .failure)
        #expect(printed.text.contains("""
              FAIL    6  expect not owned com.razeware.razefaces.swiftshopping
                         expected: com.razeware.razefaces.swiftshopping not owned (the app's checkmark)
                         found:    owned: com.razeware.razefaces.swiftshopping
            """), "\(printed.text)")
    }

    /// A paywall whose Restore reports success without asking the App Store: the restore
    /// recipe fails where the checkmark should be back.
    @Test func aBrokenRestoreRuleFailsTheRestoreScenario() async throws {
        var hooks = ScenarioHooks()
        hooks.effects = { engine in
            { effect in effect == .restore ? .paywall(.restored(count: 1)) : await engine.perform(effect) }
        }
        let printed = Printed()
        let code = await ReplayCommand.run(paths: [Self.scenarios.appendingPathComponent("first-purchase-restore.scenario").path],
                                           junit: nil, keep: false, json: false, console: printed.console, hooks: hooks)
        #expect(code == .failure)
        #expect(printed.text.contains("FAIL   15  expect owned com.razeware.razefaces.swiftshopping"), "\(printed.text)")
        #expect(printed.text.contains("found:    owned: nothing"), "\(printed.text)")
    }
}

/// Counts a JUnit document's test cases and failures.
final class JUnitReader: NSObject, XMLParserDelegate {
    var testcases = 0
    var failures = 0
    func parser(_ parser: XMLParser, didStartElement element: String, namespaceURI: String?, qualifiedName: String?,
                attributes: [String: String] = [:]) {
        if element == "testcase" { testcases += 1 }
        if element == "failure" { failures += 1 }
    }
}
