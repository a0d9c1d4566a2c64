import Foundation
import StoreEngine
import Synchronization

// StoreKit's system sheets that take a window scene (`UIWindowScene`, `NSViewController` on
// macOS). Linux has no scene: the parameter takes any value (or none), so a call compiles, and
// what the customer does on the sheet is set beforehand, as for the refund sheet.

extension AppStore {
    /// What the customer does on the next manage-subscriptions sheet (StorefrontKit's own).
    public enum ManageSubscriptionsSheetAction: String, Sendable, Hashable, CaseIterable {
        /// Closes the sheet without a change.
        case done
        /// Turns auto-renew off: the subscription ends at its period's end.
        case cancelSubscription
    }

    /// What the customer does on the next manage-subscriptions sheet; nil: `$STOREFRONT_MANAGE_SUBSCRIPTIONS`
    /// (`done` or `cancelSubscription`), else `done`.
    public static var manageSubscriptionsSheetAction: ManageSubscriptionsSheetAction? {
        get { manageAction.withLock { $0 } }
        set { manageAction.withLock { $0 = newValue } }
    }
    private static let manageAction = Mutex<ManageSubscriptionsSheetAction?>(nil)

    /// StoreKit's manage-subscriptions sheet without its UI: does what
    /// ``manageSubscriptionsSheetAction`` says to every subscription group the account has.
    /// A change reaches the app as StoreKit's would: in `RenewalInfo.willAutoRenew` and on the status.
    public static func showManageSubscriptions(in scene: (any Sendable)? = nil) async throws {
        try await manageSubscriptions(groupID: nil)
    }

    /// The sheet for one subscription group (StoreKit's `showManageSubscriptions(in:subscriptionGroupID:)`).
    public static func showManageSubscriptions(in scene: (any Sendable)? = nil, subscriptionGroupID: String) async throws {
        try await manageSubscriptions(groupID: subscriptionGroupID)
    }

    private static func manageSubscriptions(groupID: String?) async throws {
        try StoreContext.throwIfSimulated(.manageSubscriptions)
        let environment = ProcessInfo.processInfo.environment["STOREFRONT_MANAGE_SUBSCRIPTIONS"]
            .flatMap(ManageSubscriptionsSheetAction.init(rawValue:))
        guard (manageSubscriptionsSheetAction ?? environment ?? .done) == .cancelSubscription else { return }
        let context = try resolvedContext()
        let statuses = try await storeKitCall { try await context.store.app.subscriptionStatuses() }
        let groups = Set(statuses.filter { $0.state != .expired && $0.state != .revoked }.map(\.groupID))
        for group in groups where groupID == nil || group == groupID {
            try await storeKitCall { try await context.store.appStore.setAutoRenew(groupID: group, false) }
        }
        context.changed()
    }

    /// Asks for an App Store rating (StoreKit's `requestReview(in:)`). There is no prompt on Linux;
    /// as on a device, it is shown at most three times in 365 days per app: ``reviewPromptsShown``
    /// counts the ones that would have been.
    public static func requestReview(in scene: (any Sendable)? = nil) {
        guard let context = try? StoreContext.resolve() else { return }
        let now = Date()
        reviewPrompts.withLock { prompts in
            var shown = prompts[context.store.path, default: []].filter { now.timeIntervalSince($0) < 365 * 86_400 }
            if shown.count < 3 { shown.append(now) }
            prompts[context.store.path] = shown
        }
    }

    /// How many review prompts ``requestReview(in:)`` would have shown in the last 365 days for
    /// this store (StorefrontKit's own: the prompt is the system's on a device).
    public static var reviewPromptsShown: Int {
        guard let context = try? StoreContext.resolve() else { return 0 }
        let now = Date()
        return reviewPrompts.withLock { $0[context.store.path, default: []].filter { now.timeIntervalSince($0) < 365 * 86_400 }.count }
    }
    private static let reviewPrompts = Mutex<[String: [Date]]>([:])
}
