import Foundation
import StorefrontKit
import StorefrontKitTest
import Synchronization
import Testing
import TestSupport

typealias Status = Product.SubscriptionInfo.Status

/// `Product.SubscriptionInfo.Status`: `updates` (`Statuses`), `all`, and its equality, against
/// a session's store changed by this process and by the `storefront` binary on the same file.
@Suite struct SubscriptionStatusUpdatesTests {
    /// Buys the monthly subscription and finishes it; returns its transaction.
    private func subscribe() async throws -> Transaction {
        let product = try #require(try await Product.products(for: [ID.monthly]).first)
        guard case .success(let result) = try await product.purchase() else { throw StoreKitError.unknown }
        let transaction = try result.payloadValue
        await transaction.finish()
        return transaction
    }

    @Test func anExpiryMadeByAnotherProcessArrives() async throws {
        let session = try SKTestSession(contentsOf: catalogURL)
        try await session.run {
            let bought = try await subscribe()
            let log = StatusLog(Status.updates)
            defer { log.stop() }
            try await log.prime(session, Int(bought.id))
            let run = try await runStorefront(["--catalog", catalogURL.path, "--store", session.storePath, "expire", "premium"])
            #expect(run.status == 0, "\(run.output)")
            let status = try #require(await log.first(within: 60) { $0.state == .expired })
            #expect(status.transaction.unsafePayloadValue.originalID == bought.originalID)
        }
    }

    @Test func aRenewalMadeByAnotherProcessArrivesWithItsNewTransaction() async throws {
        let session = try SKTestSession(contentsOf: catalogURL)
        try await session.run {
            let bought = try await subscribe()
            let log = StatusLog(Status.updates)
            defer { log.stop() }
            try await log.prime(session, Int(bought.id))
            let run = try await runStorefront(["--catalog", catalogURL.path, "--store", session.storePath, "renew", "premium"])
            #expect(run.status == 0, "\(run.output)")
            let status = try #require(await log.first(within: 60) { $0.transaction.unsafePayloadValue.id != bought.id })
            #expect(status.state == .subscribed)
            #expect(status.transaction.unsafePayloadValue.originalID == bought.originalID)
            #expect(status.transaction.unsafePayloadValue.reason == .renewal)
        }
    }

    @Test func aBillingFailureArrivesAsBillingRetryThenGracePeriod() async throws {
        let session = try SKTestSession(contentsOf: catalogURL)
        try await session.run {
            let bought = try await subscribe()
            let log = StatusLog(Status.updates)
            defer { log.stop() }
            try await log.prime(session, Int(bought.id))
            let store = ["--catalog", catalogURL.path, "--store", session.storePath]
            #expect(try await runStorefront(store + ["settings", "set", "billingIssues", "true"]).status == 0)
            #expect(try await runStorefront(store + ["clock", "advance", "P1M1D"]).status == 0)
            let status = try #require(await log.first(within: 60) { $0.state == .inBillingRetryPeriod })
            #expect(try status.renewalInfo.payloadValue.isInBillingRetry)
        }
        // In a second store, the grace period comes first, set from this process.
        let graced = try SKTestSession(contentsOf: catalogURL)
        graced.shouldEnterBillingRetryOnRenewal = true
        graced.billingGracePeriodIsEnabled = true
        try await graced.run {
            let bought = try await subscribe()
            let log = StatusLog(Status.updates)
            defer { log.stop() }
            try await log.prime(graced, Int(bought.id))
            try graced.advanceClock(by: "P8D")  // past the week's free trial, inside the 16 days of grace
            let status = try #require(await log.first(within: 60) { $0.state == .inGracePeriod })
            #expect(try status.renewalInfo.payloadValue.gracePeriodExpirationDate != nil)
        }
    }

    @Test func anUnchangedStoreSendsNoUpdate() async throws {
        let session = try SKTestSession(contentsOf: catalogURL)
        try await session.run {
            let bought = try await subscribe()
            let log = StatusLog(Status.updates)
            defer { log.stop() }
            try await log.prime(session, Int(bought.id))
            // Priming's last toggle may still be on its way (the feed looks again for up to 1.6 s):
            // wait until two seconds pass with nothing new.
            var before = -1
            for _ in 0..<15 where before != log.count {
                before = log.count
                try await Task.sleep(for: .seconds(2))
            }
            // A change that leaves the subscription as it was: a consumable bought outside the app.
            try await session.buyProduct(identifier: ID.coins)
            try await Task.sleep(for: .seconds(2))
            #expect(log.count == before)
        }
    }

    @Test func allListsEachGroupOnceThenEnds() async throws {
        let session = try SKTestSession(contentsOf: catalogURL)
        try await session.run {
            var none: [String] = []
            for await group in Status.all { none.append(group.groupID) }
            #expect(none.isEmpty)
            let bought = try await subscribe()
            var groups: [(groupID: String, statuses: [Status])] = []
            for await group in Status.all { groups.append(group) }
            #expect(groups.map(\.groupID) == ["premium"])
            #expect(groups.first?.statuses.map(\.transaction.unsafePayloadValue.id) == [bought.id])
            #expect(groups.first?.statuses.first?.state == .subscribed)
        }
    }

    @Test func twoReadsOfTheSameStatusAreEqualAndAChangeIsNot() async throws {
        let session = try SKTestSession(contentsOf: catalogURL)
        try await session.run {
            let bought = try await subscribe()
            let product = try #require(try await Product.products(for: [ID.monthly]).first)
            let first = try #require(try await product.subscription?.status.first)
            try session.advanceClock(by: "PT1H")  // signed anew, at another date: the same status
            let second = try #require(try await product.subscription?.status.first)
            #expect(first == second)
            #expect(Set([first, second]).count == 1)
            try session.disableAutoRenewForTransaction(identifier: Int(bought.id))
            let third = try #require(try await product.subscription?.status.first)
            #expect(third != first)
            #expect(Set([first, second, third]).count == 2)
        }
    }
}

/// Collects what a `Status.updates` sequence delivers.
private final class StatusLog: Sendable {
    private let received = Mutex<[Status]>([])
    private let task = Mutex<Task<Void, Never>?>(nil)

    init(_ updates: Status.Statuses) {
        let received = Task(executorPreference: OffPoolExecutor.shared) { [weak self] in
            for await status in updates { self?.received.withLock { $0.append(status) } }
        }
        task.withLock { $0 = received }
    }

    var count: Int { received.withLock { $0.count } }

    /// Ends the sequence.
    func stop() { task.withLock { $0?.cancel() } }

    /// The first status delivered that matches, waited for up to `seconds`.
    func first(within seconds: Double, where matches: (Status) -> Bool) async -> Status? {
        _ = await eventually(within: .seconds(seconds), every: .milliseconds(50)) {
            received.withLock { $0.contains(where: matches) }
        }
        return received.withLock { $0.first(where: matches) }
    }

    /// Turns auto-renew of transaction `id` off and on until the sequence reports a change:
    /// from then on it has its baseline, whatever the load. Leaves auto-renew on.
    func prime(_ session: SKTestSession, _ id: Int) async throws {
        var on = true
        for _ in 0..<60 where count == 0 {
            on.toggle()
            if on { try session.enableAutoRenewForTransaction(identifier: id) } else { try session.disableAutoRenewForTransaction(identifier: id) }
            _ = await first(within: 1) { _ in true }
        }
        if !on { try session.enableAutoRenewForTransaction(identifier: id) }
        #expect(count > 0, "the sequence never reported a change")
    }
}
