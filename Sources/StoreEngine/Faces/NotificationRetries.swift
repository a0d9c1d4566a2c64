import Foundation

/// Apple's retry schedule after a failed delivery: five more attempts, 1, 12, 24, 48 and 72 hours after the previous one.
public let notificationRetryDelays: [TimeInterval] = [1, 12, 24, 48, 72].map { $0 * 3600 }
