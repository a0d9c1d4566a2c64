import Foundation

/// What each answer on the price increase consent sheet does, in the words the action then
/// reports: the sheet shows them before the customer answers, so the two cannot disagree.
public struct PriceIncreaseAnswers: Sendable, Hashable {
    /// What renewals charge until the increase, per period, as its storefront writes it: "$4.99/month".
    public var oldPrice: String
    /// The new price, per period: "$9.99/month".
    public var newPrice: String
    /// The renewal that takes the new price; without consent by then, the subscription ends then.
    public var from: Date
    /// What Agree reports (``AppStoreFace/consentToPriceIncreaseReporting(_:)``).
    public var agree: ActionOutcome
    /// What Cancel Subscription reports (``AppStoreFace/declinePriceIncreaseReporting(_:)``).
    public var cancel: ActionOutcome
}

extension PriceIncrease {
    /// The consent sheet's answers to this increase of `product` (its display name), billed every `period`.
    public func answers(product: String, period: ISODuration?) -> PriceIncreaseAnswers {
        let from = effectiveDate ?? noticeEnds
        return PriceIncreaseAnswers(oldPrice: oldPriceText(per: period), newPrice: newPriceText(per: period), from: from,
                                    agree: .priceIncreaseAgreed(product: product, price: newPriceText(per: period), from: from),
                                    cancel: .priceIncreaseDeclined(product: product))
    }
}

extension StoreSnapshot {
    /// The consent sheet's answers to a waiting increase, for the product as this snapshot has it.
    public func answers(to increase: PriceIncrease) -> PriceIncreaseAnswers {
        let product = products.first { $0.id == increase.productID }
        return increase.answers(product: product?.displayName ?? increase.productID, period: product?.subscription?.subscriptionPeriod)
    }
}
