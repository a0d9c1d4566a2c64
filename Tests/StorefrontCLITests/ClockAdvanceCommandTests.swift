import Foundation
@testable import StorefrontCLI
import Testing

/// clock advance: how many renewals it made or failed, in text and --json, and how far it may go.
@Suite("clock advance: the renewals it reports, and its limit")
struct ClockAdvanceCommandTests {
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

    /// Tester's day, finding 11: a renewal that failed into its grace period was called "billing retry"
    /// (status, products and the paywall said grace period), and the jump in which the grace period ran
    /// out and the entitlement went said "No renewal was due by then."
    @Test("with a grace period, clock advance says the renewal failed into it, then that it ended")
    func gracePeriodIsSaid() async throws {
        let sandbox = try Sandbox()
        for line in [["buy", "barcode_year_subscription"], ["settings", "set", "billingIssues", "true"],
                     ["settings", "set", "gracePeriod", "true"]] {
            #expect(await JSONErrorTests.run(line, in: sandbox).code == .success)
        }
        let failed = await JSONErrorTests.run(["clock", "advance", "P1Y1D"], in: sandbox)
        #expect(failed.out.hasSuffix("1 renewal failed (grace period: still entitled)."), "\(failed)")
        let ended = await JSONErrorTests.run(["clock", "advance", "P20D"], in: sandbox)
        #expect(ended.out.hasSuffix("1 grace period ended (billing retry: no longer entitled)."), "\(ended)")
        let text = await JSONErrorTests.run(["clock", "advance", "P1D"], in: sandbox)
        #expect(text.out.hasSuffix("No renewal was due by then."), "once: \(text)")
    }

    /// Issue 15 (2): clock advance past 100 years is a usage error, and the clock stays.
    @Test func aClockAdvanceBeyondAHundredYearsIsRefused() async throws {
        let sandbox = try Sandbox()
        let before = try await sandbox.storefront("clock").stdout
        let run = try await sandbox.storefront("clock", "advance", "P1000000Y")
        run.expect(exit: 64)
        #expect(run.stderr.contains("at most P100Y"), "\(run)")
        #expect(try await sandbox.storefront("clock").stdout.prefix(22) == before.prefix(22), "the clock moved")
    }
}
