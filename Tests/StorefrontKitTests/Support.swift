import Foundation
import StorefrontKit
import StorefrontKitTest
import Testing
import TestSupport
// Every file of the test target sees TestSupport (clock, folders, processes, tmux).
@_exported import TestSupport

/// The repository's bundled products.json.
let catalogURL = URL(fileURLWithPath: Repository.catalog)

enum ID {
    static let goPro = "com.CephalopodStudio.PurchasePro.GoPro"
    static let shopping = "com.razeware.razefaces.swiftshopping"
    static let coins = "com.example.storefront.coins100"
    static let monthly = "barcode_month_subscription"
    static let yearly = "barcode_year_subscription"
    /// At Monthly's level: a change between the two is a crossgrade.
    static let quarterly = "barcode_quarter_subscription"
}

/// The first element of `sequence` within `seconds`, else nil.
func first(of sequence: Transaction.Transactions, within seconds: Double,
           where matches: @escaping @Sendable (Transaction) -> Bool = { _ in true }) async -> VerificationResult<Transaction>? {
    await firstElement(of: sequence, within: seconds) { matches($0.unsafePayloadValue) }
}

/// The first element of any of StorefrontKit's endless sequences (updates, messages) within `seconds`, else nil.
/// Off Swift's shared pool, as `Listener` is: a full parallel run keeps the pool's two threads busy, and
/// the wait would measure its queue rather than the delivery.
func firstElement<Sequence: AsyncSequence & Sendable>(of sequence: Sequence, within seconds: Double,
                                                      where matches: @escaping @Sendable (Sequence.Element) -> Bool = { _ in true })
    async -> Sequence.Element? where Sequence.Element: Sendable {
    await withTaskExecutorPreference(OffPoolExecutor.shared) { await firstElementOnAnyThread(of: sequence, within: seconds, where: matches) }
}

private func firstElementOnAnyThread<Sequence: AsyncSequence & Sendable>(
    of sequence: Sequence, within seconds: Double, where matches: @escaping @Sendable (Sequence.Element) -> Bool)
    async -> Sequence.Element? where Sequence.Element: Sendable {
    await withTaskGroup(of: Sequence.Element?.self) { group in
        group.addTask {
            do {
                for try await element in sequence where matches(element) { return element }
            } catch {}
            return nil
        }
        group.addTask {
            try? await Task.sleep(for: .seconds(seconds))
            return nil
        }
        let value = await group.next() ?? nil
        group.cancelAll()
        return value
    }
}

/// The `storefront` executable SwiftPM built beside this test bundle.
func storefrontBinary() throws -> URL {
    guard let url = BuiltProducts.storefront else { throw StoreKitError.unknown }
    return url
}

/// Runs the `storefront` binary to its end; returns its exit status and standard output (with
/// standard error). Waits by suspending (TestSupport's `Processes.launch`), never by blocking.
func runStorefront(_ arguments: [String]) async throws -> (status: Int32, output: String) {
    let outcome = try await Processes.launch(try storefrontBinary(), arguments: arguments, mergeOutput: true)
    return (outcome.status, outcome.stdout)
}

/// Collects what a `Transaction.updates` sequence delivers, from now on.
actor Listener {
    private(set) var received: [VerificationResult<Transaction>] = []
    private var task: Task<Void, Never>?

    init(_ updates: Transaction.Transactions) {
        task = nil
        Task { await self.start(updates) }
    }

    private func start(_ updates: Transaction.Transactions) {
        // Off Swift's shared pool (and this actor's jobs with it): a full parallel run keeps the pool
        // busy, and `count(atLeast:within:)` would measure its queue rather than the delivery.
        task = Task(executorPreference: OffPoolExecutor.shared) { for await update in updates { await self.append(update) } }
    }

    private func append(_ update: VerificationResult<Transaction>) { received.append(update) }

    /// Whether `count` updates arrived within `seconds`.
    func count(atLeast count: Int, within seconds: Double) async -> Bool {
        await withTaskExecutorPreference(OffPoolExecutor.shared) {
            let deadline = Date().addingTimeInterval(seconds)
            while received.count < count && Date() < deadline { try? await Task.sleep(for: .milliseconds(50)) }
            return received.count >= count
        }
    }

    deinit { task?.cancel() }
}
