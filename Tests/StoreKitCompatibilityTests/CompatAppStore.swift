import StorefrontKit
#if os(iOS)
import UIKit
#endif

// AppStore.deviceVerificationID, showManageSubscriptions(in:), requestReview(in:);
// Storefront.updates and Storefront.currency. The UIKit calls are as iOS apps guard them.
@MainActor
final class AccountSettings {
    #if os(iOS)
    func manageSubscriptions(in scene: UIWindowScene) async {
        try? await AppStore.showManageSubscriptions(in: scene)
    }

    func askForReview(in scene: UIWindowScene) {
        AppStore.requestReview(in: scene)
    }
    #endif

    /// Where no scene exists (Linux), the same calls take none.
    func manageSubscriptions() async throws {
        try await AppStore.showManageSubscriptions(in: nil)
        try await AppStore.showManageSubscriptions(in: nil, subscriptionGroupID: "21430340")
        AppStore.requestReview(in: nil)
    }

    var deviceID: UUID? { AppStore.deviceVerificationID }

    func watchStorefront() async -> String? {
        for await storefront in Storefront.updates {
            return "\(storefront.countryCode) \(storefront.currency?.identifier ?? "")"
        }
        return nil
    }

    func currency() async -> Locale.Currency? { await Storefront.current?.currency }
}
