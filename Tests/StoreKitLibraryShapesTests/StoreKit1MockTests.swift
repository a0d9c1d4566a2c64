import Foundation
import StorefrontKit
import StorefrontKitTest
import Testing
import TestSupport

// A StoreKit 1 library as libraries are written: its request and queue come in from outside (a
// factory, an initialiser's argument) so its own tests can hand it mocks, subclasses of StoreKit's
// classes that override the getters; the library reads them through the base types.

/// The library's product loader: asks a products request made by `makeRequest` and waits for its answer.
final class ProductLoader: NSObject, SKProductsRequestDelegate, @unchecked Sendable {
    // @unchecked: `continuation` is set before the request starts and read on the main queue once.
    private let makeRequest: (Set<String>) -> SKProductsRequest
    private var request: SKProductsRequest?
    private var continuation: CheckedContinuation<(products: [SKProduct], invalid: [String]), any Error>?

    init(makeRequest: @escaping (Set<String>) -> SKProductsRequest = { SKProductsRequest(productIdentifiers: $0) }) {
        self.makeRequest = makeRequest
    }

    func load(_ identifiers: Set<String>) async throws -> (products: [SKProduct], invalid: [String]) {
        try await withCheckedThrowingContinuation { continuation in
            self.continuation = continuation
            let request = makeRequest(identifiers)
            self.request = request
            request.delegate = self
            request.start()
        }
    }

    func productsRequest(_ request: SKProductsRequest, didReceive response: SKProductsResponse) {
        continuation?.resume(returning: (response.products, response.invalidProductIdentifiers))
        continuation = nil
    }

    func request(_ request: SKRequest, didFailWithError error: any Error) {
        continuation?.resume(throwing: error)
        continuation = nil
    }

    /// The price as a paywall writes it: the product's own locale and currency.
    static func localizedPrice(_ product: SKProduct) -> String {
        let formatter = NumberFormatter()
        formatter.numberStyle = .currency
        formatter.locale = product.priceLocale
        return formatter.string(from: product.price) ?? "\(product.price)"
    }

    /// "3 months", "1 week": a period as the library writes it.
    static func describe(_ period: SKProductSubscriptionPeriod) -> String {
        let unit = switch period.unit {
        case .day: "day"
        case .week: "week"
        case .month: "month"
        case .year: "year"
        }
        return "\(period.numberOfUnits) \(unit)\(period.numberOfUnits == 1 ? "" : "s")"
    }

    /// The introductory offer in a sentence.
    static func describe(_ discount: SKProductDiscount) -> String {
        let mode = switch discount.paymentMode {
        case .freeTrial: "free"
        case .payAsYouGo: "pay as you go"
        case .payUpFront: "pay up front"
        }
        return "\(mode) for \(discount.numberOfPeriods) × \(describe(discount.subscriptionPeriod)) at \(discount.price)"
            + (discount.identifier.map { " (\($0))" } ?? "")
    }
}

/// The library's purchase controller: buys on its queue and settles what the queue reports.
final class PurchaseController: NSObject, SKPaymentTransactionObserver, @unchecked Sendable {
    // @unchecked: its logs are behind their locks.
    let queue: SKPaymentQueue
    /// Delivered content: product id and the transaction id that paid for it.
    let delivered = Locked<[String]>([])
    let failures = Locked<[SKError.Code]>([])

    init(queue: SKPaymentQueue = .default()) { self.queue = queue }

    func buy(_ product: SKProduct) { queue.add(SKPayment(product: product)) }

    func paymentQueue(_ queue: SKPaymentQueue, updatedTransactions transactions: [SKPaymentTransaction]) {
        for transaction in transactions {
            switch transaction.transactionState {
            case .purchased, .restored:
                let source = transaction.original ?? transaction
                let date = transaction.transactionDate.map { $0.formatted(.iso8601) } ?? "-"
                delivered.update {
                    $0.append("\(source.payment.productIdentifier) \(source.transactionIdentifier ?? "-") \(transaction.transactionState) \(date)")
                }
                queue.finishTransaction(transaction)
            case .failed:
                failures.update { $0.append((transaction.error as? SKError)?.code ?? .unknown) }
                queue.finishTransaction(transaction)
            case .purchasing, .deferred:
                break
            @unknown default:
                break
            }
        }
    }
}

// MARK: - The mocks

final class MockPeriod: SKProductSubscriptionPeriod, @unchecked Sendable {
    private let units: Int
    private let mockUnit: SKProduct.PeriodUnit
    init(_ units: Int, _ unit: SKProduct.PeriodUnit) {
        (self.units, mockUnit) = (units, unit)
        super.init()
    }
    override var numberOfUnits: Int { units }
    override var unit: SKProduct.PeriodUnit { mockUnit }
}

