import Foundation
import StorefrontKit
import StorefrontKitTest
import Testing

// The offer code sheet with Apple's parameter shapes. Linux has no scene or view controller: the
// parameters take any value, and the code the customer types is `AppStore.offerCodeToRedeem`.

@Suite("AppStore.presentOfferCodeRedeemSheet") struct OfferCodeRedeemSheetTests {
    @Test func fromAViewControllerReturnsTheTransactionTheCodeMade() async throws {
        try await inSession { _ in
            let viewController: (any Sendable)? = nil  // a UIViewController on iOS
            AppStore.offerCodeToRedeem = "FREE3C"
            let result = try await AppStore.presentOfferCodeRedeemSheet(from: viewController, options: [])
            let transaction = try result.payloadValue
            #expect(transaction.productID == ID.yearly && transaction.offerType == .code)
            await transaction.finish()
            #expect(await Transaction.currentEntitlement(for: ID.yearly) != nil)

            AppStore.offerCodeToRedeem = "NOSUCHCODE"
            await #expect(throws: Product.PurchaseError.invalidOfferIdentifier) {
                try await AppStore.presentOfferCodeRedeemSheet(in: "a UIWindowScene on iOS")
            }
            AppStore.offerCodeToRedeem = "FREE3C"  // used: a one-time code redeems once
            await #expect(throws: Product.PurchaseError.ineligibleForOffer) {
                try await AppStore.presentOfferCodeRedeemSheet(from: nil)
            }
            AppStore.offerCodeToRedeem = nil
        }
    }
}
