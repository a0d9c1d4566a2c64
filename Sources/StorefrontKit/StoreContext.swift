import Foundation
import StoreEngine
import Synchronization

/// The store one piece of StoreKit code talks to: an open store file, plus what this
/// process has handed to the app already.
///
/// Which store a static call (`Product.products(for:)`, `Transaction.updates`, …) uses
/// is decided by ``resolve()``: the task-local ``current`` (set by `SKTestSession.run`),
/// else the most recently created test session, else the configured or default store.
package final class StoreContext: Sendable {
    /// The engine's store over the store file.
    package let store: Store
    /// Transactions `purchase()` returned to the app: `Transaction.updates` does not repeat them.
    private let handedOut = Mutex<Set<Int64>>([])
    /// Bumped by every change made in this process, which `PRAGMA data_version` does not see.
    private let generation = Atomic<Int>(0)

    package init(store: Store) { self.store = store }

    /// Notes that this process changed the store, so update listeners look again.
    package func changed() { generation.add(1, ordering: .relaxed) }

    /// The change counter that ``changed()`` bumps.
    var changeCount: Int { generation.load(ordering: .relaxed) }

    /// Records that the app got `id` from a purchase call.
    func handOut(_ id: Int64) { _ = handedOut.withLock { $0.insert(id) } }

    /// Whether the app got `id` from a purchase call.
    func wasHandedOut(_ id: Int64) -> Bool { handedOut.withLock { $0.contains(id) } }

    // MARK: - Which store

    /// The store bound to this task (and its child tasks) by a test session's scope.
    @TaskLocal package static var current: StoreContext?
    /// The most recently created test session's store: used when no scope is bound.
    package static let latestSession = Mutex<StoreContext?>(nil)
    /// The store opened by `StorefrontKit.configure` or found by the CLI's rules.
    static let configured = Mutex<StoreContext?>(nil)

    /// The store a static call uses now.
    package static func resolve() throws -> StoreContext {
        if let current { return current }
        if let session = latestSession.withLock({ $0 }) { return session }
        return try configured.withLock { context in
            if let context { return context }
            let opened = try StorefrontKit.openDefault()
            context = opened
            return opened
        }
    }
}

/// Set-up of StorefrontKit: which catalog, store file and sandbox account it uses.
public enum StorefrontKit {
    /// Why StorefrontKit could not open its catalog or store file.
    public struct ConfigurationError: Error, Sendable, CustomStringConvertible {
        /// What went wrong, naming the file.
        public var description: String
        package init(description: String) { self.description = description }
    }

    /// Opens `catalog` (a products.json or `.storekit`) and the store file `store` for `account`,
    /// and makes them what every StoreKit call uses. Nil arguments are found as the CLI finds them.
    public static func configure(catalog: String? = nil, store: String? = nil, account: String? = nil) throws {
        let context = try open(catalog: catalog, store: store, account: account)
        StoreContext.configured.withLock { $0 = context }
    }

    /// The store file StoreKit calls use now (for a test session, its temporary file).
    public static var storePath: String {
        get throws { try StoreContext.resolve().store.path }
    }

    static func openDefault() throws -> StoreContext { try open(catalog: nil, store: nil, account: nil) }

    static func open(catalog: String?, store: String?, account: String?) throws -> StoreContext {
        let environment = ProcessInfo.processInfo.environment
        let catalogPath = try catalog ?? defaultCatalogPath()
        let loaded: Catalog
        do { loaded = try Catalog.load(contentsOf: catalogPath) } catch {
            throw ConfigurationError(description: "catalog \(catalogPath): \(error.description)")
        }
        let explicit = store ?? environment["STOREFRONT_STORE"].flatMap { $0.isEmpty ? nil : $0 }
        let path = explicit ?? defaultStorePath(environment: environment)
        do {
            return StoreContext(store: try Store(catalog: loaded, path: path, account: account, createFolder: explicit == nil))
        } catch {
            throw ConfigurationError(description: "store file \(error.description)")
        }
    }

    /// `./products.json`, else the one `.storekit` file in the current folder.
    static func defaultCatalogPath() throws -> String {
        let folder = FileManager.default.currentDirectoryPath
        let json = folder + "/products.json"
        if FileManager.default.fileExists(atPath: json) { return json }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        let storeKit = names.filter { $0.hasSuffix(".storekit") }
        if storeKit.count == 1 { return folder + "/" + storeKit[0] }
        throw ConfigurationError(description: storeKit.isEmpty
            ? "no catalog: no products.json or .storekit file in \(folder); call StorefrontKit.configure(catalog:)"
            : "several .storekit files in \(folder); call StorefrontKit.configure(catalog:) to choose one")
    }

    /// As the CLI: `$XDG_STATE_HOME/storefront/store.sqlite`, else `~/.local/state/storefront/store.sqlite`.
    static func defaultStorePath(environment: [String: String]) -> String {
        let state = environment["XDG_STATE_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? (environment["HOME"] ?? NSHomeDirectory()) + "/.local/state"
        return state + "/storefront/store.sqlite"
    }
}

// MARK: - Waiting for the store from synchronous code

/// Runs tasks on a thread of its own, so synchronous API (`AppStore.canMakePayments`)
/// can wait for the store without holding up Swift's cooperative pool.
package final class BlockingExecutor: TaskExecutor, @unchecked Sendable {
    // Immutable; DispatchQueue is thread-safe.
    private let queue = DispatchQueue(label: "storefrontkit.blocking", attributes: .concurrent)
    static let shared = BlockingExecutor()

    package func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }

    /// The value of `work`, waited for on the calling thread.
    package static func wait<T: Sendable>(_ work: @escaping @Sendable () async -> T) -> T {
        let box = Mutex<T?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task(executorPreference: shared) {
            let value = await work()
            box.withLock { $0 = value }
            done.signal()
        }
        done.wait()
        return box.withLock { $0! }
    }
}
