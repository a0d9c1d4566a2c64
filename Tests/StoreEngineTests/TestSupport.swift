import Foundation
import Synchronization
import Testing
// Every file of the test target sees TestSupport (clock, folders, processes, tmux).
@_exported import TestSupport
@testable import StoreEngine

// MARK: - A clock the tests move (TestSupport's `TestClock`)

extension TestClock {
    /// Moves time forward by a calendar duration.
    func advance(_ duration: ISODuration) {
        set(duration.after(now))
    }
}

// MARK: - Catalogs

func fixtureCatalog() throws -> Catalog {
    try Catalog.parse(Array(fixtureCatalogText.utf8), file: "fixture.json")
}

/// The instant the fixture stores start at: January 31, so month arithmetic is interesting.
let fixtureStart = utc(2025, 1, 31, 12)

/// A temporary store file with the fixture catalog and a test clock.
struct StoreFixture {
    let folder: String
    let path: String
    let catalog: Catalog
    let clock: TestClock

    /// A new `Store` on the fixture's file (as a new process would open it).
    func open(account: String = Store.defaultAccount) throws -> Store {
        try Store(catalog: catalog, path: path, account: account, now: clock.closure)
    }
}

/// Runs `body` with a store file in a fresh folder, removed afterwards.
func withStoreFixture<T>(_ body: (StoreFixture) async throws -> T) async throws -> T {
    try await withStoreFixture(catalog: try fixtureCatalog(), at: fixtureStart, body)
}

/// Runs `body` with a store file of `catalog` in a fresh folder, removed afterwards, its test clock at `start`.
///
/// With `STOREFRONT_TEST_BACKEND=postgresql` (`make test`'s second run of these suites), the store
/// is a fresh database of the tests' PostgreSQL cluster instead (TestSupport's `PostgreSQLServer`).
func withStoreFixture<T>(catalog: Catalog, at start: Date, _ body: (StoreFixture) async throws -> T) async throws -> T {
    try await withTemporaryFolder { folder in
        let path = TestBackend.current == .postgreSQL ? try PostgreSQLServer.shared().freshSchema(named: "engine")
                                                      : folder + "/store.sqlite"
        return try await body(StoreFixture(folder: folder, path: path, catalog: catalog, clock: TestClock(start)))
    }
}

/// The same, with a catalog in products.json's format (`file` names it in errors).
func withStoreFixture<T>(catalogText: String, file: String, at start: Date,
                         _ body: (StoreFixture) async throws -> T) async throws -> T {
    try await withStoreFixture(catalog: try Catalog.parse(Array(catalogText.utf8), file: file), at: start, body)
}

/// The transaction of a successful purchase; fails the test for any other result.
func transaction(of result: PurchaseResult, sourceLocation: SourceLocation = #_sourceLocation) throws -> Transaction {
    guard case .success(let transaction) = result else {
        Issue.record("expected success, got \(result.name)", sourceLocation: sourceLocation)
        throw TestFailure.unexpectedResult
    }
    return transaction
}

/// The transaction of a purchase that succeeded (purchased, owned already, or a change scheduled).
func transaction(of outcome: PurchaseOutcome, sourceLocation: SourceLocation = #_sourceLocation) throws -> Transaction {
    try transaction(of: outcome.result, sourceLocation: sourceLocation)
}

/// The stored request of a pending purchase; fails the test for any other outcome.
func pendingTransaction(in store: Store, _ outcome: PurchaseOutcome,
                        sourceLocation: SourceLocation = #_sourceLocation) async throws -> Transaction {
    guard case .pending(let request) = outcome else {
        Issue.record("expected pending, got \(outcome.name)", sourceLocation: sourceLocation)
        throw TestFailure.unexpectedResult
    }
    let transaction = try await store.transaction(id: request.id)
    #expect(transaction.status == .pending && transaction.pendingReason == request.reason, sourceLocation: sourceLocation)
    return transaction
}

/// The signed payload of a transaction, verified with the store's key.
func signedPayload(_ store: Store, _ transaction: Transaction,
                   sourceLocation: SourceLocation = #_sourceLocation) async throws -> JSON {
    let jws = try #require(transaction.jwsRepresentation, "not signed", sourceLocation: sourceLocation)
    return try await store.verify(jws: jws).payload
}

enum TestFailure: Error {
    case unexpectedResult
}

/// Buys `productID` and returns the transaction.
func buy(_ store: Store, _ productID: String, quantity: Int = 1,
         sourceLocation: SourceLocation = #_sourceLocation) async throws -> Transaction {
    try transaction(of: try await store.purchase(productID, quantity: quantity), sourceLocation: sourceLocation)
}

/// A decimal from text, never through a binary floating-point literal.
func decimal(_ text: String) -> Decimal {
    Decimal(string: text, locale: Locale(identifier: "en_US_POSIX"))!
}

/// A fresh promotional offer signature for the store's account, as the app's server makes it,
/// with the key `TESTKEY` (made on first use).
func signedOffer(_ store: Store, _ productID: String, _ offerID: String, appAccountToken: UUID? = nil,
                 form: PromotionalOfferSignature.Form = .compactJWS) async throws -> PromotionalOfferSignature {
    if try await !store.appStore.offerKeys().contains(where: { $0.keyID == "TESTKEY" }) {
        _ = try await store.appStore.createOfferKey(keyID: "TESTKEY")
    }
    return try await store.appStore.signPromotionalOffer(productID: productID, offerID: offerID, keyID: "TESTKEY",
                                                         appAccountToken: appAccountToken, form: form)
}

// MARK: - Backends

extension Trait where Self == ConditionTrait {
    /// For a test of the store *file* itself (its bytes, folder, modes, inotify, edits made with
    /// sqlite3): run where the suites run on SQLite, skipped where they run on PostgreSQL
    /// (`STOREFRONT_TEST_BACKEND`), whose own checks are in the PostgreSQL suites.
    static var fileStoreOnly: Self {
        .enabled(if: TestBackend.current == .sqlite, "a test of the store file itself")
    }
}

extension Trait where Self == ConditionTrait {
    /// For a test of what only a store in PostgreSQL has (its listener, a server restart): run
    /// where the suites run on PostgreSQL (`STOREFRONT_TEST_BACKEND`).
    static var postgreSQLOnly: Self {
        .enabled(if: TestBackend.current == .postgreSQL, "a test of the PostgreSQL backend")
    }
}
