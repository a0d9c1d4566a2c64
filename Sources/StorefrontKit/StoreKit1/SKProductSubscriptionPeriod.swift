import Foundation
import StoreEngine

extension SKProduct {
    /// The unit of a subscription or discount period, as Apple's `SKProduct.PeriodUnit` (raw values included).
    public enum PeriodUnit: UInt, Sendable, Hashable {
        case day = 0
        case week = 1
        case month = 2
        case year = 3
    }
}

/// A length of time in one unit, as Apple's `SKProductSubscriptionPeriod`: a subscription's period,
/// or one period of a discount. Open with a public `init()`, as Apple's: a mock subclass overrides the getters.
open class SKProductSubscriptionPeriod: NSObject, @unchecked Sendable {
    // @unchecked: immutable after init.

    private let storedNumberOfUnits: Int
    private let storedUnit: SKProduct.PeriodUnit

    /// How many units.
    open var numberOfUnits: Int { storedNumberOfUnits }
    /// The unit.
    open var unit: SKProduct.PeriodUnit { storedUnit }

    /// An empty period, as Apple's `SKProductSubscriptionPeriod()`: 0 days.
    public override init() {
        storedNumberOfUnits = 0
        storedUnit = .day
        super.init()
    }

    /// A period of `numberOfUnits` `unit`s.
    init(numberOfUnits: Int, unit: SKProduct.PeriodUnit) {
        storedNumberOfUnits = numberOfUnits
        storedUnit = unit
        super.init()
    }

    /// The catalog's ISO 8601 duration in StoreKit's one unit (as StoreKit 2's `SubscriptionPeriod` reads it:
    /// whole weeks of days are weeks).
    convenience init(_ duration: ISODuration) {
        if duration.years > 0 { self.init(numberOfUnits: duration.years, unit: .year) }
        else if duration.months > 0 { self.init(numberOfUnits: duration.months, unit: .month) }
        else if duration.weeks > 0 { self.init(numberOfUnits: duration.weeks, unit: .week) }
        else if duration.days > 0, duration.days % 7 == 0 { self.init(numberOfUnits: duration.days / 7, unit: .week) }
        else { self.init(numberOfUnits: max(duration.days, 1), unit: .day) }
    }

    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? SKProductSubscriptionPeriod else { return false }
        return numberOfUnits == other.numberOfUnits && unit == other.unit
    }
    open override var hash: Int { numberOfUnits &* 4 &+ Int(unit.rawValue) }
    open override var description: String { "\(numberOfUnits) \(unit)" }
}
