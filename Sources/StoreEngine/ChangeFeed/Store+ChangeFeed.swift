import Foundation

extension Store {
    // MARK: - The change feed

    /// The one watcher of this store's file: subscribe with ``StoreChangeFeed/changes()``.
    /// Made when first asked for; its thread runs while someone subscribes.
    public nonisolated var changes: StoreChangeFeed {
        feedBox.withLock { box in
            if let feed = box { return feed }
            // The address itself (a database's URI with its password): the feed's listener connects with it.
            let feed = StoreChangeFeed(store: self, path: address.location)
            box = feed
            return feed
        }
    }

    /// One look for the feed, on the store's queue (so looks never overlap): whether another
    /// connection committed or this one changed a row, renewals made once if due, the next date
    /// anything falls due; the change handed to the feed's subscribers. `full`: renewals are looked
    /// for even when nothing was written (a caller that steps the clock itself).
    func lookForChanges(_ feed: StoreChangeFeed, cause: StoreChange.Cause, full: Bool = false) throws -> StoreChange? {
        let mark = feed.mark()
        // A file replaced under the store is used no more (LedgerFileWatch): subscribers hear it once,
        // and nothing is read from the file this store still has open.
        if fileReplacement() != nil {
            guard feed.state.withLock({ state in defer { state.replacementHeard = true }; return !state.replacementHeard }) else { return nil }
            let change = StoreChange(sequence: 0, cause: .replaced, dataVersion: mark.seen?.dataVersion ?? 0,
                                     storeTime: (try? currentTime()) ?? Date(), renewalsMade: 0, madeDueChanges: false, unfinished: [])
            return feed.deliver(change, snapshot: change, seen: mark.seen ?? (0, 0), wake: .after(nil))
        }
        let version = try dataVersion()
        let own = ledger.ownChanges
        let replaced = mark.replaced || (feed.state.withLock { $0.inode } != StoreChangeFeed.inode(of: path))
        // The feed's first look has nothing to compare with: to its first subscribers it is the store
        // as it is, not a change; to a caller of `refresh()` it may be one (it cannot know what changed).
        let written = mark.seen.map { $0.dataVersion != version || $0.ownChanges != own } ?? full
        // Without a change, only a clock wake (or a first subscriber) needs more than the two numbers.
        guard written || replaced || cause == .clock || mark.first || full else {
            return feed.deliver(nil, snapshot: nil, seen: (version, own), wake: .keep)
        }
        let renewals = try renewalsDue() ? processRenewals() : 0
        // Billing steps and expiries make no renewal but change rows all the same.
        let madeDue = ledger.ownChanges != own
        let time = try currentTime()
        let after = try dataVersion()
        let waiting = mark.unfinished || full ? try unfinished() : []
        // Renewals made where nothing was written came of the clock, whatever woke the feed.
        let why: StoreChange.Cause = replaced ? .replaced : written ? .written : madeDue ? .clock : cause
        let change = StoreChange(sequence: 0, cause: why, dataVersion: after, storeTime: time,
                                 renewalsMade: renewals, madeDueChanges: madeDue, unfinished: waiting)
        let wake = try nextWake(after: time, asked: feed.askedWakes(after: time))
        let changed = written || replaced || madeDue || cause == .clock
        return feed.deliver(changed ? change : nil, snapshot: change, seen: (change.dataVersion, ledger.ownChanges),
                            wake: .after(wake))
    }

    /// Real seconds from now until the next renewal, billing step or expiry (or an asked-for
    /// wake) on the store's clock, at its time rate; nil when nothing will fall due.
    func nextWake(after time: Date, asked: [Date]) throws -> TimeInterval? {
        guard let next = ((try nextDueDate(after: time)).map { [$0] + asked } ?? asked).min() else { return nil }
        let storeSeconds = next.timeIntervalSince(time)
        guard let clock = try virtualClock(), clock.speed > 0 else { return storeSeconds }
        // A little after the date, so the renewal is due when the feed looks.
        return storeSeconds / clock.speed + 0.001
    }

    /// The earliest date after `time` at which a subscription of any account renews, steps
    /// through billing retry or grace, or expires (as ``dueRecords(_:at:_:)`` decides due).
    func nextDueDate(after time: Date) throws -> Date? {
        if catalog.isAbsent { return nil }
        let billingIssues = try value(.billingIssues)
        var next: Date?
        for account in try ledger.subscribedAccounts() {
            let terms = try ledger.latestTerms(account: account)
            for record in try ledger.subscriptionStates(account: account) {
                guard record.expirationReason == nil, let latest = terms[record.originalID],
                      latest.revocationDate == nil, let expiration = latest.expirationDate else { continue }
                var dates: [Date] = []
                if let since = record.billingRetrySince {
                    if let grace = record.graceUntil, billingIssues { dates.append(grace) }
                    if billingIssues { dates.append(billingRetryLength.after(since)) }
                } else {
                    dates.append(expiration)
                }
                for date in dates where date > time { next = min(next ?? date, date) }
            }
        }
        return next
    }
}
