import Dispatch
import Foundation
import Synchronization

/// The in-process App Store: products, purchases, restore and entitlements for
/// one sandbox account, kept in a store file that other processes may share.
///
/// Every call reads the store file afresh, so a second process's purchases and
/// resets are seen at once. Writes take the file's write lock up front and are
/// durable (`synchronous=FULL`) before a call returns success.
public actor Store {
    /// The account used when none is named.
    public static let defaultAccount = "tester@local"

    public nonisolated let catalog: Catalog
    /// The catalog's shortest subscription period, worked out once: every read of the clock needs it.
    nonisolated let shortestPeriod: ISODuration?
    public nonisolated let account: String
    /// The store file's path, or the PostgreSQL database's URI without its password: the store
    /// as users see it.
    public nonisolated let path: String
    /// Where the store is, with the password a PostgreSQL URI may hold: for the change feed's and
    /// the notification sender's own connections, never shown.
    package nonisolated let address: StoreAddress
    /// The store's records, reached only through its typed reads and atomic writes.
    let ledger: Ledger
    /// The store's signing key and certificate chain, kept in the store and handed over once
    /// when it opens: every JWS, receipt and verification of this store uses it.
    nonisolated let signer: SigningIdentity
    nonisolated let ledgerPublicKeyPEM: String
    /// What was repaired when the file was opened (a mode that let others read it): say it to the user.
    public nonisolated let warnings: [String]
    /// The store runs on a queue of its own: SQLite waits for locks and fsync
    /// block, and must not hold up Swift's small cooperative thread pool.
    private nonisolated let executor = QueueExecutor(label: "storefront.store")

    public nonisolated var unownedExecutor: UnownedSerialExecutor {
        executor.asUnownedSerialExecutor()
    }
    /// Whether the store file's commits wait for the disk.
    public nonisolated let durability: Durability
    /// Real time; the store's own time (``currentTime()``) is derived from it by the clock settings.
    let now: @Sendable () -> Date
    /// The change feed, made when first asked for (``changes``).
    nonisolated let feedBox = Mutex<StoreChangeFeed?>(nil)
    /// Whether this store compared the catalog's subscription prices with the ones the file saw last.
    var catalogPricesNoticed = false

    /// Opens (or creates) the store at `path` for `account`: a store file's path, or a libpq
    /// connection URI (`postgresql://…`, `postgres://…`) for a store in PostgreSQL.
    /// - Parameters:
    ///   - createFolder: create the file's folder when missing (the default location does).
    ///   - now: the store's clock; tests pass a fixed or stepping one.
    ///   - account: the sandbox account; nil means the one last switched to (`accounts switch`), else ``defaultAccount``.
    ///   - durability: whether a store file's commits wait for the disk (a test session's need not).
    public init(catalog: Catalog, path: String, account: String? = nil, createFolder: Bool = false,
                durability: Durability = .full, now: @escaping @Sendable () -> Date = Date.init) throws(StoreFileError) {
        try self.init(catalog: catalog, path: path, account: account, createFolder: createFolder, durability: durability, template: nil, now: now)
    }

    /// Opens (or creates) the store at `path`, a new store file being made from `template`, a closed
    /// store file's bytes (a test session's, made once for its configuration file).
    /// - Parameter catalogFile: the catalog's file, absolute, kept in a file store as the one it
    ///   last ran with (`Store+CatalogFile.swift`); nil: the store's record is left as it is.
    package init(catalog: Catalog, path: String, account: String? = nil, createFolder: Bool = false,
                 durability: Durability = .full, template: [UInt8]?, catalogFile: String? = nil,
                 now: @escaping @Sendable () -> Date = Date.init) throws(StoreFileError) {
        let address = StoreAddress(path)
        let ledger = try Ledger.open(address, bundleID: catalog.bundleID, createFolder: createFolder, durability: durability,
                                     template: template, now: now)
        // Without a catalog the app's bundle id is the one the file's transactions were signed
        // for, so they stay verified and a refund re-signs them for the same app.
        if catalog.isAbsent { ledger.adoptSignedBundleID() }
        try self.init(catalog: catalog, ledger: ledger, address: address, account: account, durability: durability,
                      catalogFile: catalogFile, now: now)
    }

    /// Opens the store on `ledger`, opened already at `address` (for `catalog`'s bundle id).
    init(catalog: Catalog, ledger: Ledger, address: StoreAddress, account: String?, durability: Durability,
         catalogFile: String?, now: @escaping @Sendable () -> Date) throws(StoreFileError) {
        let path = address.location
        self.catalog = catalog
        self.durability = durability
        self.shortestPeriod = catalog.shortestSubscriptionPeriod
        self.path = address.shown
        self.address = address
        self.now = now
        self.ledger = ledger
        self.signer = ledger.signingIdentity
        self.ledgerPublicKeyPEM = signer.publicKeyPEM
        self.warnings = ledger.warnings
        do {
            self.account = try account ?? ledger.setting(Self.currentAccountSetting, account: "") ?? Self.defaultAccount
        } catch {
            throw StoreFileError(path: path, reason: "cannot be read: \(error)")
        }
        // What the catalog brings (Ask to Buy, the time rate, …) is kept in the file, for every process.
        Self.recordStartingSettings(of: catalog, in: ledger)
        // A path is one host's: a store in a database keeps none (`Store+CatalogFile.swift`).
        if let catalogFile, address.isFile { Self.recordCatalogFile(catalogFile, in: ledger) }
        // Every signedDate is store time. The ledger is only used on this actor's executor.
        ledger.signingTime = { [unowned self] in try self.assumeIsolated { try $0.currentTime() } }
    }

    /// The same store on a connection of its own: the same catalog, account and clock, an
    /// actor of its own, so that what it reads never waits behind a write of this one's that
    /// waits for the store's lock (`serve`'s reads beside its writes).
    public nonisolated func sibling() throws(StoreFileError) -> Store {
        try Store(catalog: catalog, path: address.location, account: account, durability: durability, now: now)
    }

    // MARK: - Products

    /// The storefront the store is in now (the `storefront` setting, else the catalog's default).
    func storefront() throws -> Storefront {
        let code = try value(.storefront)
        return catalog.storefront(code) ?? catalog.storefront(catalog.defaultStorefront) ?? .unitedStates
    }

    /// The catalog's products on offer in the current storefront, localized and priced,
    /// in display order (`Product.products(for:)`): latency, `offline` and `loadProductsError` apply.
    func products() async throws -> [Product] {
        try await simulateConditions(errorSetting: .loadProductsError)
        return try pricedProducts(in: try storefront())
    }

    /// The catalog's products in `storefront`, a subscription at the price a price change set, if one did.
    func pricedProducts(in storefront: Storefront) throws -> [Product] {
        let changed = try ledger.changedPrices(storefront: storefront.countryCode)
        let products = catalog.products(in: storefront)
        guard !changed.isEmpty else { return products }
        // A price change's price replaces the catalog's, displayed as the storefront writes it.
        return products.map { product in
            guard product.subscription != nil, let price = changed[product.id] else { return product }
            var repriced = product
            (repriced.price, repriced.displayPrice) = (price, storefront.displayPrice(price))
            return repriced
        }
    }

    /// One product as the current storefront shows it (at its changed price, if a price change set one).
    func product(id: String) throws -> Product? {
        guard let item = catalog.product(id: id) else { return nil }
        return try priced(item, in: try storefront())
    }

    /// A product's display name in the storefront, or its id when the catalog has no such product:
    /// how every action's outcome names it.
    func productName(_ productID: String) throws -> String {
        try product(id: productID)?.displayName ?? productID
    }

    /// Whether this account may make payments (`AppStore.canMakePayments`).
    func canMakePayments() throws -> Bool {
        try value(.canMakePayments)
    }

    // MARK: - Faces

    /// What an app calls: products, purchases, updates, entitlements, restore, status.
    public nonisolated var app: AppFace { AppFace(store: self) }
    /// What happens outside the app: approvals, refunds, purchases elsewhere, renewals.
    public nonisolated var appStore: AppStoreFace { AppStoreFace(store: self) }
    /// What a tester controls: conditions, errors, the clock, accounts, resets.
    public nonisolated var testSession: TestSessionFace { TestSessionFace(store: self) }
}

/// A serial executor on a dispatch queue of its own. Dispatch gives such queues
/// extra threads when one blocks, unlike the cooperative pool (one thread per core).
final class QueueExecutor: SerialExecutor, @unchecked Sendable {
    // Immutable; DispatchQueue is thread-safe.
    private let queue: DispatchQueue

    init(label: String) {
        queue = DispatchQueue(label: label)
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedSerialExecutor()) }
    }

    func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }
}
