import Foundation

extension Product {
    /// One way to pay for a subscription, as StoreKit's `Product.SubscriptionInfo.PricingTerms`:
    /// its billing plan, what each billing period costs, and the commitment a monthly plan makes.
    public struct PricingTerms: Sendable, Hashable {
        public var billingPlanType: BillingPlanType
        /// What each billing period costs (`billingPrice`).
        public var billingPrice: Decimal
        /// That price as the storefront writes it (`billingDisplayPrice`): "$9.99".
        public var billingDisplayPrice: String
        /// How often it is billed (`billingPeriod`): the subscription's period, or a month.
        public var billingPeriod: ISODuration
        /// The commitment of a monthly plan (`commitmentInfo`); nil when billed up front.
        public var commitmentInfo: CommitmentInfo?
        /// The plan's own introductory offer (among StoreKit's `subscriptionOffers`): up front, the
        /// subscription's; monthly, the monthly plan's.
        public var introductoryOffer: Product.Offer? = nil

        /// A commitment's whole length and price, as `Product.SubscriptionInfo.CommitmentInfo`.
        public struct CommitmentInfo: Sendable, Hashable {
            /// The total of every billing period of the commitment.
            public var price: Decimal
            public var displayPrice: String
            /// The commitment's length: one year.
            public var period: ISODuration
        }

        /// How the paywall and the command line write it: "$9.99/month for 12 months",
        /// or "$99.99/year" billed up front.
        public var summary: String {
            guard commitmentInfo != nil else { return "\(billingDisplayPrice)/\(billingPeriod.unitWord)" }
            return BillingPlan.monthlyTerms(billingDisplayPrice)
        }

        /// Up front (unless the catalog turns it off), then a one-year subscription's monthly plan, priced in `storefront`.
        static func all(of terms: SubscriptionTerms, upFront: Decimal, in storefront: Storefront,
                        displayPrice: (Decimal) -> String) -> [PricingTerms] {
            let offer = { (offer: IntroductoryOffer) in
                Product.Offer(paymentMode: offer.paymentMode, period: offer.period, periodCount: offer.periodCount,
                              price: offer.price, displayPrice: displayPrice(offer.price))
            }
            var all = terms.isBilledUpfrontOnSale
                ? [PricingTerms(billingPlanType: .billedUpfront, billingPrice: upFront, billingDisplayPrice: displayPrice(upFront),
                                billingPeriod: terms.period, commitmentInfo: nil,
                                introductoryOffer: terms.introductoryOffer.map(offer))]
                : []
            if let plan = terms.monthlyPlan {
                let monthly = plan.price(in: storefront), total = plan.commitmentPrice(in: storefront)
                all.append(PricingTerms(billingPlanType: .monthly, billingPrice: monthly, billingDisplayPrice: displayPrice(monthly),
                                        billingPeriod: BillingPlan.billingPeriod,
                                        commitmentInfo: CommitmentInfo(price: total, displayPrice: displayPrice(total),
                                                                       period: BillingPlan.commitmentPeriod),
                                        introductoryOffer: plan.introductoryOffer.map(offer)))
            }
            return all
        }
    }
}

extension Product.SubscriptionInfo {
    /// The monthly plan's terms, if the subscription has one.
    public var monthlyTerms: Product.PricingTerms? {
        pricingTerms.first { $0.billingPlanType == .monthly }
    }
}

extension ISODuration {
    /// "year", "month", "week", "day" for a one-unit period, else its spelled-out length.
    var unitWord: String {
        switch self {
        case ISODuration(years: 1): "year"
        case ISODuration(months: 1): "month"
        case ISODuration(weeks: 1): "week"
        case ISODuration(days: 1): "day"
        default: spelledOut
        }
    }
}
