import Foundation

/// The store's clock: real time, scaled by `timeRate` and moved by `clock advance`.
extension Store {
    // MARK: - The clock

    /// The store's time now: real time, scaled by `timeRate` and moved by `clock advance`.
    func currentTime() throws -> Date {
        try readingSettings { try virtualClock()?.storeTime(at: now()) ?? now() }
    }

    /// The store's clock and its rate, for `storefront clock`.
    func clock() throws -> (now: Date, rate: TimeRate) {
        (try currentTime(), try value(.timeRate))
    }

    /// Jumps the store's clock ahead, then makes the renewals that fell due. Returns the new time.
    @discardableResult
    func advanceClock(by duration: ISODuration) throws -> Date {
        try advanceClockCounting(by: duration).now
    }

    /// ``advanceClock(by:)`` with what fell due in the jump: renewals made and failed, expiries.
    func advanceClockReporting(by duration: ISODuration) throws -> ClockAdvance {
        let before = try subscriptionRecordsByOriginalID()
        let start = try currentTime()
        let (now, renewals) = try advanceClockCounting(by: duration)
        let due = Self.fellDue(before: before, after: try subscriptionRecordsByOriginalID(), from: start, to: now)
        return ClockAdvance(now: now, renewals: renewals, failedRenewals: due.failed, expirations: due.expired,
                            inGracePeriod: due.inGrace, gracePeriodsEnded: due.graceEnded)
    }

    /// ``advanceClock(by:)``, and how many renewals the jump made (every account's).
    func advanceClockCounting(by duration: ISODuration) throws -> (now: Date, renewals: Int) {
        let start = try currentTime()
        // Bounded: a subscription renews at most so many times in the jump (weekly: 5,218 in 100 years).
        guard duration.after(start) <= Self.longestClockAdvance.after(start) else {
            throw SettingError(description: "clock advance \(duration) is too long: at most \(Self.longestClockAdvance) (100 years) at a time")
        }
        let target = try ledger.write {
            let target = duration.after(try currentTime())
            let limit = clockLimit()
            // Past its certificates' end no signature the store makes there verifies: refused, not reached.
            guard target <= limit else {
                throw SettingError(description: "clock advance \(duration) would take the store's clock to \(target.formatted(.iso8601)), past \(limit.formatted(.iso8601)), the end of its certificates' validity: the clock cannot pass it, or no purchase made after it could be verified")
            }
            try anchorClock(storeTime: target)
            return target
        }
        return (target, try processRenewals())
    }

    /// The latest time the store's clock may show: the end of the shortest validity in its certificate chain.
    func clockLimit() -> Date {
        let chain = certificateChain()
        return [chain.leaf, chain.intermediate, chain.root].compactMap(\.notAfter).min() ?? .distantFuture
    }

    /// The longest jump `clock advance` makes at once.
    static let longestClockAdvance = ISODuration(years: 100)

    /// Re-anchors the clock: from the real instant now, store time continues from `storeTime`.
    func anchorClock(storeTime: Date) throws {
        try ledger.setSetting(Self.anchorRealSetting, account: "", value: String(now().milliseconds))
        try ledger.setSetting(Self.anchorStoreSetting, account: "", value: String(storeTime.milliseconds))
    }

    func virtualClock() throws -> VirtualClock? {
        let rate = try value(.timeRate)
        guard let real = try ledger.setting(Self.anchorRealSetting, account: "").flatMap(Int64.init),
              let store = try ledger.setting(Self.anchorStoreSetting, account: "").flatMap(Int64.init) else {
            guard rate != .realTime else { return nil }
            // A rate from the catalog (a .storekit file's _timeRate) runs from the first time the
            // store reads its clock (a store file that cannot be written stays on real time).
            let start = now()
            try? anchorClock(storeTime: start)
            return VirtualClock(anchorReal: start, anchorStore: start, speed: rate.speed(shortestPeriod: shortestPeriod))
        }
        return VirtualClock(anchorReal: Date(milliseconds: real), anchorStore: Date(milliseconds: store),
                            speed: rate.speed(shortestPeriod: shortestPeriod))
    }

    static let anchorRealSetting = "clock.anchorReal"
    static let anchorStoreSetting = "clock.anchorStore"
}
