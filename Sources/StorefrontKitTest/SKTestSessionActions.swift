import Foundation
import StoreEngine
import StorefrontKit

extension SKTestSession {
    // MARK: - Resets

    /// Wipes everything: transactions, the app's records and every setting, back to the configuration file's defaults.
    public func resetToDefaultState() {
        _ = try? act { try await $0.testSession.reset(.all) }
    }

    /// Removes every transaction of the account, so one-time purchases can be bought again; settings stay.
    public func clearTransactions() {
        _ = try? act { store in
            for transaction in try await store.appStore.transactions() {
                try await store.appStore.deleteTransaction(transaction.id)
            }
        }
    }

    /// Every transaction of the account, pending requests, failed and consumable ones included, newest first.
    public func allTransactions() -> [SKTestTransaction] {
        let listed = wait { store -> ([StoreEngine.Transaction], [Int64: Bool]) in
            let statuses = try await store.appStore.subscriptionStatuses()
            let renewing = Dictionary(statuses.map { ($0.renewalInfo.originalTransactionID, $0.renewalInfo.willAutoRenew) },
                                      uniquingKeysWith: { first, _ in first })
            return (try await store.appStore.transactions(), renewing)
        }
        guard let (transactions, renewing) = listed else { return [] }
        return transactions.map { transaction in
            SKTestTransaction(transaction, autoRenewing: transaction.productType == .autoRenewable
                                  && transaction.status == .purchased && renewing[transaction.originalID] == true)
        }
    }

    // MARK: - The App Store's side

    /// A purchase made outside the app (another device): the app gets it on `Transaction.updates`.
    /// The options apply as `Product.purchase(options:)` applies them (quantity, `appAccountToken`,
    /// offers and their signatures, billing plan; a bad one throws the purchase's error), the device's
    /// conditions do not. Throws when the purchase did not complete (Ask to Buy, an error).
    @discardableResult
    public func buyProduct(identifier: StorefrontKit.Product.ID,
                           options: Set<StorefrontKit.Product.PurchaseOption> = []) async throws -> StorefrontKit.Transaction {
        let transaction = try await StorefrontKit.Product.purchaseOutsideApp(identifier, options: options, context: context)
        return StorefrontKit.Transaction.verification(of: transaction, context: context).unsafePayloadValue
    }

    /// A purchase made outside the app, as Xcode's older `buyProduct(productIdentifier:)`: it arrives on
    /// `Transaction.updates`. Throws when the purchase did not complete (Ask to Buy, an error).
    public func buyProduct(productIdentifier: String) throws {
        let outcome = try act { try await $0.appStore.purchaseOutsideApp(productIdentifier) }
        guard outcome.transaction != nil else { throw StoreKitError.unknown }
    }

    /// A parent approves an Ask to Buy request: it arrives on `Transaction.updates`.
    public func approveAskToBuyTransaction(identifier: Int) throws {
        _ = try act { try await $0.appStore.approve(Int64(identifier)) }
    }

    /// A parent declines an Ask to Buy request: nothing is charged.
    public func declineAskToBuyTransaction(identifier: Int) throws {
        _ = try act { try await $0.appStore.decline(Int64(identifier)) }
    }

    /// Resolves the issue a transaction waits on, as Xcode's: an interrupted purchase completes (it
    /// arrives on `Transaction.updates`); a subscription in billing retry or its grace period, whichever
    /// of its transactions is named, has its billing fixed and renews (the renewal arrives on
    /// `Transaction.updates`). Throws for a transaction with no issue.
    public func resolveIssueForTransaction(identifier: Int) throws {
        let id = Int64(identifier)
        let transaction = try act { try await $0.appStore.transaction(id: id) }
        if transaction.status == .pending {
            _ = try act { try await $0.appStore.resolve(id) }
        } else {
            try act { try await $0.appStore.resolveBillingIssue(transactionID: id) }
        }
    }

    /// Refunds a transaction: revoked now, and delivered again on `Transaction.updates` with its `revocationDate`.
    public func refundTransaction(identifier: Int) throws {
        _ = try act { try await $0.appStore.refund(Int64(identifier)) }
    }

    /// Removes a transaction from the history.
    public func deleteTransaction(identifier: Int) throws {
        try act { try await $0.appStore.deleteTransaction(Int64(identifier)) }
    }

    /// Ends a subscription now.
    public func expireSubscription(productIdentifier: String) throws {
        let group = try groupID(of: productIdentifier)
        try act { try await $0.appStore.expireSubscription(groupID: group) }
    }

    /// Renews a subscription now: the renewal arrives on `Transaction.updates`.
    public func forceRenewalOfSubscription(productIdentifier: String) throws {
        let group = try groupID(of: productIdentifier)
        try act { try await $0.appStore.renewSubscription(groupID: group) }
    }

    /// Turns auto-renew off for the subscription of a transaction: it expires at the period's end.
    public func disableAutoRenewForTransaction(identifier: Int) throws {
        try setAutoRenew(identifier: identifier, false)
    }

    /// Turns auto-renew back on for the subscription of a transaction.
    public func enableAutoRenewForTransaction(identifier: Int) throws {
        try setAutoRenew(identifier: identifier, true)
    }

    // MARK: - Price increases and messages

