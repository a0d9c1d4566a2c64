import Foundation
@testable import Scenarios
import StoreEngine
import StorefrontCLI
import StorefrontUI
import Testing

@Suite("Scenario format")
struct ScenarioFormatTests {
    @Test func readsHeaderStepsReferencesAndComments() throws {
        let scenario = try Scenario.parse("""
            # A comment line
            catalog products.json
            start 2026-03-01T10:00:00Z
            size 80x24

            buy barcode_month_subscription as trial   # trailing comment
            clock advance P1W
            refund $trial --reason developerIssue
            press enter right enter
            select com.razeware.razefaces.swiftshopping
            launch
            wait PT3S
            expect not owned com.razeware.razefaces.swiftshopping
            expect status premium inGracePeriod
            expect transaction LAST originalID $trial
            expect screen "Renews Jan 7 # not a comment"
            expect took >= 1500ms
            """, path: "/tmp/flows/trial.scenario", commands: CLI.scenarioCommandLine)
        #expect(scenario.catalogPath == "/tmp/flows/products.json")
        #expect(scenario.name == "trial")
        #expect(scenario.size == Size(columns: 80, rows: 24))
        #expect(scenario.start == (try Date("2026-03-01T10:00:00Z", strategy: .iso8601)))
        #expect(scenario.steps.count == 12)
        let first = scenario.steps[0]
        #expect(first.line == 6 && first.source == "buy barcode_month_subscription as trial")
        guard case .command(let words, let capture) = first.kind else { Issue.record("not a command"); return }
        #expect(words.map(\.text) == ["buy", "barcode_month_subscription"] && capture == "trial")
        guard case .press(let keys) = scenario.steps[3].kind else { Issue.record("not a press"); return }
        #expect(keys == [.enter, .right, .enter])
        guard case .expect(.screen(let text, true)) = scenario.steps[10].kind else { Issue.record("not a screen"); return }
        #expect(text == "Renews Jan 7 # not a comment")
        guard case .expect(.took(let seconds)) = scenario.steps[11].kind else { Issue.record("not took"); return }
        #expect(seconds == 1.5)
    }

    /// A file saved with Windows line ends reads as the same lines: "\r\n" is one Swift Character,
    /// so splitting on "\n" alone made the whole file one line (its header a catalog named with the steps).
    @Test func readsCRLFFilesAsLines() throws {
        let text = "catalog products.json\r\nsize 80x24\r\n\r\nbuy premium as first\r\nclock advance P1W\r\n"
        let scenario = try Scenario.parse(text, path: "/tmp/flows/crlf.scenario", commands: CLI.scenarioCommandLine)
        #expect(scenario.catalogPath == "/tmp/flows/products.json" && scenario.catalogLine == 1)
        #expect(scenario.size == Size(columns: 80, rows: 24))
        #expect(scenario.steps.map(\.line) == [4, 5])
        #expect(scenario.steps.map(\.source) == ["buy premium as first", "clock advance P1W"])
    }

    /// Each malformed line is named by line and column, with the fault.
    @Test(arguments: [
        ("buy x\n", 1, 1, "no catalog"),
        ("catalog p.json\nfly away\n", 2, 1, "unknown step \"fly\""),
        ("catalog p.json\nbuy\n", 2, 1, "buy needs a PRODUCT_ID"),
        ("catalog p.json\nbuy x --quantity zero\n", 2, 18, "--quantity needs a whole number"),
        ("catalog p.json\nbuy x --store /tmp/s\n", 2, 7, "--store is not allowed"),
        ("catalog p.json\nrefund $trial\n", 2, 8, "$trial is not captured"),
        ("catalog p.json\npress enter sideways\n", 2, 13, "unknown key \"sideways\""),
        ("catalog p.json\nexpect screen \"Renews\n", 2, 15, "the quote \" is not closed"),
        ("catalog p.json\nexpect status premium happy\n", 2, 23, "not a RenewalState"),
        ("catalog p.json\nexpect balance coins many\n", 2, 22, "whole number"),
        ("catalog p.json\nexpect feelings good\n", 2, 8, "expect takes owned"),
        ("catalog p.json\ndoctor\n", 2, 1, "store commands only"),
        ("catalog p.json\nbuy x\nstart 2026-01-01T00:00:00Z\n", 3, 1, "before the first step"),
        ("catalog p.json\nwait soon\n", 2, 6, "ISO-8601 duration"),
        ("catalog p.json\nexpect notification did_renew\n", 2, 21, "notificationType or subtype"),
        ("catalog p.json\nexpect notification\n", 2, 8, "expect notification takes"),
    ])
    func malformedLinesAreNamed(text: String, line: Int, column: Int, message: String) {
        do {
            _ = try Scenario.parse(text, path: "bad.scenario", commands: CLI.scenarioCommandLine)
            Issue.record("parsed: \(text)")
        } catch {
            #expect(error.line == line && error.column == column, "\(error)")
            #expect(error.message.contains(message), "\(error)")
            #expect(error.description.hasPrefix("bad.scenario:\(line):\(column): "))
        }
    }
}
