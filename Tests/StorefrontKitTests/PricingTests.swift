import Foundation
import Synchronization

import StorefrontKit
import StorefrontKitTest
import Testing

/// Win-back offers, price increases and messages on the StoreKit-shaped API.
@Suite struct PricingTests {
    /// The monthly plan's renewal info.
    func renewalInfo() async throws -> Product.SubscriptionInfo.RenewalInfo {
        let status = try #require(try await Product.SubscriptionInfo.status(for: "premium").first)
        return try status.renewalInfo.payloadValue
    }

    @Test func winBackOfferForALapsedSubscriber() async throws {
        let session = try SKTestSession(contentsOf: catalogURL)
        try await session.run {
            let monthly = try #require(try await Product.products(for: [ID.monthly]).first)
            let offer = try #require(monthly.subscription?.winBackOffers.first)
            #expect(offer.id == "monthly_winback" && offer.type == .winBack && offer.paymentMode == .payAsYouGo && offer.periodCount == 3)
            await #expect(throws: Product.PurchaseError.ineligibleForOffer) { _ = try await monthly.purchase(options: [.winBackOffer(offer)]) }
            guard case .success(let trial) = try await monthly.purchase() else { Issue.record("expected success"); return }
            try session.advanceClock(by: "P1W")  // one paid month
            try session.disableAutoRenewForTransaction(identifier: Int(try trial.payloadValue.id))
            try session.advanceClock(by: "P2M")
            #expect(try await renewalInfo().eligibleWinBackOfferIDs == ["monthly_winback"])
            guard case .success(let result) = try await monthly.purchase(options: [.winBackOffer(offer)]) else {
                Issue.record("expected success"); return
            }
            let transaction = try result.payloadValue
            #expect(transaction.offerType == .winBack && transaction.offerID == "monthly_winback" && transaction.price == Decimal(string: "1.99"))
            #expect(try await renewalInfo().eligibleWinBackOfferIDs.isEmpty, "subscribed again")
        }
    }

    @Test func priceIncreaseConsentThroughTheTestSessionAndItsMessage() async throws {
        let session = try SKTestSession(contentsOf: catalogURL)
        try await session.run {
            let messages = Message.messages
            let monthly = try #require(try await Product.products(for: [ID.monthly]).first)
            guard case .success(let bought) = try await monthly.purchase() else { Issue.record("expected success"); return }
            let id = Int(try bought.payloadValue.id)
            #expect(try await renewalInfo().priceIncreaseStatus == .noIncreasePending)
            try session.requestPriceIncreaseConsentForTransaction(identifier: id)
            #expect(try await renewalInfo().priceIncreaseStatus == .pending)
            let message = try #require(await firstElement(of: messages, within: 20))
            #expect(message.reason == .priceIncreaseConsent)
            let sheet = try await message.display()
            #expect(sheet.title == "Subscription Price Increase")
            try session.consentToPriceIncreaseForTransaction(identifier: id)
            #expect(try await renewalInfo().priceIncreaseStatus == .agreed)
            try session.advanceClock(by: "P1W")
            #expect(try await renewalInfo().priceIncreaseStatus == .noIncreasePending, "renewed: nothing waits")
        }
    }

    @Test func declinedPriceIncreaseTurnsAutoRenewOffAndUnansweredOneExpires() async throws {
        let session = try SKTestSession(contentsOf: catalogURL)
        try await session.run {
            let monthly = try #require(try await Product.products(for: [ID.monthly]).first)
            guard case .success(let bought) = try await monthly.purchase() else { Issue.record("expected success"); return }
            let id = Int(try bought.payloadValue.id)
            try session.requestPriceIncreaseConsentForTransaction(identifier: id)
            try session.declinePriceIncreaseForTransaction(identifier: id)
            let declined = try await renewalInfo()
            #expect(!declined.willAutoRenew && declined.priceIncreaseStatus == .noIncreasePending)
            try session.enableAutoRenewForTransaction(identifier: Int(id))
            try session.requestPriceIncreaseConsentForTransaction(identifier: id)
            try session.advanceClock(by: "P8D")
            let expired = try await renewalInfo()
            #expect(expired.expirationReason == .didNotConsentToPriceIncrease)
        }
    }

    @Test func messagesArriveWhileSwiftsSharedPoolIsBlocked() async throws {
        // The app's own work blocks every thread of the shared pool (two on this machine) for 2 s;
        // the test itself waits off the pool. A message sent meanwhile arrives before the pool is free.
        try await withTaskExecutorPreference(OffPoolExecutor.shared) {
            let session = try SKTestSession(contentsOf: catalogURL)
            try await session.run {
                let messages = Message.messages
                let freed = Counter()
                let width = ProcessInfo.processInfo.activeProcessorCount
                let blockers = (0..<width).map { _ in
                    Task.detached {
                        _ = sleep(2)
                        freed.value.add(1, ordering: .sequentiallyConsistent)
                    }
                }
                try await Task.sleep(for: .milliseconds(100))
                try session.sendMessage(reason: .generic)
                let message = await firstElement(of: messages, within: 20)
                let whileBlocked = freed.value.load(ordering: .sequentiallyConsistent) == 0
                #expect(message?.reason == .generic)
                #expect(whileBlocked, "the message waited for the shared pool")
                for blocker in blockers { await blocker.value }
            }
        }
    }

    @Test func messagesFromAnotherProcessArrive() async throws {
        let session = try SKTestSession(contentsOf: catalogURL)
        try await session.run {
            let messages = Message.messages
            let store = try StorefrontKit.storePath
            let sent = try await runStorefront(["--catalog", catalogURL.path, "--store", store, "message", "send", "generic"])
            #expect(sent.status == 0, "\(sent.output)")
            let message = try #require(await firstElement(of: messages, within: 20))
            #expect(message.reason == .generic && message.reason.description == "generic")
            try session.sendMessage(reason: .billingIssue)
            #expect(await firstElement(of: messages, within: 20) { $0.reason == .billingIssue } != nil)
        }
    }
}

/// A count shared with detached tasks.
private final class Counter: Sendable {
    let value = Atomic<Int>(0)
}
