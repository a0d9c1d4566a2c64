import Foundation
@testable import StorefrontCLI
import Testing

/// A scenario's `expect screen` lines: the line's text at any size, and the lines around a failure.
@Suite("replay: expect screen (in process)")
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
