import Foundation
import StoreEngine
import StorefrontKit
import Synchronization

/// A StoreKit test session on Linux, as Xcode's `SKTestSession`: a fresh temporary store
/// made from a `.storekit` or products.json file, with the tester's controls.
///
/// Once a session exists, StorefrontKit's static API (`Product.products(for:)`,
/// `Transaction.updates`, `AppStore.sync()`, …) works on the session's store:
/// - inside ``run(_:)`` (and every task created in it, but not `Task.detached`), on this session;
/// - elsewhere, on the most recently created session still alive.
///
/// Tests that run in parallel (Swift Testing's default) each create their own session
/// and wrap the code under test in `session.run { … }`; they then never see each
/// other's purchases. What is read inside `run` stays with its session. Products and
/// listeners read outside any `run` follow the choice: code that loads products or starts
/// `Transaction.updates` before the test makes its session still buys and listens in it.
/// Transactions always act on the store they came from.
///
/// Controls are synchronous and `throws`, as in Xcode; they wait briefly for the store file.
public final class SKTestSession: Sendable {
    let context: StoreContext
    let folder: URL
    let local = Mutex(LocalState())

    /// What only this object keeps: Xcode settings with no effect on a terminal store, and the
    /// simulated errors no store setting holds (as set, for `simulatedError(forAPI:)`).
    struct LocalState {
        var disableDialogs = false
        var locale = Locale(identifier: "en_US")
        var simulatedFailures: [StoreContext.SimulatedAPI: any ProcessSimulatedFailure] = [:]
    }

