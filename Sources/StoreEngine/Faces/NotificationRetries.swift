import Foundation

/// Apple's retry schedule after a failed delivery: five more attempts, 1, 12, 24, 48 and 72 hours after the previous one.
public let notificationRetryDelays: [TimeInterval] = [1, 12, 24, 48, 72].map { $0 * 3600 }

/// The retries of a notification made in `environment`. Apple retries in Production only: "In
/// the sandbox environment, the App Store server attempts to send the notification one time."
/// Xcode's and local testing's environments, where Apple sends no server notifications at all,
/// are sent once too, as Sandbox's.
public func notificationRetryDelays(in environment: Transaction.AppStoreEnvironment) -> [TimeInterval] {
    environment == .production ? notificationRetryDelays : []
}
