import Foundation

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
