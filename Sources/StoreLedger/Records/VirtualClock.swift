import Foundation
import StoreCatalog

/// The store's clock: real time scaled by the time rate, plus an offset. Kept as an
/// anchor pair (a real instant and the store time then), so changing the rate or
/// jumping ahead never moves time backwards.
package struct VirtualClock: Equatable {
    package var anchorReal: Date
    package var anchorStore: Date
    package var speed: Double

    /// The store time at real time `real`.
    package func storeTime(at real: Date) -> Date {
        anchorStore.addingTimeInterval(real.timeIntervalSince(anchorReal) * speed)
    }

    /// Memberwise, for the targets above this one.
    package init(anchorReal: Date, anchorStore: Date, speed: Double) {
        self.anchorReal = anchorReal
        self.anchorStore = anchorStore
        self.speed = speed
    }
}
