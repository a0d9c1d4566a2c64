import Foundation
import StoreEngine
import Synchronization

/// The store one piece of StoreKit code talks to: an open store file, plus what this
/// process has handed to the app already.
///
/// Which store a static call (`Product.products(for:)`, `Transaction.updates`, …) uses
/// is decided by ``resolve()``: the task-local ``current`` (set by `SKTestSession.run`),
/// else the most recently created test session still alive (unless `StorefrontKit.configure`
/// chose a store since it was made), else the configured or default store. What is read
/// outside a session's scope follows that choice as it changes (`StoreContext+Choice.swift`).
package final class StoreContext: Sendable {
    /// The engine's store over the store file.
    package let store: Store
    /// Transactions `purchase()` returned to the app: `Transaction.updates` does not repeat them.
    private let handedOut = Mutex<Set<Int64>>([])
    /// `purchase()` calls under way: until each has said which transaction it hands the app,
    /// `Transaction.updates` waits before deciding about a transaction it has not seen.
    private let purchasesUnderWay = Atomic<Int>(0)
    /// The errors a test session makes StoreKit APIs throw that the store file keeps no setting for
    /// (`SKTestSession.setSimulatedError(_:forAPI:)`): kept by this process, as Xcode's session keeps them.
    private let simulatedErrors = Mutex<[SimulatedAPI: any Error & Sendable]>([:])
    /// `AppStore.offerCodeToRedeem` set inside this store's test session scope: the session's own.
    package let offerCodeToRedeem = Mutex<String?>(nil)

    package init(store: Store) { self.store = store }

    // MARK: - Simulated errors kept in the process

    /// A StoreKit API whose simulated error this process keeps (the others' are store settings).
    package enum SimulatedAPI: Hashable, Sendable {
        /// `AppTransaction.shared` and `refresh()`.
        case appTransaction
        /// `AppStore.showManageSubscriptions(in:)` and `(in:subscriptionGroupID:)`.
        case manageSubscriptions
        /// `AppStore.presentOfferCodeRedeemSheet` in each form.
        case offerCodeRedeem
        /// `Transaction.beginRefundRequest(in:)` and `beginRefundRequest(for:in:)`.
        case refundRequest
        /// `Product.SubscriptionInfo.status` and `status(for:)`.
        case subscriptionStatus
    }

    /// Makes `api` throw `error` on this store until set back to nil.
    package func simulate(_ error: (any Error & Sendable)?, for api: SimulatedAPI) {
        simulatedErrors.withLock { $0[api] = error }
    }

    /// Throws the error simulated for `api`, if any.
    func throwIfSimulated(_ api: SimulatedAPI) throws {
        if let error = simulatedErrors.withLock({ $0[api] }) { throw error }
    }

    /// Throws the error simulated for `api` in the store a static call uses now (none found: nothing).
    static func throwIfSimulated(_ api: SimulatedAPI) throws {
        try (try? resolve())?.throwIfSimulated(api)
    }

    /// Notes that this process changed the store: the change feed looks now (it hears the
    /// write through inotify anyway; this is for where there is none).
    package func changed() { store.changes.notice() }

    /// Runs a purchase call, which hands its transaction to the app itself.
    func purchasing<T>(_ body: () async throws -> T) async rethrows -> T {
        purchasesUnderWay.add(1, ordering: .sequentiallyConsistent)
        defer { purchasesUnderWay.subtract(1, ordering: .sequentiallyConsistent) }
        return try await body()
    }

    /// Returns once no `purchase()` call is under way.
    func purchasesSettled() async {
        while purchasesUnderWay.load(ordering: .sequentiallyConsistent) > 0 { try? await Task.sleep(for: .milliseconds(1)) }
    }

    /// Records that the app got `id` from a purchase call.
    func handOut(_ id: Int64) { _ = handedOut.withLock { $0.insert(id) } }

    /// Whether the app got `id` from a purchase call.
    func wasHandedOut(_ id: Int64) -> Bool { handedOut.withLock { $0.contains(id) } }

    // MARK: - Which store

    /// The store bound to this task (and its child tasks) by a test session's scope.
    @TaskLocal package static var current: StoreContext?
    /// The stores of the test sessions alive, oldest first: the last is used when no scope is bound.
    static let sessions = Mutex(Sessions())
    /// The store opened by `StorefrontKit.configure` or found by the CLI's rules.
    static let configured = Mutex<StoreContext?>(nil)

    /// The store a static call uses now.
    package static func resolve() throws -> StoreContext {
        if let current { return current }
        if let session = latestSession { return session }
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
    /// An explicit choice: outside a test session's `run { }` it wins over the sessions made before
    /// it (alive or ended), and `Transaction.updates` and the other listeners read outside a scope
    /// move to it, until the next `SKTestSession` is made.
    public static func configure(catalog: String? = nil, store: String? = nil, account: String? = nil) throws {
        StoreContext.configure(try open(catalog: catalog, store: store, account: account))
    }

    /// The store file StoreKit calls use now (for a test session, its temporary file).
    public static var storePath: String {
        get throws { try StoreContext.resolve().store.path }
    }

    static func openDefault() throws -> StoreContext { try open(catalog: nil, store: nil, account: nil) }

    /// Opens the catalog and store file found by the engine's rule (``StoreLocation``), as the CLI
    /// finds them; a catalog is looked for in `folder` (nil: the current folder), else the store's last.
    static func open(catalog: String?, store: String?, account: String?, folder: String? = nil) throws -> StoreContext {
        let location = StoreLocation.find(catalog: catalog, store: store,
                                          folder: folder ?? FileManager.default.currentDirectoryPath)
        do {
            return StoreContext(store: try location.open(account: account).store)
        } catch {
            let description = switch error {
            case .noCatalog: "\(error); call StorefrontKit.configure(catalog:)"
            case .ambiguous(let folder, let files):
                "several .storekit files in \(folder) (\(files.joined(separator: ", "))); call StorefrontKit.configure(catalog:) to choose one"
            case .catalog(let failure): "catalog \(failure.description)"
            case .store: error.description
            }
            throw ConfigurationError(description: description)
        }
    }
}

// MARK: - Threads of StorefrontKit's own

/// StorefrontKit's tasks that must not wait behind Swift's shared pool. A serial queue is
/// overcommitting: Dispatch gives it a thread even while every thread of the pool is busy or
/// blocked. StoreKit 1's queue and requests run their work on one each (so its callbacks reach the
/// main queue promptly in a busy test process), and each synchronous wait for the store on a fresh one.
package typealias StoreKitExecutor = DispatchTaskExecutor

extension DispatchTaskExecutor {
    /// Where the sequences an app iterates (`Transaction.updates`, `Message.messages`, status and
    /// storefront updates) watch the store: off Swift's shared pool, so a busy or blocked pool (two
    /// threads on a two-core machine) does not hold back what another process wrote.
    package static let monitors = DispatchTaskExecutor(label: "storefrontkit.monitors")
}

// MARK: - Waiting for the store from synchronous code

/// Runs the work of a synchronous API (`AppStore.canMakePayments`, `SKPaymentQueue.canMakePayments()`,
/// the test session's controls) on a thread of its own, waited for on the calling thread. It must not
/// run on Swift's shared pool: a caller on the main queue would otherwise wait behind every task the
/// process has queued there (seconds in a loaded test run), and every main-queue callback with it;
/// and callers blocking the pool's own threads would wait for a thread they hold.
package enum BlockingExecutor {
    /// The value of `work`, waited for on the calling thread.
    package static func wait<T: Sendable>(_ work: @escaping @Sendable () async -> T) -> T {
        let box = Mutex<T?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task(executorPreference: StoreKitExecutor(label: "storefrontkit.blocking")) {
            let value = await work()
            box.withLock { $0 = value }
            done.signal()
        }
        done.wait()
        return box.withLock { $0! }
    }
}
