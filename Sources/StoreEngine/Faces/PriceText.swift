import Foundation

/// A price in its own currency, written as its storefront writes it: the one price policy of every face.
///
/// Apple's: a transaction carries its `price` and `currency`; it is shown in that currency, in the
/// locale of the storefront it was bought in — a DEU purchase is `0,99 €` whatever storefront the
/// account is in now and whether or not a catalog is loaded (the locale comes from the App Store's
/// storefronts, not from the catalog).
public enum PriceText {
    /// `price` in `currency` as storefront `countryCode` writes it ("$0.99", "0,99 €", "¥160").
    /// A code the App Store has no storefront for is written in `en_US`.
    public static func display(_ price: Decimal, currency: String, storefront countryCode: String) -> String {
        let locale = AppStoreStorefront.named(countryCode)?.locale ?? Storefront.unitedStates.locale
        return Storefront(countryCode: countryCode, currency: currency, locale: locale).displayPrice(price)
    }

    /// `price` in the currency App Store Connect prices storefront `countryCode` in (a price change's,
    /// a waiting increase's): "renews at 9.99" in a euro storefront said nothing of the currency.
    public static func display(_ price: Decimal, storefront countryCode: String) -> String {
        display(price, currency: AppStoreStorefront.named(countryCode)?.currency ?? Storefront.unitedStates.currency, storefront: countryCode)
    }
}

extension PriceIncrease {
    /// The new price as its storefront writes it (``PriceText``), per `period`: "$9.99/month".
    public func newPriceText(per period: ISODuration?) -> String {
        StatusText.pricePerPeriod(PriceText.display(newPrice, storefront: storefront), period)
    }

    /// The price renewals charge until the increase, written as ``newPriceText(per:)``: "$4.99/month".
    public func oldPriceText(per period: ISODuration?) -> String {
        StatusText.pricePerPeriod(PriceText.display(oldPrice, storefront: storefront), period)
    }
}

extension Transaction {
    /// What was charged, in the transaction's own currency, as its storefront writes it (``PriceText``).
    public var displayPrice: String { PriceText.display(price, currency: currency, storefront: storefront) }

    /// A monthly plan's terms as charged: "$9.99/month for 12 months"; nil for a transaction not on one.
    public var monthlyPlanTerms: String? {
        commitment.map { BillingPlan.monthlyTerms(displayPrice, months: $0.totalBillingPeriods) }
    }

    /// Where its commitment stands: "payment 3 of 12"; nil for a transaction not on a monthly plan.
    public var commitmentPayment: String? {
        commitment.map { "payment \($0.billingPeriodNumber) of \($0.totalBillingPeriods)" }
    }
}
