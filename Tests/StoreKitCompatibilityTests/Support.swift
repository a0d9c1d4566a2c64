import StorefrontKit
import StorefrontKitTest
import Testing
@_exported import TestSupport

// The behaviour tests' shared parts. The Compat*.swift files beside them are app code that only
// has to compile; these files run each declaration against a test session's store.

/// The repository's bundled products.json.
let catalogURL = URL(fileURLWithPath: Repository.catalog)

enum ID {
    static let goPro = "com.CephalopodStudio.PurchasePro.GoPro"
    static let coins = "com.example.storefront.coins100"
    static let monthly = "barcode_month_subscription"
    static let yearly = "barcode_year_subscription"
}

/// Runs `body` against a fresh test session's store.
func inSession<T>(_ body: (SKTestSession) async throws -> T) async throws -> T {
    let session = try SKTestSession(contentsOf: catalogURL)
    return try await session.run { try await body(session) }
}

/// The one product with this id.
func product(_ id: String) async throws -> Product {
    try #require(try await Product.products(for: [id]).first)
}

/// Buys `id` and returns its verified transaction, finished.
@discardableResult
func buy(_ id: String, options: Set<Product.PurchaseOption> = []) async throws -> Transaction {
    guard case .success(let result) = try await product(id).purchase(options: options) else {
        throw StoreKitError.unknown
    }
    let transaction = try result.payloadValue
    await transaction.finish()
    return transaction
}


/// The first element of an endless sequence within `seconds`, else nil.
func firstElement<S: AsyncSequence & Sendable>(of sequence: S, within seconds: Double) async -> S.Element?
where S.Element: Sendable {
    await withTaskGroup(of: S.Element?.self) { group in
        group.addTask {
            do { for try await element in sequence { return element } } catch {}
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
