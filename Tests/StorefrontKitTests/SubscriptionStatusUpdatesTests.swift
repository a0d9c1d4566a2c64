import Foundation
import StorefrontKit
import StorefrontKitTest
import Testing

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
            let updates = Status.updates
            let expired = Task { await firstElement(of: updates, within: 20) { $0.state == .expired } }
            try await Task.sleep(for: .milliseconds(300))  // the sequence takes its first look: the baseline
            let run = try await runStorefront(["--catalog", catalogURL.path, "--store", session.storePath, "expire", "premium"])
            #expect(run.status == 0, "\(run.output)")
            let status = try #require(await expired.value)
            #expect(status.transaction.unsafePayloadValue.originalID == bought.originalID)
            #expect(try status.renewalInfo.payloadValue.willAutoRenew == false)
        }
    }

    @Test func aRenewalMadeByAnotherProcessArrivesWithItsNewTransaction() async throws {
        let session = try SKTestSession(contentsOf: catalogURL)
        try await session.run {
            let bought = try await subscribe()
            let updates = Status.updates
            let renewed = Task {
                await firstElement(of: updates, within: 20) { $0.transaction.unsafePayloadValue.id != bought.id }
            }
            try await Task.sleep(for: .milliseconds(300))
            let run = try await runStorefront(["--catalog", catalogURL.path, "--store", session.storePath, "renew", "premium"])
            #expect(run.status == 0, "\(run.output)")
            let status = try #require(await renewed.value)
            #expect(status.state == .subscribed)
            #expect(status.transaction.unsafePayloadValue.originalID == bought.originalID)
            #expect(status.transaction.unsafePayloadValue.reason == .renewal)
        }
    }

    @Test func aBillingFailureArrivesAsBillingRetryThenGracePeriod() async throws {
        let session = try SKTestSession(contentsOf: catalogURL)
        try await session.run {
            _ = try await subscribe()
            let updates = Status.updates
            let retry = Task { await firstElement(of: updates, within: 20) { $0.state == .inBillingRetryPeriod } }
            try await Task.sleep(for: .milliseconds(300))
            let store = ["--catalog", catalogURL.path, "--store", session.storePath]
            #expect(try await runStorefront(store + ["settings", "set", "billingIssues", "true"]).status == 0)
            #expect(try await runStorefront(store + ["clock", "advance", "P1M1D"]).status == 0)
            let status = try #require(await retry.value)
            #expect(try status.renewalInfo.payloadValue.isInBillingRetry)
        }
        // In a second store, the grace period comes first, set from this process.
        let graced = try SKTestSession(contentsOf: catalogURL)
        graced.shouldEnterBillingRetryOnRenewal = true
        graced.billingGracePeriodIsEnabled = true
        try await graced.run {
            _ = try await subscribe()
            let updates = Status.updates
            let grace = Task { await firstElement(of: updates, within: 20) { $0.state == .inGracePeriod } }
            try await Task.sleep(for: .milliseconds(300))
            try graced.advanceClock(by: "P8D")  // past the week's free trial, inside the 16 days of grace
            let status = try #require(await grace.value)
            #expect(try status.renewalInfo.payloadValue.gracePeriodExpirationDate != nil)
        }
    }

    @Test func anUnchangedStoreSendsNoUpdate() async throws {
        let session = try SKTestSession(contentsOf: catalogURL)
        try await session.run {
            _ = try await subscribe()
            let updates = Status.updates
            // A change that leaves the subscription as it was: a consumable bought outside the app.
            let any = Task { await firstElement(of: updates, within: 2) }
            try await Task.sleep(for: .milliseconds(300))
            try await session.buyProduct(identifier: ID.coins)
            #expect(await any.value == nil)
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
