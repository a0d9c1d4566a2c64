import Foundation
import StoreEngine

/// The words shown beside a product for what the account has of it, shared by
/// the paywall and the CLI so both say the same thing.
public enum ProductStatus {
    /// "Owned" ("Shared by family" when Family Sharing gave it), "Renews Dec 30, 2027", "Expires …",
    /// "Until …, then changes" (a downgrade waits),
    /// "Grace period until …", "Billing retry", "Expired Jan 7, 2027 · win-back offer" (one is eligible),
    /// "Bought Feb 28, 2027 · 3 months (app's count)" (a non-renewing subscription: the length is
    /// the app's own reckoning, the App Store keeps no end), "Balance: 300", an introductory offer ("1 week free,
    /// then $4.99/month") for an account that may take it, or "".
    /// - Parameters:
    ///   - subscription: the status of the product's subscription group, when the account has one.
    ///   - introEligible: whether the account may take the group's introductory offer.
    public static func text(for product: Product, owned: Transaction?, balance: Int?,
                            subscription: SubscriptionStatus? = nil, introEligible: Bool = false) -> String {
        // Decided and worded by the engine (ProductStanding), for the CLI and the paywall alike.
        ProductStanding(product, owned: owned, balance: balance, subscription: subscription, introEligible: introEligible)
            .text(for: product)
    }

    /// "1 week free, then $4.99/month", "$0.99/month for 3 months, then $4.99/month".
    static func introText(_ offer: Product.Offer, _ product: Product) -> String { StatusText.offerTerms(offer, product) }

    /// "$9.99/month": a price for each period of a subscription.
    static func pricePerPeriod(_ price: String, _ period: ISODuration?) -> String { StatusText.pricePerPeriod(price, period) }

    /// "Dec 30, 2027", in UTC so every terminal and test agrees (``StatusText/shortDate(_:)``).
    public static func shortDate(_ date: Date) -> String { StatusText.shortDate(date) }

    /// `shortDate` as Foundation formats it (en_US, abbreviated, UTC): what the arithmetic must equal.
    static func formattedShortDate(_ date: Date) -> String { StatusText.formattedShortDate(date) }
}
