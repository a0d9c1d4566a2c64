import Foundation

/// What a jump of the store's clock did, as a fact every front end words alike: the new time,
/// and what fell due in it across every account's subscriptions.
public struct ClockAdvance: Sendable, Equatable {
    /// The store's time after the jump.
    public var now: Date
    /// Renewals made (a subscription renewing three times counts three).
    public var renewals: Int
    /// Subscriptions whose renewal failed in the jump: in billing retry now (or grace).
    public var failedRenewals: Int
    /// Subscriptions that expired for good in the jump (auto-renew off, billing retry over, …).
    public var expirations: Int

    /// One sentence of what fell due: "2 renewals made.", "1 renewal failed: billing retry.",
    /// "No renewal was due by then." when nothing was.
    public var summary: String {
        var parts: [String] = []
        if renewals > 0 { parts.append("\(renewals) renewal\(renewals == 1 ? "" : "s") made") }
        if failedRenewals > 0 {
            parts.append("\(failedRenewals) renewal\(failedRenewals == 1 ? "" : "s") failed (billing retry)")
        }
        if expirations > 0 { parts.append("\(expirations) subscription\(expirations == 1 ? "" : "s") expired") }
        guard let first = parts.first else { return "No renewal was due by then." }
        return ([first.prefix(1).uppercased() + first.dropFirst()] + parts.dropFirst()).joined(separator: "; ") + "."
    }
}

extension Store {
    /// Every account's subscription records by first transaction: what a clock jump compares.
    func subscriptionRecordsByOriginalID() throws -> [Int64: SubscriptionRecord] {
        try ledger.read {
            var records: [Int64: SubscriptionRecord] = [:]
            for account in try ledger.subscribedAccounts() {
                for record in try ledger.subscriptionStates(account: account) { records[record.originalID] = record }
            }
            return records
        }
    }

    /// What changed between two sets of records: renewals that failed (billing retry entered)
    /// and subscriptions that expired for good.
    static func fellDue(before: [Int64: SubscriptionRecord], after: [Int64: SubscriptionRecord]) -> (failed: Int, expired: Int) {
        var (failed, expired) = (0, 0)
        for (id, now) in after {
            let then = before[id]
            if now.billingRetrySince != nil, then?.billingRetrySince != now.billingRetrySince { failed += 1 }
            if now.expirationReason != nil, then?.expirationReason == nil { expired += 1 }
        }
        return (failed, expired)
    }
}
