import Foundation
import Testing

/// `storefront --record` in a real terminal: the tester's purchase, a clock advance and a
/// refund from another terminal become a scenario that reads as written and replays green.
@Suite("record end to end (tmux)")
struct RecordEndToEndTests {
    @Test func aRecordedSessionReplaysToTheSameResult() async throws {
        let sandbox = try Sandbox()
        let file = sandbox.path("flow.scenario")
        let session = try await TmuxSession.start(sandbox, arguments: ["--latency", "0", "--record", file])
        do {
            try await session.waitFor("the product table") { $0.contains { $0.contains("Swift Shopping") } }
            try await session.waitFor("the REC mark") { $0.first?.hasPrefix(" Storefront ● REC ·") == true }
            try await session.send("Down", "Down", "Down")   // past the three plans, onto Swift Shopping
            try await session.waitFor("the selection") { lines in
                lines.contains { $0.contains("▸") && $0.contains("Swift Shopping") }
            }
            try await session.send("Enter")
            try await session.waitFor("the sheet") { $0.contains { $0.contains("[ Confirm") } }
            try await session.send("Enter")
            try await session.waitFor("the checkmark") { $0.contains { $0.contains("✓") && $0.contains("Swift Shopping") } }
            try await session.send("=")

            // Another terminal: a week later, the purchase is refunded.
            try await sandbox.storefront("clock", "advance", "P1W").expect(exit: 0)
            try await session.waitFor("the clock to move", timeout: .seconds(5)) { $0.first?.contains("UTC") == true }
            try await sandbox.storefront("refund", "2000000001", "--reason", "developerIssue").expect(exit: 0)
            try await session.waitFor("the checkmark to go", timeout: .seconds(5)) { lines in
                lines.contains { $0.contains("Swift Shopping") && $0.contains("Non-consumable") && !$0.contains("✓") }
            }
            try await session.send("=")
            // The recorder writes the line as the key is handled: wait for it, not for a time.
            try await session.waitFor("the second expectation in the file") { _ in
                ((try? String(contentsOfFile: file, encoding: .utf8)) ?? "").contains("expect not owned com.razeware.razefaces.swiftshopping")
            }
            try await session.send("q")
            try await session.waitFor("the paywall to quit") { $0.contains { $0.contains("EXIT=0") } }
        } catch {
            await session.stop()
            throw error
        }
        await session.stop()

        let recorded = try String(contentsOfFile: file, encoding: .utf8)
        let steps = recorded.split(separator: "\n").filter { !$0.hasPrefix("#") }.map(String.init)
        #expect(steps.contains("select com.razeware.razefaces.swiftshopping"), "\(recorded)")
        #expect(steps.contains("press enter enter"), "\(recorded)")
        #expect(steps.contains("expect screen \"Purchased Swift Shopping for $0.99 (transaction 2000000001).\""), "\(recorded)")
        #expect(steps.contains("expect owned com.razeware.razefaces.swiftshopping"), "\(recorded)")
        #expect(steps.contains("clock advance P7D"), "\(recorded)")
        #expect(steps.contains("refund LAST --reason developerIssue"), "\(recorded)")
        #expect(steps.contains("expect not owned com.razeware.razefaces.swiftshopping"), "\(recorded)")

        try FileManager.default.copyItem(atPath: Binary.catalog, toPath: sandbox.path("products.json"))
        let replay = try await sandbox.run(["replay", file])
        replay.expect(exit: 0)
        #expect(replay.stdout.contains("1 of 1 scenario passed"), "\(replay)\n\(recorded)")
    }
}