final class MockDiscount: SKProductDiscount, @unchecked Sendable {
    override var price: NSDecimalNumber { NSDecimalNumber(string: "1.99") }
    override var priceLocale: Locale { Locale(identifier: "de_DE@currency=EUR") }
    override var identifier: String? { "spring" }
    override var subscriptionPeriod: SKProductSubscriptionPeriod { MockPeriod(1, .week) }
    override var numberOfPeriods: Int { 2 }
    override var paymentMode: SKProductDiscount.PaymentMode { .payAsYouGo }
    override var type: SKProductDiscount.`Type` { .subscription }
}

final class MockProduct: SKProduct, @unchecked Sendable {
    private let id: String
    init(id: String) {
        self.id = id
        super.init()
    }
    override var productIdentifier: String { id }
    override var localizedTitle: String { "Mock \(id)" }
    override var localizedDescription: String { "A product a test made" }
    override var price: NSDecimalNumber { NSDecimalNumber(string: "2.49") }
    override var priceLocale: Locale { Locale(identifier: "de_DE@currency=EUR") }
    override var subscriptionPeriod: SKProductSubscriptionPeriod? { MockPeriod(3, .month) }
    override var introductoryPrice: SKProductDiscount? { MockDiscount() }
    override var discounts: [SKProductDiscount] { [MockDiscount()] }
    override var subscriptionGroupIdentifier: String? { "mock-group" }
    override var isFamilyShareable: Bool { true }
}

final class MockProductsResponse: SKProductsResponse, @unchecked Sendable {
    override var products: [SKProduct] { [MockProduct(id: "com.example.mock")] }
    override var invalidProductIdentifiers: [String] { ["com.example.gone"] }
}

/// Answers at once with ``MockProductsResponse``, on the main queue as StoreKit does; never asks a store.
final class MockProductsRequest: SKProductsRequest, @unchecked Sendable {
    override func start() {
        DispatchQueue.main.async { [self] in
            (delegate as? any SKProductsRequestDelegate)?.productsRequest(self, didReceive: MockProductsResponse())
            delegate?.requestDidFinish(self)
        }
    }
}

final class MockStorefront: SKStorefront, @unchecked Sendable {
    override var countryCode: String { "FRA" }
    override var identifier: String { "143442" }
}

final class MockTransaction: SKPaymentTransaction, @unchecked Sendable {
    private let state: SKPaymentTransactionState
    private let id: String?
    private let mockPayment: SKPayment
    private let mockOriginal: SKPaymentTransaction?
    private let mockError: (any Error)?
    init(_ productID: String, _ state: SKPaymentTransactionState, id: String? = nil, original: SKPaymentTransaction? = nil,
         error: (any Error)? = nil) {
        (self.state, self.id, mockOriginal, mockError) = (state, id, original, error)
        mockPayment = SKPayment(product: MockProduct(id: productID))
        super.init()
    }
    override var transactionState: SKPaymentTransactionState { state }
    override var transactionIdentifier: String? { id }
    override var transactionDate: Date? { Date(timeIntervalSince1970: 1_700_000_000) }
    override var payment: SKPayment { mockPayment }
    override var original: SKPaymentTransaction? { mockOriginal }
    override var error: (any Error)? { mockError }
}

/// Records what the library does with it, and fakes what it reports.
final class MockPaymentQueue: SKPaymentQueue, @unchecked Sendable {
    let added = Locked<[String]>([])
    let finished = Locked<[String]>([])
    override func add(_ payment: SKPayment) { added.update { $0.append(payment.productIdentifier) } }
    override func finishTransaction(_ transaction: SKPaymentTransaction) {
        finished.update { $0.append(transaction.transactionIdentifier ?? transaction.payment.productIdentifier) }
    }
    override var transactions: [SKPaymentTransaction] { [MockTransaction("com.example.mock", .deferred)] }
    override var storefront: SKStorefront? { MockStorefront() }
}

// MARK: - The library's tests

@Suite("StoreKit 1 mocks") struct StoreKit1MockTests {
    @Test func aMockRequestsResponseAndItsMockProductsReachTheLibraryThroughTheBaseTypes() async throws {
        let loader = ProductLoader { _ in MockProductsRequest() }
        let (products, invalid) = try await loader.load(["com.example.mock"])
        #expect(invalid == ["com.example.gone"])
        let product = try #require(products.first)
        #expect(product.productIdentifier == "com.example.mock" && product.localizedTitle == "Mock com.example.mock")
        #expect(ProductLoader.localizedPrice(product).contains("2,49"), "the mock's price in the mock's de_DE locale")
        #expect(ProductLoader.localizedPrice(product).contains("€"))
        #expect(ProductLoader.describe(try #require(product.subscriptionPeriod)) == "3 months")
        #expect(ProductLoader.describe(try #require(product.introductoryPrice)) == "pay as you go for 2 × 1 week at 1.99 (spring)")
        #expect(product.discounts.map(\.type) == [.subscription] && product.subscriptionGroupIdentifier == "mock-group")
        #expect(product.isFamilyShareable && !product.isDownloadable)
    }

