import Foundation
import StorefrontKit
import StorefrontKitTest
import Testing

/// The repository's bundled products.json.
let catalogURL = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("products.json")

enum ID {
    static let goPro = "com.CephalopodStudio.PurchasePro.GoPro"
    static let shopping = "com.razeware.razefaces.swiftshopping"
    static let coins = "com.example.storefront.coins100"
    static let monthly = "barcode_month_subscription"
    static let yearly = "barcode_year_subscription"
}

/// The first element of `sequence` within `seconds`, else nil.
func first(of sequence: Transaction.Transactions, within seconds: Double,
           where matches: @escaping @Sendable (Transaction) -> Bool = { _ in true }) async -> VerificationResult<Transaction>? {
    await firstElement(of: sequence, within: seconds) { matches($0.unsafePayloadValue) }
}

/// The first element of any of StorefrontKit's endless sequences (updates, messages) within `seconds`, else nil.
func firstElement<Sequence: AsyncSequence & Sendable>(of sequence: Sequence, within seconds: Double,
                                                      where matches: @escaping @Sendable (Sequence.Element) -> Bool = { _ in true })
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
    var folder = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
    while folder.path != "/" {
        let candidate = folder.appendingPathComponent("storefront")
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: candidate.path, isDirectory: &isFolder), !isFolder.boolValue {
            return candidate
        }
        folder = folder.deletingLastPathComponent()
    }
    throw StoreKitError.unknown
}

/// Runs the `storefront` binary to its end; returns its exit status and standard output.
/// Waits by suspending, never by blocking: a blocked thread of Swift's small pool (one per
/// core) starves every other test's tasks meanwhile.
func runStorefront(_ arguments: [String]) async throws -> (status: Int32, output: String) {
    let process = Process()
    process.executableURL = try storefrontBinary()
    process.arguments = arguments
    let output = FileManager.default.temporaryDirectory.appendingPathComponent("storefront-kit-\(UUID().uuidString).out")
    FileManager.default.createFile(atPath: output.path, contents: nil)
    defer { try? FileManager.default.removeItem(at: output) }
    let handle = try FileHandle(forWritingTo: output)
    process.standardOutput = handle
    process.standardError = handle
    let finished = AsyncStream<Int32>.makeStream()
    process.terminationHandler = { process in
        finished.continuation.yield(process.terminationStatus)
        finished.continuation.finish()
    }
    try process.run()
    var iterator = finished.stream.makeAsyncIterator()
    let status = await iterator.next() ?? -1
    try handle.close()
    return (status, String(decoding: try Data(contentsOf: output), as: UTF8.self))
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
        task = Task { for await update in updates { self.append(update) } }
    }

    private func append(_ update: VerificationResult<Transaction>) { received.append(update) }

    /// Whether `count` updates arrived within `seconds`.
    func count(atLeast count: Int, within seconds: Double) async -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while received.count < count && Date() < deadline { try? await Task.sleep(for: .milliseconds(50)) }
        return received.count >= count
    }

    deinit { task?.cancel() }
}
