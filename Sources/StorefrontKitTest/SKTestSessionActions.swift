import Foundation
import StoreEngine
import StorefrontKit

extension SKTestSession {
    // MARK: - Resets

    /// Wipes everything: transactions, the app's records and every setting, back to the configuration file's defaults.
    public func resetToDefaultState() {
        _ = try? act { try await $0.testSession.reset(.all) }
    }

    /// Removes every transaction of the account; settings stay.
    public func clearTransactions() throws {
        try act { store in
            for transaction in try await store.appStore.transactions() {
                try await store.appStore.deleteTransaction(transaction.id)
            }
        }
    }

    /// Every transaction of the account, pending requests included, newest first.
    public func allTransactions() -> [SKTestTransaction] {
        (wait { try await $0.appStore.transactions() } ?? []).map(SKTestTransaction.init)
    }

    // MARK: - The App Store's side

    /// A purchase made outside the app (another device): the app gets it on `Transaction.updates`.
    /// Returns the transaction; throws when the purchase did not complete (Ask to Buy, an error).
    @discardableResult
    public func buyProduct(identifier: String, options: Set<StorefrontKit.Product.PurchaseOption> = []) throws -> StorefrontKit.Transaction {
        let outcome = try act { try await $0.appStore.purchaseOutsideApp(identifier) }
        guard let transaction = outcome.transaction else { throw StoreKitError.unknown }
        return StorefrontKit.Transaction.verification(of: transaction, context: context).unsafePayloadValue
    }

    /// A parent approves an Ask to Buy request: it arrives on `Transaction.updates`.
    public func approveAskToBuyTransaction(identifier: UInt) throws {
        _ = try act { try await $0.appStore.approve(Int64(identifier)) }
    }

    /// A parent declines an Ask to Buy request: nothing is charged.
    public func declineAskToBuyTransaction(identifier: UInt) throws {
        _ = try act { try await $0.appStore.decline(Int64(identifier)) }
    }

    /// Completes an interrupted purchase: it arrives on `Transaction.updates`.
    public func resolveIssueForTransaction(identifier: UInt) throws {
        _ = try act { try await $0.appStore.resolve(Int64(identifier)) }
    }

    /// Refunds a transaction: revoked now, and delivered again on `Transaction.updates` with its `revocationDate`.
    public func refundTransaction(identifier: UInt) throws {
        _ = try act { try await $0.appStore.refund(Int64(identifier)) }
    }

    /// Removes a transaction from the history.
    public func deleteTransaction(identifier: UInt) throws {
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
    public func disableAutoRenewForTransaction(identifier: UInt) throws {
        try setAutoRenew(identifier: identifier, false)
    }

    /// Turns auto-renew back on for the subscription of a transaction.
    public func enableAutoRenewForTransaction(identifier: UInt) throws {
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

    private func setAutoRenew(identifier: UInt, _ on: Bool) throws {
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
    /// The error is a `StoreKitError`, `Product.PurchaseError` or a `VerificationError` (for `.verification`).
    public func setSimulatedError(_ error: (any Error)?, forAPI api: StoreKitAPI) throws {
        guard let key = api.settingKey else { throw StoreKitError.unsupported }
        let simulated: SimulatedError?
        if let error {
            guard let named = SimulatedError(storeKitError: error) else { throw StoreKitError.unsupported }
            simulated = named
        } else {
            simulated = nil
        }
        try act { try await $0.testSession.set(key, to: simulated) }
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

extension SimulatedError {
    /// The simulated error named as a StoreKit error's case.
    init?(storeKitError error: any Error) {
        if let error = error as? StoreKitError {
            switch error {
            case .networkError: self = .networkError
            case .systemError: self = .systemError
            case .notAvailableInStorefront: self = .notAvailableInStorefront
            case .notEntitled: self = .notEntitled
            case .userCancelled: self = .userCancelled
            case .unknown: self = .unknown
            case .unsupported: return nil
            }
            return
        }
        // Product.PurchaseError and VerificationError cases share the engine's case names.
        self.init(rawValue: String(describing: error))
    }
}
