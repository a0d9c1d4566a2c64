import Foundation
import Synchronization

/// Test double for a store's clock: time stands still until the test moves it.
public final class TestClock: Sendable {
    private let current: Mutex<Date>

    public init(_ start: Date) {
        current = Mutex(start)
    }

    /// The time the store sees now.
    public var now: Date { current.withLock { $0 } }

    /// Moves time forward (or back, with a negative interval).
    public func advance(by seconds: TimeInterval) {
        current.withLock { $0 = $0.addingTimeInterval(seconds) }
    }

    /// Puts the clock at `date`.
    public func set(_ date: Date) {
        current.withLock { $0 = date }
    }

    /// The closure to hand to `Store(now:)`.
    public var closure: @Sendable () -> Date {
        { [self] in self.now }
    }
}
