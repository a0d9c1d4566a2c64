import Foundation
import StoreEngine
import Synchronization

/// A purchase the customer started outside the app — a promoted in-app purchase on the App
/// Store, or a win-back offer — for the app to complete with `product.purchase()` (StoreKit's `PurchaseIntent`).
///
/// Where the App Store's promoted purchase (or Xcode's `purchaseIntent` URL) starts one on a
/// device, here it is ``send(productID:offerID:)`` in the app's process, or the product ids in
/// `$STOREFRONT_PURCHASE_INTENTS` (comma-separated; `PRODUCT_ID:OFFER_ID` for a win-back offer),
/// which every `intents` sequence hands out at its start.
public struct PurchaseIntent: Sendable, Hashable, Identifiable {
    /// The product the customer chose.
    public let product: Product
    /// The win-back offer the customer chose, for a subscription.
    public let offer: Product.SubscriptionOffer?
    /// The product's identifier.
    public var id: Product.ID { product.id }

    /// The purchase intents, as they come: those of `$STOREFRONT_PURCHASE_INTENTS`, then each one sent.
    public static var intents: PurchaseIntents {
        PurchaseIntents {
            AsyncStream { continuation in
                let waiting = ProcessInfo.processInfo.environment["STOREFRONT_PURCHASE_INTENTS"].map(parse) ?? []
                let listener = IntentBus.shared.listen { request in
                    Task { if let intent = await make(request) { continuation.yield(intent) } }
                }
                let task = Task { for request in waiting { if let intent = await make(request) { continuation.yield(intent) } } }
                continuation.onTermination = { _ in
                    task.cancel()
                    IntentBus.shared.stop(listener)
                }
            }
        }
    }

    /// Starts a purchase outside the app, as a customer tapping a promoted in-app purchase (or a
    /// win-back offer, `offerID`) on the App Store (StorefrontKit's own): every `intents` sequence
    /// running now gets it; with none running, the next one to start does, as StoreKit holds an
    /// intent until the app listens. A product the catalog does not have is dropped, as the App Store would.
    public static func send(productID: String, offerID: String? = nil) {
        IntentBus.shared.send(Request(productID: productID, offerID: offerID))
    }

    struct Request: Sendable {
        var productID: String
        var offerID: String?
    }

    private static func parse(_ text: String) -> [Request] {
        text.split(separator: ",").compactMap { item in
            let parts = item.trimmingCharacters(in: .whitespaces).split(separator: ":", maxSplits: 1).map(String.init)
            guard let id = parts.first, !id.isEmpty else { return nil }
            return Request(productID: id, offerID: parts.count > 1 ? parts[1] : nil)
        }
    }

    private static func make(_ request: Request) async -> PurchaseIntent? {
        guard let product = try? await Product.products(for: [request.productID]).first else { return nil }
        let offer = request.offerID.flatMap { id in product.subscription?.winBackOffers.first { $0.id == id } }
        return PurchaseIntent(product: product, offer: offer)
    }

    /// An asynchronous sequence of purchase intents (StoreKit's `PurchaseIntent.PurchaseIntents`).
    public struct PurchaseIntents: AsyncSequence, Sendable {
        /// Each intent as the customer made it.
        public typealias Element = PurchaseIntent
        let makeStream: @Sendable () -> AsyncStream<PurchaseIntent>

        /// Starts the sequence.
        public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(base: makeStream().makeAsyncIterator()) }

        /// Iterates the sequence.
        public struct AsyncIterator: AsyncIteratorProtocol {
            var base: AsyncStream<PurchaseIntent>.AsyncIterator
            /// The next intent; never nil while the sequence runs.
            public mutating func next() async -> PurchaseIntent? { await base.next() }
        }
    }
}

/// Hands each sent purchase intent to every sequence listening in this process, or holds it
/// for the next one to start when none is.
final class IntentBus: Sendable {
    static let shared = IntentBus()
    private struct State {
        var listeners: [Int: @Sendable (PurchaseIntent.Request) -> Void] = [:]
        var held: [PurchaseIntent.Request] = []
        var nextID = 0
    }
    private let state = Mutex(State())

    func listen(_ handler: @escaping @Sendable (PurchaseIntent.Request) -> Void) -> Int {
        let (id, held) = state.withLock { state in
            state.nextID += 1
            state.listeners[state.nextID] = handler
            defer { state.held = [] }
            return (state.nextID, state.held)
        }
        for request in held { handler(request) }
        return id
    }

    func stop(_ id: Int) { _ = state.withLock { $0.listeners.removeValue(forKey: id) } }

    func send(_ request: PurchaseIntent.Request) {
        let handlers = state.withLock { state in
            if state.listeners.isEmpty { state.held.append(request) }
            return Array(state.listeners.values)
        }
        for handler in handlers { handler(request) }
    }
}
