import Foundation

/// Apple's limits on renewal-date extensions, for one subscription (Extend a Subscription Renewal
/// Date) and for every subscriber of a product (the mass extension skips those they refuse).
extension Store {
    /// At most this many extensions of one subscription within ``extensionWindow``.
    static let extensionsPerWindow = 2

    /// Apple's "twice within a year (365 days)".
    static let extensionWindow: TimeInterval = 365 * 86_400

    /// Why the subscription may not be extended at `date`; nil when it may. As Apple lists the states
    /// that are not eligible (`SubscriptionExtensionIneligibleError`): a free offer period, billing retry
    /// (a grace period's lapsed period too), expired or revoked; two extensions in the past 365 days
    /// already is `SubscriptionMaxExtensionError`.
    func extensionRefusal(_ record: SubscriptionRecord, latest: Transaction, at date: Date) throws -> ExtensionError? {
        guard latest.revocationDate == nil, record.billingRetrySince == nil,
              let expiration = latest.expirationDate, expiration > date else { return .ineligible }
        // A free trial, or another free offer's period (a free promotional offer, a free offer code).
        if latest.offerType != nil, latest.price == 0 { return .ineligible }
        var filter = NotificationFilter(startDate: date.addingTimeInterval(-Self.extensionWindow), type: NotificationType.renewalExtended.rawValue)
        filter.originalTransactionID = record.originalID
        let recent = try ledger.notifications(filter, after: nil, limit: Self.extensionsPerWindow)
        return recent.count >= Self.extensionsPerWindow ? .maximumReached : nil
    }

    /// Whether `id` is a subscription a family member has through Family Sharing (not theirs to extend).
    func isFamilyShared(_ id: Int64) throws -> Bool {
        try ledger.transaction(id: id)?.ownershipType == .familyShared
    }
}
