import Foundation
import StorefrontKit
import StorefrontKitTest
import Synchronization
import Testing
@_exported import TestSupport

// Shared parts of the library-shape suites: a test session's store, the catalog's ids, waiting.
// The suites beside it are written as StoreKit libraries write their code and their tests (mocks
// that subclass StoreKit 1's classes, errors built from NSError, a queue observer with downloads, a
// format style set property by property, an entitlement state switched over), with only the import
// changed; each runs against a test session's store.

/// The repository's bundled products.json.
let catalogURL = URL(fileURLWithPath: Repository.catalog)

enum ID {
    static let shopping = "com.razeware.razefaces.swiftshopping"
    static let goPro = "com.CephalopodStudio.PurchasePro.GoPro"
    static let monthly = "barcode_month_subscription"
    static let yearly = "barcode_year_subscription"
}

/// Runs `body` against a fresh test session's store.
func inSession<T>(_ body: (SKTestSession) async throws -> T) async throws -> T {
    let session = try SKTestSession(contentsOf: catalogURL)
    return try await session.run { try await body(session) }
}

/// A value a test reads while callbacks on the main queue write it.
final class Locked<Value: Sendable>: Sendable {
    private let state: Mutex<Value>
    init(_ value: Value) { state = Mutex(value) }
    var value: Value { state.withLock { $0 } }
    func update(_ body: (inout Value) -> Void) { state.withLock { body(&$0) } }
}