    @Test func theRealRequestStillAnswersFromTheStore() async throws {
        try await inSession { _ in
            let (products, invalid) = try await ProductLoader().load([ID.shopping, "com.example.gone"])
            #expect(invalid == ["com.example.gone"])
            let product = try #require(products.first)
            #expect(product.productIdentifier == ID.shopping && product.price == NSDecimalNumber(string: "0.99"))
            #expect(ProductLoader.localizedPrice(product) == "$0.99")
            #expect(product.subscriptionPeriod == nil && product.introductoryPrice == nil)
        }
    }

    @Test func theLibrarySettlesMockTransactionsOnAMockQueue() async throws {
        try await inSession { _ in
            let queue = MockPaymentQueue()
            let controller = PurchaseController(queue: queue)
            controller.buy(MockProduct(id: "com.example.mock"))
            #expect(queue.added.value == ["com.example.mock"], "the mock queue's add(_:) took the payment, not the store")

            let bought = MockTransaction("com.example.mock", .purchased, id: "1001")
            let restored = MockTransaction("com.example.mock", .restored, id: "2002",
                                           original: MockTransaction("com.example.original", .purchased, id: "900"))
            let failed = MockTransaction("com.example.mock", .failed, id: "3003", error: SKError(.paymentCancelled))
            let waiting = MockTransaction("com.example.mock", .deferred)
            let base: SKPaymentQueue = queue
            controller.paymentQueue(base, updatedTransactions: [bought, restored, failed, waiting])

            #expect(controller.delivered.value == ["com.example.mock 1001 purchased 2023-11-14T22:13:20Z",
                                                   "com.example.original 900 restored 2023-11-14T22:13:20Z"])
            #expect(controller.failures.value == [.paymentCancelled])
            #expect(queue.finished.value == ["1001", "2002", "3003"], "the mock's finishTransaction, not the store's")
            #expect(base.transactions.map(\.transactionState) == [.deferred])
            #expect(base.storefront?.countryCode == "FRA" && base.storefront?.identifier == "143442")
        }
    }

    @Test func aMockProductBuysInTheStoreUnderItsOverriddenIdentifier() async throws {
        try await inSession { _ in
            let queue = SKPaymentQueue.default()
            let controller = PurchaseController(queue: queue)
            queue.add(controller)
            defer { queue.remove(controller) }
            // The payment reads the product's identifier through the getter the mock overrides.
            controller.buy(MockProduct(id: ID.shopping))
            #expect(await eventually { !controller.delivered.value.isEmpty || !controller.failures.value.isEmpty })
            #expect(controller.failures.value.isEmpty)
            let delivered = try #require(controller.delivered.value.first)
            #expect(delivered.hasPrefix("\(ID.shopping) ") && delivered.contains(" purchased "))
            #expect(await Transaction.currentEntitlement(for: ID.shopping) != nil)
        }
    }

    @Test func theRealQueueLeavesAMockTransactionAlone() async throws {
        try await inSession { _ in
            let queue = SKPaymentQueue.default()
            queue.finishTransaction(MockTransaction(ID.shopping, .purchased, id: "1"))
            #expect(queue.transactions.isEmpty)
            var stored = 0
            for await _ in Transaction.all { stored += 1 }
            #expect(stored == 0, "finishing a mock asks nothing of the store")
            let storefront = try #require(queue.storefront)
            #expect(storefront.countryCode == "USA", "the real storefront still comes from the store")
        }
    }

    @Test func emptyObjectsAreApplesEmptyValues() {
        let product = SKProduct()
        #expect(product.productIdentifier.isEmpty && product.price == NSDecimalNumber(value: 0) && product.subscriptionPeriod == nil)
        let transaction = SKPaymentTransaction()
        #expect(transaction.transactionState == .purchasing && transaction.transactionIdentifier == nil)
        #expect(transaction.payment.productIdentifier.isEmpty && transaction.original == nil && transaction.downloads.isEmpty)
        #expect(SKProductsResponse().products.isEmpty && SKStorefront().countryCode.isEmpty)
        #expect(SKProductSubscriptionPeriod().numberOfUnits == 0 && SKProductDiscount().numberOfPeriods == 0)
    }
}
