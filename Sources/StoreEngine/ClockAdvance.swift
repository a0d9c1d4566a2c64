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
    /// Of the failed renewals, those in their billing grace period at the end of the jump: still entitled.
    public var inGracePeriod: Int = 0
    /// Subscriptions whose grace period ended in the jump, billing retry going on: the entitlement is gone.
    public var gracePeriodsEnded: Int = 0

    /// One sentence of what fell due: "2 renewals made.", "1 renewal failed (billing retry).",
    /// "1 renewal failed (grace period: still entitled).", "1 grace period ended (…).",
    /// "No renewal was due by then." when nothing was.
    public var summary: String {
        var parts: [String] = []
        if renewals > 0 { parts.append("\(renewals) renewal\(renewals == 1 ? "" : "s") made") }
        // Tester's day, finding 11: a renewal that failed into its grace period was called billing retry,
        // and the end of a grace period (the entitlement lost) went unsaid.
        let retrying = failedRenewals - inGracePeriod
        if inGracePeriod > 0 {
            parts.append("\(inGracePeriod) renewal\(inGracePeriod == 1 ? "" : "s") failed (grace period: still entitled)")
        }
        if retrying > 0 {
            parts.append("\(retrying) renewal\(retrying == 1 ? "" : "s") failed (billing retry)")
        }
        if gracePeriodsEnded > 0 {
            parts.append("\(gracePeriodsEnded) grace period\(gracePeriodsEnded == 1 ? "" : "s") ended (billing retry: no longer entitled)")
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

    /// What changed between two sets of records in a jump from `start` to `end`: renewals that failed
    /// (billing retry entered; those still in their grace period at `end`), subscriptions that expired
    /// for good, and grace periods of earlier failures that ran out in the jump.
    static func fellDue(before: [Int64: SubscriptionRecord], after: [Int64: SubscriptionRecord], from start: Date, to end: Date)
        -> (failed: Int, inGrace: Int, graceEnded: Int, expired: Int) {
        var (failed, inGrace, graceEnded, expired) = (0, 0, 0, 0)
        for (id, now) in after {
            let then = before[id]
            if now.billingRetrySince != nil, then?.billingRetrySince != now.billingRetrySince {
                failed += 1
                if now.graceUntil.map({ $0 > end }) == true { inGrace += 1 }
            } else if now.billingRetrySince != nil, now.expirationReason == nil, let grace = now.graceUntil, grace > start, grace <= end {
                graceEnded += 1
            }
            if now.expirationReason != nil, then?.expirationReason == nil { expired += 1 }
        }
        return (failed, inGrace, graceEnded, expired)
    }
}
