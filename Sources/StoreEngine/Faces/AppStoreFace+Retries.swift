import Foundation

extension AppStoreFace {
    /// When the next attempt to deliver `notification` falls due on the store's clock (Apple's
    /// retry schedule after its last failed attempt); nil when it may be sent now or never again.
    public func retryDate(of notification: ServerNotification) -> Date? {
        guard let last = notification.attempts.last, last.result != .success,
              notification.attempts.count <= notificationRetryDelays.count else { return nil }
        return last.date.addingTimeInterval(notificationRetryDelays[notification.attempts.count - 1])
    }
}
