import StorefrontKit
import StorefrontKitTest
import Testing

/// AppStore's sheets and device id, and Storefront's currency and updates.
@Suite(.serialized) struct AppStoreTests {
    func willAutoRenew() async throws -> Bool {
        try #require(try await Product.SubscriptionInfo.status(for: "premium").first).renewalInfo.unsafePayloadValue.willAutoRenew
    }

    @Test func manageSubscriptionsSheetDoesWhatTheCustomerChose() async throws {
        try await inSession { _ in
            try await buy(ID.monthly)
            AppStore.manageSubscriptionsSheetAction = .done
            try await AppStore.showManageSubscriptions(in: nil)
            #expect(try await willAutoRenew())
            AppStore.manageSubscriptionsSheetAction = .cancelSubscription
            try await AppStore.showManageSubscriptions(in: nil, subscriptionGroupID: "another_group")
            #expect(try await willAutoRenew(), "another group's sheet leaves this one")
            try await AppStore.showManageSubscriptions(in: nil, subscriptionGroupID: "premium")
            AppStore.manageSubscriptionsSheetAction = nil
            #expect(try await !willAutoRenew())
        }
    }

    @Test func reviewPromptIsShownThreeTimesAYear() async throws {
        try await inSession { _ in
            #expect(AppStore.reviewPromptsShown == 0)
            for _ in 0..<4 { AppStore.requestReview(in: nil) }
            #expect(AppStore.reviewPromptsShown == 3)
        }
    }

    @Test func storefrontCurrencyAndItsUpdates() async throws {
        try await inSession { session in
            #expect(await Storefront.current?.currency == Locale.Currency("USD"))
            let updates = Storefront.updates
            async let changed = firstElement(of: updates, within: 120)
            try await Task.sleep(for: .milliseconds(300))
            session.storefront = "JPN"
            let storefront = try #require(await changed)
            #expect(storefront.countryCode == "JPN" && storefront.currency?.identifier == "JPY")
        }
    }
}
