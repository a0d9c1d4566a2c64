import Foundation

/// How a one-year subscription is paid for, as Apple's `billingPlanType` names it: the
/// year billed up front, or monthly with a 12-month commitment.
public enum BillingPlanType: String, Sendable, Hashable, CaseIterable {
    /// The whole period billed at once (StoreKit's `.upFront`): every subscription has it.
    case billedUpfront = "BILLED_UPFRONT"
    /// Billed every month over a 12-month commitment (StoreKit's `.monthly`).
    case monthly = "MONTHLY"

    /// The note for a plan a catalog turns off (`"isEnabled": false`): it is not offered, and a
    /// purchase on it is refused (up front: the subscription sells on its monthly plan only).
    var disabledNote: String {
        self == .monthly
            ? "the \"MONTHLY\" billing plan is turned off (isEnabled false): it is not offered, and a purchase on it is refused"
            : "the \"BILLED_UPFRONT\" billing plan is turned off (isEnabled false): it is not offered, and a purchase billed up front is refused"
    }

    /// The name a command line takes: `upfront`, `monthly`.
    public var argument: String { self == .monthly ? "monthly" : "upfront" }

    /// The plan a command-line word or Apple's raw value names.
    public init?(argument: String) {
        switch argument.lowercased() {
        case "monthly": self = .monthly
        case "upfront", "up-front", "billed_upfront": self = .billedUpfront
        default: return nil
        }
    }
}

/// One billing plan of a one-year subscription beside its up-front price: Apple's "monthly
/// with a 12-month commitment", a `billingPlans` entry of a `.storekit` file or products.json.
public struct BillingPlan: Sendable, Hashable {
    public var type: BillingPlanType
    /// What each billing period costs (the monthly price), in the catalog's base storefront.
    public var price: Decimal
    /// Per-storefront prices of a billing period, by country code (products.json only).
    public var prices: [String: Decimal] = [:]
    /// The plan's own introductory offer (a newer `.storekit` file's `introductoryOffers` entry
    /// for this plan; products.json: the plan's `introductoryOffer`), beside the up-front plan's.
    public var introductoryOffer: IntroductoryOffer?

    public init(type: BillingPlanType, price: Decimal, prices: [String: Decimal] = [:],
                introductoryOffer: IntroductoryOffer? = nil) {
        (self.type, self.price, self.prices, self.introductoryOffer) = (type, price, prices, introductoryOffer)
    }

    /// Apple's commitment: 12 monthly billing periods (`totalBillingPeriods`).
    public static let totalBillingPeriods = 12

    /// "$9.99/month for 12 months": a monthly plan's price and length, the one wording of the
    /// paywall, the command line and the App Store sheet.
    public static func monthlyTerms(_ displayPrice: String, months: Int = totalBillingPeriods) -> String {
        "\(displayPrice)/month for \(months) months"
    }
    /// The length of one billing period of a monthly plan.
    public static let billingPeriod = ISODuration(months: 1)
    /// The one subscription period a monthly plan can be added to (App Store Connect, Xcode: one year).
    public static let commitmentPeriod = ISODuration(years: 1)

    /// A billing period's price in `storefront`.
    public func price(in storefront: Storefront) -> Decimal {
        prices[storefront.countryCode] ?? price
    }

    /// The whole commitment's price in `storefront`: 12 billing periods (`commitmentPrice`).
    public func commitmentPrice(in storefront: Storefront) -> Decimal {
        price(in: storefront) * Decimal(Self.totalBillingPeriods)
    }
}

extension SubscriptionTerms {
    /// The monthly-with-commitment plan, if the subscription has one.
    public var monthlyPlan: BillingPlan? {
        billingPlans.first { $0.type == .monthly }
    }
}

extension Node {
    /// A subscription's `billingPlans` list (`.storekit` and products.json share the shape):
    /// each entry `{"billingPlanType": "MONTHLY", <priceKey>: "9.99"}`; `BILLED_UPFRONT` may
    /// be listed (it is the subscription's own price) and is not kept. Only a one-year
    /// subscription may have a monthly plan, as in App Store Connect and Xcode. An entry with
    /// `"isEnabled": false` (Xcode's switch for a plan not on sale) is not kept either: it is
    /// returned in `disabled`, unchecked, for the caller's note. `introductoryOffer` reads a
    /// plan's own `introductoryOffer` member (products.json; a `.storekit` file lists them apart).
    func billingPlans(period: ISODuration, priceKey: String, storefronts: Set<String>? = nil,
                      introductoryOffer: ((Node) throws -> IntroductoryOffer)? = nil) throws
        -> (plans: [BillingPlan], disabled: [(type: BillingPlanType, node: Node)]) {
        var plans: [BillingPlan] = []
        var disabled: [(type: BillingPlanType, node: Node)] = []
        var seen: [BillingPlanType: Node] = [:]
        for entry in try elements() {
            try entry.object()
            let typeNode = try entry.required("billingPlanType")
            let name = try typeNode.string()
            guard let type = BillingPlanType(rawValue: name) else {
                throw typeNode.fail("unknown billing plan type \(typeNode.describe()); expected \"BILLED_UPFRONT\" or \"MONTHLY\"")
            }
            if let earlier = seen[type] {
                throw typeNode.fail("billing plan \"\(name)\" is listed twice (first at \(earlier.path))")
            }
            seen[type] = typeNode
            if let enabled = entry.child("isEnabled"), try !enabled.bool() {
                disabled.append((type, enabled))
                continue
            }
            guard type == .monthly else { continue }
            guard period == BillingPlan.commitmentPeriod else {
                throw typeNode.fail("a \"MONTHLY\" billing plan (monthly with a 12-month commitment) needs a one-year subscription (P1Y), not \(period.description)")
            }
            let priceNode = try entry.required(priceKey)
            let price = try priceNode.price()
            guard price > 0 else { throw priceNode.fail("a monthly billing plan's price must be more than 0") }
            var prices: [String: Decimal] = [:]
            if let pricesNode = entry.child("prices") {
                guard let storefronts else { throw pricesNode.fail("per-storefront prices belong in products.json") }
                for (code, node) in try pricesNode.members() {
                    guard storefronts.contains(code) else { throw node.fail("no storefront \"\(code)\" in \"storefronts\"") }
                    let value = try node.price()
                    guard value > 0 else { throw node.fail("a monthly billing plan's price must be more than 0") }
                    prices[code] = value
                }
            }
            plans.append(BillingPlan(type: .monthly, price: price, prices: prices,
                                     introductoryOffer: try entry.child("introductoryOffer").flatMap { node in
                                         try introductoryOffer.map { try $0(node) }
                                     }))
        }
        return (plans, disabled)
    }
}
