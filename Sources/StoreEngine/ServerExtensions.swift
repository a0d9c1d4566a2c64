import Foundation

// MARK: - Values

/// A request to extend the renewal date of every active subscriber of a product
/// (`MassExtendRenewalDateRequest`), and how it ended (`MassExtendRenewalDateStatusResponse`).
///
/// The store makes the whole extension in one write, so a request is complete as soon as it
/// is accepted (Apple's completes within hours): its status says `complete` at once.
public struct MassExtension: Sendable, Hashable {
    public var productID: String
    public var requestIdentifier: String
    public var extendByDays: Int
    /// Only subscriptions bought in these storefronts; empty for all.
    public var storefrontCountryCodes: [String]
    /// Store time.
    public var completeDate: Date
    public var succeededCount: Int
    public var failedCount: Int
}

/// Why a mass extension request was refused.
public enum MassExtensionError: Error, Sendable, Equatable {
    /// Not an auto-renewable subscription of the catalog.
    case invalidProductID
}

/// A receiver URL kept in the store's settings (`storefront serve urls add`): `serve` sends
/// to it when no `--notify` is given. It gets the notifications recorded after it was added.
public struct NotificationReceiver: Sendable, Hashable {
    public var url: String
    /// Store time.
    public var added: Date
    /// The newest notification's id when it was added: it gets those after.
    public var afterNotificationID: Int64
}

// MARK: - The engine

extension Store {
    /// Extends by `days` the current period of every active subscription whose current product is
    /// `productID` (bought in one of `storefronts`, or any), each with its RENEWAL_EXTENDED, then
    /// records RENEWAL_EXTENSION SUMMARY; all in one write. A request identifier already used for
    /// the product returns the first request's result, extending nothing again.
    func massExtend(productID: String, days: Int, requestID: String, storefronts: [String]) throws -> MassExtension {
        guard catalog.products.contains(where: { $0.id == productID && $0.type == .autoRenewable }) else {
            throw MassExtensionError.invalidProductID
        }
        try processRenewals()
        let date = try currentTime()
        return try ledger.db.transaction { () throws -> MassExtension in
            if let earlier = try ledger.massExtension(productID: productID, requestID: requestID) { return earlier }
            var succeeded = 0
            for account in try ledger.subscribedAccounts() {
                for record in try ledger.subscriptionStates(account: account) {
                    guard var latest = try ledger.latestTransaction(originalID: record.originalID), latest.productID == productID,
                          storefronts.isEmpty || storefronts.contains(latest.storefront),
                          // Active only: not revoked, not in billing retry, not expired.
                          latest.revocationDate == nil, record.billingRetrySince == nil,
                          let expiration = latest.expirationDate, expiration > date else { continue }
                    latest.expirationDate = expiration.addingTimeInterval(TimeInterval(days) * 86_400)
                    latest = try ledger.update(latest)
                    try mirrorToFamily(latest.id)
                    try notify("RENEWAL_EXTENDED", transaction: latest, record: record, account: account, at: date)
                    succeeded += 1
                }
            }
            let request = MassExtension(productID: productID, requestIdentifier: requestID, extendByDays: days,
                                        storefrontCountryCodes: storefronts, completeDate: date, succeededCount: succeeded,
                                        failedCount: 0)
            try ledger.saveMassExtension(request)
            try notify("RENEWAL_EXTENSION", "SUMMARY", transaction: nil, account: "", at: date, summary: [
                JSON.Member("requestIdentifier", .string(requestID)),
                JSON.Member("environment", .string(try ledger.environment().appStoreName)),
                JSON.Member("bundleId", .string(catalog.bundleID)),
                JSON.Member("productId", .string(productID)),
                JSON.Member("storefrontCountryCodes", .array(storefronts.map(JSON.string))),
                JSON.Member("failedCount", .integer(0)),
                JSON.Member("succeededCount", .integer(succeeded)),
            ])
            return request
        }
    }

    func massExtension(productID: String, requestID: String) throws -> MassExtension? {
        try ledger.massExtension(productID: productID, requestID: requestID)
    }

    func receivers() throws -> [NotificationReceiver] { try ledger.receivers() }

    func newestNotificationID() throws -> Int64 { try ledger.newestNotificationID() }

    func addReceiver(_ url: String) throws -> Bool {
        let date = try currentTime()
        return try ledger.db.transaction { try ledger.addReceiver(url, at: date) }
    }

    func removeReceiver(_ url: String) throws -> Bool {
        try ledger.db.transaction { try ledger.removeReceiver(url) }
    }
}

// MARK: - The face

extension AppStoreFace {
    /// Extends the renewal date of every active subscriber of `productID` (Extend Subscription
    /// Renewal Dates for All Active Subscribers); complete when it returns.
    /// Throws ``MassExtensionError/invalidProductID`` for a product that is not an auto-renewable subscription,
    /// ``InputError`` for days outside 1–90, a reason code outside 0–3 or a bad request identifier.
    public func extendAllSubscribers(productID: String, days: Int, reasonCode: Int = 0, requestIdentifier: String,
                                     storefrontCountryCodes: [String] = []) async throws -> MassExtension {
        try FaceValidation.checkExtension(days: days, reasonCode: reasonCode)
        try FaceValidation.checkRequestIdentifier(requestIdentifier)
        return try await store.massExtend(productID: productID, days: days, requestID: requestIdentifier,
                                   storefronts: storefrontCountryCodes)
    }

    /// A mass extension request by its product and identifier; nil when there was none.
    public func massExtension(productID: String, requestIdentifier: String) async throws -> MassExtension? {
        try await store.massExtension(productID: productID, requestID: requestIdentifier)
    }

    /// The newest notification's id (0 when none), whichever process recorded it.
    public func newestNotificationID() async throws -> Int64 { try await store.newestNotificationID() }

    /// The receiver URLs kept in the store, oldest first.
    public func receivers() async throws -> [NotificationReceiver] { try await store.receivers() }

    /// Keeps a receiver URL; it gets the notifications recorded from now on. False when it was kept already.
    public func addReceiver(_ url: String) async throws -> Bool { try await store.addReceiver(url) }

    /// Forgets a receiver URL; false when it was not kept.
    public func removeReceiver(_ url: String) async throws -> Bool { try await store.removeReceiver(url) }
}
