import Foundation
import StoreEngine

/// Runs the paywall's effects against the real store engine.
public struct EngineEffects: Sendable {
    public let store: Store
    /// The simulated App Store latency before a purchase or restore completes, so the spinner shows.
    public var latency: Duration

    public init(store: Store, latency: Duration = .milliseconds(400)) {
        self.store = store
        self.latency = latency
    }

    /// Performs one effect and reports its result as an action.
    public func perform(_ effect: Effect) async -> Action? {
        switch effect {
        case .load:
            do {
                return .loaded(try await snapshot())
            } catch {
                return .loadFailed(describe(error))
            }
        case .checkForChanges:
            return (try? await store.dataVersion()).map(Action.dataVersion)
        case .purchase(let productID):
            await simulateLatency()
            do {
                let purchase = try await store.purchaseAndFinish(productID)
                switch purchase.result {
                case .success(let transaction):
                    return .purchased(productID: productID, .success(transactionID: transaction.id, restored: purchase.alreadyOwned))
                case .userCancelled:
                    return .purchased(productID: productID, .userCancelled)
                case .pending:
                    return .purchased(productID: productID, .pending)
                }
            } catch let error as StoreError {
                return .purchased(productID: productID, .failed(name: error.name, domain: error.domain, message: error.message))
            } catch {
                return .purchased(productID: productID, .failed(name: "unknown", domain: "StoreKitError", message: describe(error)))
            }
        case .restore:
            await simulateLatency()
            do {
                return .restored(count: try await store.sync().count)
            } catch {
                return .restoreFailed(describe(error))
            }
        case .consume(let productID):
            do {
                return .consumed(productID: productID, balance: try await store.consume(productID))
            } catch {
                return .consumeFailed(describe(error))
            }
        }
    }

    /// Everything the screen shows, read in one go.
    public func snapshot() async throws -> StoreSnapshot {
        StoreSnapshot(
            storefront: try await store.storefront(),
            products: try await store.products(),
            owned: try await store.ownedProducts(),
            entitled: Set(try await store.currentEntitlements().map(\.productID)),
            balances: try await store.balances(),
            unverified: try await store.unverifiedProducts(),
            canMakePayments: try await store.canMakePayments(),
            events: try await store.events(limit: 20),
            dataVersion: try await store.dataVersion())
    }

    private func simulateLatency() async {
        if latency > .zero { try? await Task.sleep(for: latency) }
    }

    private func describe(_ error: any Error) -> String {
        (error as? StoreError)?.message ?? "\(error)"
    }
}
