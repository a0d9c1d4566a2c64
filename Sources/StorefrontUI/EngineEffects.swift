import Foundation
import StoreEngine
import Synchronization

/// Runs the paywall's effects against the real store engine.
public final class EngineEffects: Sendable {
    /// The store of the account in use; replaced when the tester switches accounts.
    private let current: Mutex<Store>
    /// The simulated App Store latency before a purchase or restore completes, so the spinner shows.
    public let latency: Duration

    public init(store: Store, latency: Duration = .milliseconds(400)) {
        current = Mutex(store)
        self.latency = latency
    }

    /// The store of the account in use.
    public var store: Store { current.withLock { $0 } }

    /// Performs one effect and reports its result as an action.
    @Sendable public func perform(_ effect: Effect) async -> Action? {
        let store = self.store
        switch effect {
        case .load:
            do {
                return .loaded(try await snapshot())
            } catch {
                return .loadFailed(describe(error))
            }
        case .checkForChanges:
            // Renewals fall due as the store's clock runs. Made on this connection, they do not
            // change its data version (that counts other connections' commits): say so instead.
            if let made = try? await store.processRenewals(), made > 0 { return .renewalsMade(made) }
            return (try? await store.dataVersion()).map(Action.dataVersion)
        case .purchase(let productID, let outcome):
            await simulateLatency()
            do {
                let purchase = try await store.purchaseAndFinish(productID, outcome: outcome)
                switch purchase.result {
                case .success(let transaction):
                    return .purchased(productID: productID, .success(transactionID: transaction.id, restored: purchase.alreadyOwned))
                case .userCancelled:
                    return .purchased(productID: productID, .userCancelled)
                case .pending(let transaction):
                    return .purchased(productID: productID, .pending(transaction?.pendingReason))
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
        case .loadHistory:
            // The newest few hundred: a long history must not slow the screen down.
            do {
                return .historyLoaded(try await store.transactions(limit: 500))
            } catch {
                return .historyFailed(describe(error))
            }
        case .loadSettings:
            do {
                let definitions = Dictionary(uniqueKeysWithValues: SettingDefinition.all.map { ($0.name, $0) })
                let rows = try await store.settings().map { value in
                    let definition = definitions[value.name]!
                    return SettingRow(value: value, choices: definition.choices(in: store.catalog),
                                      summary: definition.summary, acceptsOnce: definition.acceptsOnce)
                }
                return .settingsLoaded(rows, accounts: try await store.accounts())
            } catch {
                return .settingsFailed(describe(error))
            }
        case .run(let command):
            return await run(command, on: store)
        }
    }

    private func run(_ command: StoreCommand, on store: Store) async -> Action {
        do {
            let message: String
            switch command {
            case .approve(let id):
                message = "Approved \(id) (\(try await name(try await store.approve(id), store))): it arrives as an update"
            case .decline(let id):
                message = "Declined \(id) (\(try await name(try await store.decline(id), store)))"
            case .resolve(let id):
                message = "Resolved \(id) (\(try await name(try await store.resolve(id), store))): it arrives as an update"
            case .refund(let id):
                message = "Refunded \(id) (\(try await name(try await store.refund(id), store))): revoked"
            case .delete(let id):
                try await store.deleteTransaction(id)
                message = "Deleted transaction \(id)"
            case .buyOutside(let productID):
                let restorable = store.catalog.product(id: productID)?.type.isRestorable == true
                let owned = restorable ? try await store.isEntitled(to: productID) : false
                let result = try await store.purchaseOutsideApp(productID)
                guard case .success(let transaction) = result else { return .commandFinished(command, .success("")) }
                message = owned ? "The account owns \(try await name(transaction, store)) already: nothing was charged"
                    : "Purchased \(try await name(transaction, store)) outside the app (\(transaction.id))"
            case .setSetting(let name, let value, let once):
                let stored = try await store.setSetting(name, to: value, once: once)
                message = "\(name) = \(stored)\(once ? " (once)" : "")"
            case .switchAccount(let account):
                let switched = try await store.switchAccount(to: account)
                current.withLock { $0 = switched }
                return .accountChanged(account)
            case .newTester:
                let account = try await store.unusedTesterName()
                let switched = try await store.switchAccount(to: account)
                current.withLock { $0 = switched }
                return .accountChanged(account)
            case .expire(let group):
                try await store.expireSubscription(groupID: group)
                message = "Expired the \(group) subscription now"
            case .renew(let group):
                try await store.renewSubscription(groupID: group)
                message = "Renewed the \(group) subscription now"
            case .autoRenew(let group, let on):
                try await store.setAutoRenew(groupID: group, on)
                message = "Auto-renew \(on ? "on" : "off") for \(group)"
            case .advanceClock(let duration):
                let now = try await store.advanceClock(by: duration)
                message = "Clock advanced by \(duration.spelledOut): \(clockText(now))"
            case .reset(let scope):
                try await store.reset(scope)
                message = switch scope {
                case .app: "Deleted the app: restore brings purchases back"
                case .account: "Cleared \(store.account)'s history"
                case .all: "Reset everything"
                }
            }
            return .commandFinished(command, .success(message))
        } catch {
            return .commandFinished(command, .failure(CommandFailure(describe(error))))
        }
    }

    private func name(_ transaction: Transaction, _ store: Store) async throws -> String {
        try await store.product(id: transaction.productID)?.displayName ?? transaction.productID
    }

    /// Everything the screen shows, read in one go, after delivering what arrived
    /// as an update (as an app's `Transaction.updates` listener does).
    public func snapshot() async throws -> StoreSnapshot {
        let store = self.store
        // Read first: a commit by another process while the rest is read then counts as a
        // change still to load, rather than being taken for part of this snapshot and missed.
        let version = try await store.dataVersion()
        let delivery = try await store.deliverUnfinished()
        let statuses = try await store.subscriptionStatuses()
        let (clock, rate) = try await store.clock()
        let eligible = try await store.introOfferEligibleGroups()
        var snapshot = StoreSnapshot(
            storefront: try await store.storefront(),
            products: try await store.products(),
            owned: try await store.ownedProducts(),
            entitled: Set(try await store.currentEntitlements().map(\.productID)),
            balances: try await store.balances(),
            unverified: try await store.unverifiedProducts(),
            canMakePayments: try await store.canMakePayments(),
            events: try await store.events(limit: 20),
            dataVersion: version,
            arrived: delivery.finished.map(\.productID))
        snapshot.subscriptions = Dictionary(uniqueKeysWithValues: statuses.map { ($0.groupID, $0) })
        snapshot.introEligibleGroups = eligible
        // Shown only once the store's time is its own: running fast, or moved ahead.
        snapshot.timeRate = rate
        snapshot.clock = rate != .realTime || abs(clock.timeIntervalSinceNow) > 60 ? clock : nil
        return snapshot
    }

    private func simulateLatency() async {
        if latency > .zero { try? await Task.sleep(for: latency) }
    }

    private func describe(_ error: any Error) -> String {
        (error as? StoreError)?.description ?? "\(error)"
    }
}
