import Foundation
import StoreEngine
import Synchronization

/// Runs the paywall's effects against the real store engine.
public final class EngineEffects: Sendable {
    /// The store of the account in use; replaced when the tester switches accounts.
    private let current: Mutex<Store>
    /// The simulated App Store latency before a purchase or restore completes, so the spinner shows.
    public let latency: Duration
    /// The transactions this run of the app was handed and left unfinished: like `Transaction.updates`,
    /// a running app does not get them again; the next launch (a new `EngineEffects`) delivers them.
    private let held = Mutex<Set<Int64>>([])
    /// The catalog file, watched for changes (see `CatalogWatch`); nil: not watched.
    private let catalogWatch: Mutex<CatalogWatch?>

    /// - Parameter catalogPath: the catalog file the store's catalog was read from; when it changes
    ///   while the paywall runs, it is read again (`Action.catalogReloaded`, or `.catalogFailed`).
    public init(store: Store, latency: Duration = .milliseconds(400), catalogPath: String? = nil) {
        current = Mutex(store)
        self.latency = latency
        catalogWatch = Mutex(catalogPath.map(CatalogWatch.init))
    }

    /// The store of the account in use.
    public var store: Store { current.withLock { $0 } }

    // MARK: - The store's changes

    /// The subscription ``storeChanges()`` feeds: its consumer, and the task following the store in use.
    private let subscription = Mutex<(continuation: AsyncStream<Action>.Continuation, task: Task<Void, Never>)?>(nil)

    /// What the store's change feed says, as the paywall's actions, for as long as it runs:
    /// following the store of the account in use across account switches and catalog reloads.
    public func storeChanges() -> AsyncStream<Action> {
        AsyncStream { continuation in
            let store = self.store
            subscription.withLock { running in
                running?.task.cancel()
                running = (continuation, Self.follow(store, into: continuation))
            }
            continuation.onTermination = { [weak self] _ in
                self?.subscription.withLock { running in
                    running?.task.cancel()
                    running = nil
                }
            }
        }
    }

    /// The action a change of the store file becomes: what the feed made due (renewals, billing
    /// steps, on this store's connection, which its data version does not count), else the data
    /// version, which tells another connection's commit. Nil for a subscriber's first value (the
    /// paywall loads anyway).
    public static func action(for change: StoreChange) -> Action? {
        switch change.cause {
        case .subscribed: nil
        case _ where change.madeDueChanges: .renewalsMade(change.renewalsMade)
        default: .dataVersion(change.dataVersion)
        }
    }

    private static func follow(_ store: Store, into continuation: AsyncStream<Action>.Continuation) -> Task<Void, Never> {
        let changes = store.changes.changes(includingUnfinished: false)
        return Task {
            for await change in changes {
                if let action = action(for: change) { continuation.yield(action) }
            }
        }
    }

    /// Makes `store` the one in use, and the one whose changes ``storeChanges()`` follows.
    private func use(_ store: Store) {
        current.withLock { $0 = store }
        subscription.withLock { running in
            guard let following = running else { return }
            following.task.cancel()
            running = (following.continuation, Self.follow(store, into: following.continuation))
        }
    }

