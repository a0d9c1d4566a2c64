import Foundation
import StoreEngine
@testable import StorefrontCLI
import Synchronization
import Testing

/// What the command line does before it hands the store to the paywall.
@Suite("paywall launch")
struct PaywallLaunchTests {
    /// Tester's day, finding 3: the command line delivered what an earlier run left unfinished before the
    /// paywall opened (its note went to standard error, under the screen), so the paywall's own launch
    /// found nothing and "Delivered at launch (left unfinished before)" never showed.
    @Test("a transaction an earlier run left unfinished is delivered by the paywall's launch, not before it")
    func unfinishedWaitsForThePaywall() async throws {
        let sandbox = try Sandbox()
        try await sandbox.storefront("settings", "set", "finishTransactions", "false").expect(exit: 0)
        try await sandbox.storefront("buy", Demo.goPro).expect(exit: 0)
        try await sandbox.storefront("settings", "set", "finishTransactions", "true").expect(exit: 0)
        let arrived = Mutex<[String]?>(nil)
        let stderr = Mutex<[String]>([])
        let console = Console(out: { _ in }, err: { line in stderr.withLock { $0.append(line) } }, outData: { _ in })
        let code = await CLI.run(["--catalog", Binary.catalog, "--store", sandbox.store], environment: ["HOME": sandbox.home],
                                 console: console, paywall: { store, _, _ in
                                     let snapshot = try? await store.app.snapshot()
                                     arrived.withLock { $0 = snapshot?.arrived }
                                     return .success
                                 })
        #expect(code == .success)
        #expect(arrived.withLock { $0 } == [Demo.goPro], "the paywall's first load delivers it, and its note says so")
        #expect(stderr.withLock { $0 }.allSatisfy { !$0.contains("delivered unfinished transaction") })
    }
}
