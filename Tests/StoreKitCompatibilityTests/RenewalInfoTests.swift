import StorefrontKit
import StorefrontKitTest
import Testing

/// RenewalInfo's StoreKit 2 fields, as the store signs them.
@Suite struct RenewalInfoTests {
    func renewalInfo() async throws -> Product.SubscriptionInfo.RenewalInfo {
        let status = try #require(try await Product.SubscriptionInfo.status(for: "premium").first)
        return try status.renewalInfo.payloadValue
    }

    @Test func expirationReasonIsTypedAndSaysWhy() async throws {
        try await inSession { session in
            let token = UUID()
            try await buy(ID.monthly, options: [.appAccountToken(token)])
            let active = try await renewalInfo()
            #expect(active.expirationReason == nil && active.appAccountToken == token)
            #expect(active.currency == Locale.Currency("USD") && active.environment == .xcode)
            try await store().appStore.setAutoRenew(groupID: "premium", false)
            try session.advanceClock(by: "P2M")
            let expired = try await renewalInfo()
            #expect(expired.expirationReason == .autoRenewDisabled && expired.expirationReason?.rawValue == 1)
            #expect(expired.expirationReason?.localizedDescription == "Auto-Renew Disabled")
        }
    }

    @Test func offerTheNextRenewalTakesAndSignedDate() async throws {
        try await inSession { session in
            try await buy(ID.monthly)
            #expect(try await renewalInfo().offer == nil, "after the free trial the renewal is at full price")
            try session.advanceClock(by: "P1W")
            try await store().appStore.setAutoRenew(groupID: "premium", false)
            try session.advanceClock(by: "P2M")
            let offer = try #require(try await product(ID.monthly).subscription?.winBackOffers.first)
            try await buy(ID.monthly, options: [.winBackOffer(offer)])
            let info = try await renewalInfo()
            #expect(info.offerType == .winBack && info.offerID == "monthly_winback")
            #expect(info.offer?.type == .winBack && info.offer?.paymentMode == .payAsYouGo)
            let now = session.now
            #expect(abs(info.signedDate.timeIntervalSince(now)) < 3600, "signed at the store's now, \(info.signedDate) vs \(now)")
            let device = try #require(AppStore.deviceVerificationID)
            #expect(info.deviceVerification == sha384(info.deviceVerificationNonce.uuidString.lowercased() + device.uuidString.lowercased()))
        }
    }

    @Test func billingErrorWhileAFailedRenewalIsRetried() async throws {
        try await inSession { session in
            session.shouldEnterBillingRetryOnRenewal = true
            session.billingGracePeriodIsEnabled = true
            try await buy(ID.monthly)
            try session.advanceClock(by: "P8D")  // the trial's renewal fails: a grace period
            var status = try #require(try await Product.SubscriptionInfo.status(for: "premium").first)
            #expect(status.state == .inGracePeriod)
            #expect(try status.renewalInfo.payloadValue.expirationReason == .billingError, "as Apple's expirationIntent 2")
            try session.advanceClock(by: "P16D")  // the grace period is over, billing retry goes on
            status = try #require(try await Product.SubscriptionInfo.status(for: "premium").first)
            #expect(status.state == .inBillingRetryPeriod)
            #expect(try status.renewalInfo.payloadValue.expirationReason == .billingError)
        }
    }
}