    /// Performs one effect and reports its result as an action.
    @Sendable public func perform(_ effect: Effect) async -> Action? {
        let store = self.store
        switch effect {
        case .load:
            do {
                // Years of renewals (a long `clock advance`) are caught up a batch per step, so the
                // paywall can say how far it got; the load comes again until none is due.
                let made = try await whenBusyRetry { try await store.appStore.processRenewals(limit: Self.renewalStep) }
                if try await store.appStore.renewalsDue() { return .catchingUpRenewals(made: made) }
                return .loaded(try await whenBusyRetry { try await snapshot() })
            } catch {
                if let conditions = try? await store.testSession.purchaseConditions() {
                    return .loadRefused(describe(error), conditions: conditions)
                }
                return .loadFailed(describe(error))
            }
        case .checkForChanges:
            // The catalog file; the store file's changes come from its change feed (``storeChanges()``).
            return reloadCatalogIfChanged(store)
        case .purchase(let productID, let choice, let offer, let billingPlan):
            await simulateLatency()
            do {
                let options: OfferOptions
                switch try await offerOptions(offer, productID: productID, store) {
                case .success(let made): options = made
                case .failure(let failure): return .paywall(.purchased(productID: productID, .notSigned(failure.message)))
                }
                // Busy is not broken: nothing was charged when the lock could not be had, so ask again.
                let reported = try await whenBusyRetry {
                    try await store.app.buyReporting(productID, offerID: options.offerID, offerSignature: options.signature,
                                                     winBackOfferID: options.winBackOfferID, billingPlanType: billingPlan, choice: choice)
                }
                // Left unfinished (finishTransactions false): the app holds it until its next launch.
                if case .bought(let purchase, _, _, _) = reported, case .purchased(let transaction, _) = purchase.outcome,
                   !purchase.isFinished {
                    hold(transaction.id)
                }
                return .paywall(.purchased(productID: productID, .ended(reported)))
            } catch StoreError.failedVerification(let error, let id) {
                hold(id)
                return .paywall(.purchased(productID: productID, .unverified(transactionID: id, error: error.rawValue)))
            } catch let error as StoreError {
                return .paywall(.purchased(productID: productID, .failed(name: error.name, domain: error.domain, message: error.message)))
            } catch {
                return .paywall(.purchased(productID: productID, .failed(name: "unknown", domain: "StoreKitError", message: describe(error))))
            }
        case .restore:
            await simulateLatency()
            do {
                return .paywall(.restored(count: try await whenBusyRetry { try await store.app.sync() }.count))
            } catch {
                return .paywall(.restoreFailed(describe(error)))
            }
        case .consume(let productID):
            do {
                return .paywall(.consumed(productID: productID, balance: try await store.app.consume(productID)))
            } catch {
                return .paywall(.consumeFailed(describe(error)))
            }
        case .loadHistory:
            // The newest few hundred: a long history must not slow the screen down.
            do {
                let transactions = try await store.appStore.transactions(limit: 500)
                return .manager(.historyLoaded(transactions, facts: try await store.appStore.facts(of: transactions)))
            } catch {
                return .manager(.historyFailed(describe(error)))
            }
        case .loadSubscriptionHistory(let groupID):
            do {
                return .manager(.subscriptionHistoryLoaded(groupID: groupID,
                                                           try await store.appStore.subscriptionHistory(groupID: groupID)))
            } catch {
                // The timeline is left out; the pane's facts still show.
                return nil
            }
        case .loadNotifications(let id):
            // The App Store's record of what it told the app's server about this transaction.
            do {
                return .manager(.notificationsLoaded(transactionID: id, try await store.appStore.notifications(
                    NotificationFilter(transactionID: id), limit: 100)))
            } catch {
                return .manager(.notificationsFailed(transactionID: id, describe(error)))
            }
        case .loadSettings:
            do {
                let definitions = Dictionary(uniqueKeysWithValues: SettingDefinition.all.map { ($0.name, $0) })
                let rows = try await store.testSession.settings().map { value in
                    let definition = definitions[value.name]!
                    return SettingRow(value: value, choices: definition.choices(in: store.catalog),
                                      summary: definition.summary, acceptsOnce: definition.acceptsOnce)
                }
                return .settings(.loaded(rows, accounts: try await store.testSession.accounts()))
            } catch {
                return .settings(.loadFailed(describe(error)))
            }
        case .run(let command):
            return await run(command, on: store)
        case .redeem(let code):
            await simulateLatency()
            return await redeem(code, store)
        case .displayMessage(let id):
            do { _ = try await store.app.displayMessage(id) } catch { return .messageFailed(describe(error)) }
            return nil
        case .deferMessage(let id):
            do { try await store.app.deferMessage(id) } catch { return .messageFailed(describe(error)) }
            return nil
        case .predictOffer(let attempt):
            // No answer on an error: the sheet predicts nothing, and asks again at the next load.
            do {
                return .sheet(.offerPredicted(attempt, try await whenBusyRetry { try await store.appStore.offerRefusal(attempt) }))
            } catch {
                return nil
            }
        case .previewRefundRequest(let id):
            // As the offer's: no answer on an error, asked again at the next load.
            do {
                return .sheet(.refundRequestPreviewed(transactionID: id, try await whenBusyRetry {
                    try await store.app.refundRequestPreview(transactionID: id)
                }))
            } catch {
                return nil
            }
        }
    }

