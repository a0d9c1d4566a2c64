import Foundation
import StoreEngine

/// The App Store as the app sees it (StoreKit's `AppStore`).
public enum AppStore {
    /// Whether the account may make payments (the `canMakePayments` setting). Waits briefly for the store file.
    public static var canMakePayments: Bool {
        BlockingExecutor.wait {
            guard let context = try? StoreContext.resolve() else { return false }
            return (try? await context.store.app.canMakePayments()) ?? false
        }
    }

    /// Restores purchases: brings back what the account owns (`Restore Purchases`).
    public static func sync() async throws {
        let context = try resolvedContext()
        _ = try await storeKitCall { try await context.store.app.sync() }
        context.changed()
    }

    /// The server environment of a transaction (StoreKit's `AppStore.Environment`).
    public struct Environment: RawRepresentable, Hashable, Sendable {
        /// StoreKit's raw value.
        public let rawValue: String
        /// Creates the environment with this raw value.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The App Store.
        public static let production = Environment(rawValue: "Production")
        /// The sandbox.
        public static let sandbox = Environment(rawValue: "Sandbox")
        /// Local testing (a store file is one).
        public static let xcode = Environment(rawValue: "Xcode")
    }
}

/// The App Store country the account buys in (StoreKit's `Storefront`).
public struct Storefront: Sendable, Hashable, Identifiable {
    /// ISO 3166-1 alpha-3 code (`USA`, `DEU`).
    public let countryCode: String
    /// Apple's numeric storefront id (`143441` for the USA).
    public let id: String
    /// The storefront's currency code (`USD`).
    public let currencyCode: String?

    init(countryCode: String, currency: String? = nil) {
        let known = AppStoreStorefront.named(countryCode)
        self.countryCode = countryCode
        id = known?.id ?? countryCode
        currencyCode = currency ?? known?.currency
    }

    /// The currency the storefront prices in.
    public var currency: Locale.Currency? { currencyCode.map { Locale.Currency($0) } }

    /// The storefront the store is in now; nil when no store can be opened.
    public static var current: Storefront? {
        get async {
            guard let context = try? StoreContext.resolve(),
                  let storefront = try? await context.store.app.storefront() else { return nil }
            return Storefront(countryCode: storefront.countryCode, currency: storefront.currency)
        }
    }

    /// The storefront each time it changes (`storefront set`, the test session's `storefront`),
    /// by this process or another one using the same store file, from the moment the sequence is
    /// made; not the one it is in then (read now, waiting briefly for the store file).
    public static var updates: Storefronts {
        let context = try? StoreContext.resolve()
        let start = context.flatMap { context in BlockingExecutor.wait { try? await context.store.app.storefront().countryCode } }
        return Storefronts {
            AsyncStream { continuation in
                guard let context else { return }  // no store: a change never comes
                let changes = context.store.changes.changes(includingUnfinished: false)
                let task = Task(executorPreference: StoreKitExecutor.monitors) {
                    var last = start
                    await StoreContext.readAfterEachChange(changes, { try await context.store.app.storefront() }) { now in
                        guard now.countryCode != last else { return }
                        last = now.countryCode
                        continuation.yield(Storefront(countryCode: now.countryCode, currency: now.currency))
                    }
                }
                continuation.onTermination = { _ in task.cancel() }
            }
        }
    }

    /// An asynchronous sequence of storefronts (StoreKit's `Storefront.Storefronts`).
    public struct Storefronts: AsyncSequence, Sendable {
        /// Each storefront as the account moved to it.
        public typealias Element = Storefront
        let makeStream: @Sendable () -> AsyncStream<Storefront>

        /// Starts the sequence.
        public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(base: makeStream().makeAsyncIterator()) }

        /// Iterates the sequence.
        public struct AsyncIterator: AsyncIteratorProtocol {
            var base: AsyncStream<Storefront>.AsyncIterator
            /// The next storefront; never nil while the sequence runs.
            public mutating func next() async -> Storefront? { await base.next() }
        }
    }
}

/// StoreKit's module name as a namespace, so `StoreKit.Transaction` and friends compile unchanged.
public enum StoreKit {
    /// `StoreKit.Product`.
    public typealias Product = SKProductAlias
    /// `StoreKit.Transaction`.
    public typealias Transaction = SKTransactionAlias
    /// `StoreKit.AppStore`.
    public typealias AppStore = SKAppStoreAlias
    /// `StoreKit.VerificationResult`.
    public typealias VerificationResult<T: Sendable> = SKVerificationResultAlias<T>
    /// `StoreKit.Storefront`.
    public typealias Storefront = SKStorefrontAlias
    /// `StoreKit.Message`.
    public typealias Message = SKMessageAlias
}

/// The module-level `Product`, for ``StoreKit/Product``.
public typealias SKProductAlias = Product
/// The module-level `Transaction`, for ``StoreKit/Transaction``.
public typealias SKTransactionAlias = Transaction
/// The module-level `AppStore`, for ``StoreKit/AppStore``.
public typealias SKAppStoreAlias = AppStore
/// The module-level `VerificationResult`, for ``StoreKit/VerificationResult``.
public typealias SKVerificationResultAlias<T: Sendable> = VerificationResult<T>
/// The module-level `Storefront`, for ``StoreKit/Storefront``.
public typealias SKStorefrontAlias = Storefront
/// The module-level `Message`, for ``StoreKit/Message``.
public typealias SKMessageAlias = Message

extension StorefrontKit {
    /// `StorefrontKit.Product`: the module-qualified spelling, which this enum's name would otherwise hide.
    public typealias Product = SKProductAlias
    /// `StorefrontKit.Transaction`, as ``StorefrontKit/Product``.
    public typealias Transaction = SKTransactionAlias
    /// `StorefrontKit.AppStore`, as ``StorefrontKit/Product``.
    public typealias AppStore = SKAppStoreAlias
    /// `StorefrontKit.Storefront`, as ``StorefrontKit/Product``.
    public typealias Storefront = SKStorefrontAlias
    /// `StorefrontKit.Message`, as ``StorefrontKit/Product``.
    public typealias Message = SKMessageAlias
}