    /// Simulates a price increase that needs the customer's consent for the subscription of a
    /// transaction: `priceIncreaseStatus` pending, and the price increase consent message sent
    /// (again, on a second call). Without consent it expires at the period's end.
    public func requestPriceIncreaseConsentForTransaction(identifier: Int) throws {
        try act { try await $0.testSession.requestPriceIncreaseConsent(transactionID: Int64(identifier)) }
    }

    /// Simulates the customer agreeing to the pending price increase of a transaction's subscription.
    public func consentToPriceIncreaseForTransaction(identifier: Int) throws {
        let productID = try renewingProduct(of: identifier)
        _ = try act { try await $0.appStore.consentToPriceIncrease(productID) }
    }

    /// Simulates the customer cancelling the subscription from the price increase sheet: auto-renew goes off.
    public func declinePriceIncreaseForTransaction(identifier: Int) throws {
        let productID = try renewingProduct(of: identifier)
        try act { try await $0.appStore.declinePriceIncrease(productID) }
    }

    /// Queues a message from the App Store (not in Xcode: `storefront message send`).
    public func sendMessage(reason: StorefrontKit.Message.Reason) throws {
        let engineReason = MessageReason.allCases.first { $0.rawValue == reason.description }
        guard let engineReason else { throw StoreKitError.unsupported }
        _ = try act { try await $0.testSession.sendMessage(engineReason) }
    }

    /// The product a transaction's subscription renews to (whose price increase waits).
    private func renewingProduct(of identifier: Int) throws -> String {
        let transaction = try act { try await $0.appStore.transaction(id: Int64(identifier)) }
        guard let group = transaction.subscriptionGroupID else { throw StorefrontKit.Product.PurchaseError.productUnavailable }
        let status = try act { try await $0.appStore.subscriptionStatuses().first { $0.groupID == group } }
        return status?.renewalInfo.autoRenewPreference ?? transaction.productID
    }

    private func setAutoRenew(identifier: Int, _ on: Bool) throws {
        let transaction = try act { try await $0.appStore.transaction(id: Int64(identifier)) }
        guard let group = transaction.subscriptionGroupID else { throw StorefrontKit.Product.PurchaseError.productUnavailable }
        try act { try await $0.appStore.setAutoRenew(groupID: group, on) }
    }

    private func groupID(of productID: String) throws -> String {
        guard let group = context.store.catalog.product(id: productID)?.subscription?.groupID else {
            throw StorefrontKit.Product.PurchaseError.productUnavailable
        }
        return group
    }

    // MARK: - Errors and time

    /// Makes `api` fail with `error` until set back to nil (Xcode's `setSimulatedError(_:forAPI:)`).
    /// The store file keeps `.loadProducts`, `.purchase`, `.verification` and `.appStoreSync` (another
    /// process on the store sees them; a `StoreKitError` case such an API cannot throw throws
    /// `StoreKitError.unsupported`); this process keeps `.appTransaction`, `.manageSubscriptions`,
    /// `.offerCodeRedeem`, `.refundRequest` and `.subscriptionStatus`, whose API then throws the error.
    public func setSimulatedError<API: FailableStoreKitAPI>(_ error: API.Failure?, forAPI api: API) async throws {
        if let kept = API.self as? any ProcessSimulatedAPI.Type {
            let failure = error.flatMap { $0 as? any ProcessSimulatedFailure }
            local.withLock { $0.simulatedFailures[kept.simulatedAPI] = failure }
            context.simulate(failure?.thrown, for: kept.simulatedAPI)
            return
        }
        guard let key = (API.self as? any SimulatableAPI.Type)?.settingKey else { throw StoreKitError.unsupported }
        var simulated: SimulatedError?
        if let error {
            guard let named = (error as? any SimulatableFailure)?.simulated,
                  key.name.definition.normalized(named.rawValue, in: context.store.catalog) != nil
            else { throw StoreKitError.unsupported }
            simulated = named
        }
        let chosen = simulated
        try await packageStoreKitCall { [context] in try await context.store.testSession.set(key, to: chosen) }
        context.changed()
    }

    /// The error `api` is made to fail with now; nil when none.
    public func simulatedError<API: FailableStoreKitAPI>(forAPI api: API) async -> API.Failure? {
        if let kept = API.self as? any ProcessSimulatedAPI.Type {
            return local.withLock { $0.simulatedFailures[kept.simulatedAPI] } as? API.Failure
        }
        guard let key = (API.self as? any SimulatableAPI.Type)?.settingKey,
              let failure = API.Failure.self as? any SimulatableFailure.Type,
              let simulated = (try? await context.store.testSession.value(key)) ?? nil
        else { return nil }
        return failure.init(simulated: simulated) as? API.Failure
    }

    /// Moves the store's clock ahead by an ISO-8601 duration (`P1M`, `P3D`, `PT6H`); renewals that fall due are made.
    /// Not in Xcode: subscriptions renew without waiting.
    public func advanceClock(by isoDuration: String) throws {
        guard let duration = ISODuration(isoDuration) else { throw StoreKitError.unsupported }
        _ = try act { try await $0.testSession.advanceClock(by: duration) }
    }

    /// Moves the store's clock ahead by a duration (whole seconds); renewals that fall due are made.
    public func advanceClock(by duration: Duration) throws {
        _ = try act { try await $0.testSession.advanceClock(by: ISODuration(seconds: Int(duration.components.seconds))) }
    }

    /// The store's time now.
    public var now: Date { wait { try await $0.testSession.clock().now } ?? Date() }
}