    private func run(_ command: StoreCommand, on store: Store) async -> Action {
        let (appStore, session) = (store.appStore, store.testSession)
        do {
            let message: String
            switch command {
            case .approve(let id):
                message = try await appStore.approveReporting(id).sentence
            case .decline(let id):
                message = try await appStore.declineReporting(id).sentence
            case .resolve(let id):
                message = try await appStore.resolveReporting(id).sentence
            case .refund(let id, let reason):
                message = try await appStore.refundReporting(id, reason: reason).sentence
            case .delete(let id):
                try await appStore.deleteTransaction(id)
                message = "Deleted transaction \(id)"
            case .buyOutside(let productID):
                message = try await appStore.purchaseOutsideAppReporting(productID).sentence
            case .setSetting(let name, let value, let once):
                let stored = try await session.setSetting(name, to: value, once: once)
                message = ActionOutcome.settingChanged(name: name, value: stored, once: once).sentence
            case .switchAccount(let account):
                let switched = try await session.switchAccount(to: account)
                use(switched)
                return .accountChanged(account)
            case .newTester:
                let account = try await session.unusedTesterName()
                let switched = try await session.switchAccount(to: account)
                use(switched)
                return .accountChanged(account)
            case .expire(let group):
                message = try await appStore.expireSubscriptionReporting(groupID: group).sentence
            case .renew(let group):
                message = try await appStore.renewSubscriptionReporting(groupID: group).sentence
            case .autoRenew(let group, let on):
                message = try await appStore.setAutoRenewReporting(groupID: group, on).sentence
            case .advanceClock(let duration):
                let advance = try await session.advanceClockReporting(by: duration)
                message = "Clock advanced by \(duration.spelledOut): \(clockText(advance.now)). \(advance.summary)"
            case .requestRefund(let id, let reason):
                message = try await store.app.beginRefundRequestReporting(transactionID: id, reason: reason).1.sentence
            case .consentToPriceIncrease(let productID):
                message = try await appStore.consentToPriceIncreaseReporting(productID).1.sentence
            case .updatePaymentMethod:
                _ = try await session.setSetting("billingIssues", to: "false", once: false)
                message = "Payment method updated (billingIssues false): a renewal in billing retry is tried again now"
            case .declinePriceIncrease(let productID):
                message = try await appStore.declinePriceIncreaseReporting(productID).sentence
            case .reset(let scope):
                message = try await session.resetReporting(scope).sentence
            }
            return .commandFinished(command, .success(message))
        } catch {
            return .commandFinished(command, .failure(CommandFailure(describe(error))))
        }
    }

    /// Reads the catalog again once its file changed and the change settled (a stat each check
    /// until then): the store reopens on the new catalog, for the same file and account. A catalog
    /// that cannot be used leaves the one in use.
    private func reloadCatalogIfChanged(_ store: Store) -> Action? {
        let changed = catalogWatch.withLock { watch -> String? in
            guard var current = watch else { return nil }
            let settled = current.changeSettled()
            watch = current
            return settled ? current.path : nil
        }
        guard let path = changed else { return nil }
        let catalog: Catalog
        do {
            catalog = try Catalog.load(contentsOf: path)
        } catch {
            return .catalogFailed(error.description)
        }
        do {
            let reopened = try Store(catalog: catalog, path: store.path, account: store.account)
            use(reopened)
        } catch {
            return .catalogFailed("\(path) was read, but the store file \(error.description)")
        }
        return .catalogReloaded(paywall: catalog.paywall, summary: reloadSummary(file: path, old: store.catalog, new: catalog))
    }

    /// Everything the screen shows, read in one go (one read of the store file), after
    /// delivering what arrived as an update (as an app's `Transaction.updates` listener does).
    public func snapshot() async throws -> StoreSnapshot {
        let snapshot = try await store.app.snapshot(holding: held.withLock { $0 })
        held.withLock { $0.formUnion(snapshot.left.map(\.id)) }
        return snapshot
    }

    /// Remembers a transaction the app left unfinished: this run does not deliver it again.
    private func hold(_ id: Int64) {
        held.withLock { _ = $0.insert(id) }
    }

    func simulateLatency() async {
        if latency > .zero { try? await Task.sleep(for: latency) }
    }

    /// Renewals made per step while the paywall catches up.
    static let renewalStep = 1_000

    /// Runs `body` again while the store file stays locked by another process past the busy
    /// timeout (a write never holds it long, so this is a queue of writers, not a fault).
    func whenBusyRetry<T>(_ body: () async throws -> T) async throws -> T {
        var attempt = 0
        while true {
            do {
                return try await body()
            } catch let error as any LedgerError where error.isBusy && attempt < 5 {
                attempt += 1
                try? await Task.sleep(for: .milliseconds(200 * attempt))
            }
        }
    }

    func describe(_ error: any Error) -> String {
        if let error = error as? any LedgerError, error.isBusy {
            return "The store file is busy: another storefront process holds it (\(error.message)). Try again in a moment."
        }
        return (error as? any NamedFailure)?.description ?? "\(error)"
    }
}