    /// A session on the configuration file `name` (with or without `.storekit` or `.json`),
    /// looked for in the current folder, then in the main bundle and every loaded bundle, then
    /// in the resource bundles SwiftPM puts beside the test binary (`Package_Target.resources`).
    public convenience init(configurationFileNamed name: String) throws {
        let candidates = [name, name + ".storekit", name + ".json"]
        var folders = [URL(fileURLWithPath: FileManager.default.currentDirectoryPath)]
        folders += ([Bundle.main] + Bundle.allBundles).compactMap(\.resourceURL)
        folders += Self.resourceBundles()
        for folder in folders {
            for candidate in candidates {
                let url = folder.appendingPathComponent(candidate)
                var isFolder: ObjCBool = false
                if FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder), !isFolder.boolValue {
                    try self.init(contentsOf: url)
                    return
                }
            }
        }
        throw StorefrontKit.ConfigurationError(description: "no configuration file named \(name) in \(folders.map(\.path))")
    }

    /// The `*.resources` folders beside the running binary (where SwiftPM copies a target's resources on Linux).
    private static func resourceBundles() -> [URL] {
        let binary = Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments.first ?? "")
        var folder = binary.deletingLastPathComponent()
        // An `.xctest` bundle's binary sits inside it; its resources are beside the bundle.
        if folder.pathExtension == "xctest" || folder.lastPathComponent == "MacOS" { folder.deleteLastPathComponent() }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { $0.hasSuffix(".resources") }.sorted().map { folder.appendingPathComponent($0) }
    }

    /// A session on the `.storekit` or products.json file at `url`, in a new temporary store file
    /// (in memory, `/dev/shm`, unless `TMPDIR` names a folder: see `SessionFolder`).
    public init(contentsOf url: URL) throws {
        let catalog: Catalog
        do { catalog = try SessionStoreTemplate.catalog(at: url) } catch {
            throw StorefrontKit.ConfigurationError(description: "catalog \(url.path): \(error.description)")
        }
        folder = try SessionFolder.make()
        do {
            let store = try SessionStoreTemplate.store(catalog: catalog, from: url, at: folder.appendingPathComponent("store.sqlite").path)
            context = StoreContext(store: store)
        } catch {
            throw StorefrontKit.ConfigurationError(description: "store file \(error.description)")
        }
        StoreContext.sessionStarted(context)
    }

    deinit {
        StoreContext.sessionEnded(context)
        try? FileManager.default.removeItem(at: folder)
    }

    // MARK: - Scope

    /// Runs `body` with StorefrontKit's static API bound to this session, for this task and
    /// the tasks it creates (task-local, so parallel tests stay apart). `body` runs on the caller's
    /// actor: a `@MainActor` test binds its main-actor store class this way.
    public func run<T>(isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> T) async rethrows -> T {
        try await StoreContext.$current.withValue(context, operation: { try await body() }, isolation: isolation)
    }

    /// The session's temporary store file: `storefront --store PATH` acts on it from another process.
    public var storePath: String { context.store.path }

    // MARK: - Conditions

    /// Purchases wait for a parent's approval (Ask to Buy), arriving as updates once approved.
    public var askToBuyEnabled: Bool {
        get { flag(.askToBuy) }
        set { setFlag(.askToBuy, newValue) }
    }

    /// Purchases are interrupted (pending) until ``resolveIssueForTransaction(identifier:)``.
    public var interruptedPurchasesEnabled: Bool {
        get { flag(.interruptedPurchases) }
        set { setFlag(.interruptedPurchases, newValue) }
    }

    /// Purchases fail: with the error of ``setSimulatedError(_:forAPI:)`` for `.purchase`, else `StoreKitError.unknown`.
    public var failTransactionsEnabled: Bool {
        get { (wait { try await $0.testSession.value(.purchaseError) } ?? nil) != nil }
        set {
            let current = wait { try await $0.testSession.value(.purchaseError) } ?? nil
            guard newValue != (current != nil) else { return }
            let error: SimulatedError? = newValue ? .unknown : nil
            try? blockingStoreKitCall { [context] in try await context.store.testSession.set(.purchaseError, to: error) }
            context.changed()
        }
    }

    /// Renewals of auto-renewable subscriptions fail to bill and enter billing retry
    /// (the store's `billingIssues` setting); the subscription recovers once it is set back to false.
    public var shouldEnterBillingRetryOnRenewal: Bool {
        get { flag(.billingIssues) }
        set { setFlag(.billingIssues, newValue) }
    }

    /// A renewal that fails to bill starts with a billing grace period, service continuing
    /// (the store's `gracePeriod` setting); no effect unless ``shouldEnterBillingRetryOnRenewal``.
    public var billingGracePeriodIsEnabled: Bool {
        get { flag(.gracePeriod) }
        set { setFlag(.gracePeriod, newValue) }
    }

    /// Kept for source compatibility: a terminal store shows no dialogs.
    public var disableDialogs: Bool {
        get { local.withLock { $0.disableDialogs } }
        set { local.withLock { $0.disableDialogs = newValue } }
    }

    /// The storefront's country code (`USA`, `DEU`): products are priced and offered as it says.
    public var storefront: String {
        get { wait { try await $0.testSession.value(.storefront) } ?? "USA" }
        set {
            try? blockingStoreKitCall { [context] in try await context.store.testSession.set(.storefront, to: newValue) }
            context.changed()
        }
    }

    /// Kept for source compatibility: prices follow the storefront's usual locale.
    public var locale: Locale {
        get { local.withLock { $0.locale } }
        set { local.withLock { $0.locale = newValue } }
    }

    /// How fast the store's clock runs, renewals included.
    public var timeRate: TimeRate {
        get { wait { try await $0.testSession.value(.timeRate) } ?? .realTime }
        set {
            let rate = newValue
            try? blockingStoreKitCall { [context] in try await context.store.testSession.set(.timeRate, to: rate) }
            context.changed()
        }
    }

    // MARK: - Helpers

    /// The value of `read` on the session's store, waited for; nil when the store fails.
    func wait<T: Sendable>(_ read: @escaping @Sendable (Store) async throws -> T) -> T? {
        try? blockingStoreKitCall { [context] in try await read(context.store) }
    }

    /// Runs an action on the store, waited for, and tells update listeners.
    func act<T: Sendable>(_ action: @escaping @Sendable (Store) async throws -> T) throws -> T {
        defer { context.changed() }
        return try blockingStoreKitCall { [context] in try await action(context.store) }
    }

    private func flag(_ key: SettingKey<Bool>) -> Bool { wait { try await $0.testSession.value(key) } ?? false }

    private func setFlag(_ key: SettingKey<Bool>, _ value: Bool) {
        _ = try? act { try await $0.testSession.set(key, to: value) }
    }
}
