import Foundation

/// One subscription group's status: `Product.SubscriptionInfo.Status`.
public struct SubscriptionStatus: Sendable, Hashable {
    public var groupID: String
    public var state: RenewalState
    /// The subscription's newest transaction.
    public var transaction: Transaction
    public var renewalInfo: RenewalInfo

    /// The plan a waiting downgrade or crossgrade starts at the next renewal: the renewal info's
    /// `autoRenewPreference` while the subscription is live and renews to another plan; nil when
    /// nothing renews to it (auto-renew off, expired, in billing retry, refunded). The paywall's
    /// row ("Until …, then changes") and `status`'s "next:" both say this.
    public var nextProductID: String? {
        guard state == .subscribed || state == .inGracePeriod, renewalInfo.willAutoRenew,
              renewalInfo.autoRenewPreference != transaction.productID else { return nil }
        return renewalInfo.autoRenewPreference
    }

    /// The offer the next renewal takes, in the words every front end prints: "next renewal:
    /// promotional offer annual_comeback at $29.99". Nil when it takes none, or when nothing renews
    /// (auto-renew off, expired, in billing retry, refunded). `status --json` has it as the renewal
    /// info's `offerType`, `offerIdentifier` and `renewalPrice`; `status` and the paywall's row say this.
    public var renewalOfferText: String? {
        guard state == .subscribed || state == .inGracePeriod, renewalInfo.willAutoRenew,
              let type = renewalInfo.offerType else { return nil }
        let name = switch type {
        case .introductory: "introductory offer"
        case .promotional: "promotional offer"
        case .code: "offer code"
        case .winBack: "win-back offer"
        }
        let currency = renewalInfo.currency.isEmpty ? transaction.currency : renewalInfo.currency
        let price = PriceText.display(renewalInfo.renewalPrice, currency: currency, storefront: transaction.storefront)
        return "next renewal: \(name)\(renewalInfo.offerID.map { " \($0)" } ?? "") at \(price)"
    }

    /// A price increase waiting for the subscription, in the words every front end prints: "price
    /// increase pending, renews at $9.99" (consent awaited) or "… agreed, …"; nil when none waits.
    /// `status` printed the bare amount, the paywall's row nothing (issue 40). It names no price when
    /// nothing renews (auto-renew off: "Expires …" is not followed by "renews at"), nor when the next
    /// renewal takes an offer (the increase waits for the first renewal after it).
    public var priceIncreaseText: String? {
        guard renewalInfo.priceIncreaseStatus != .noIncreasePending else { return nil }
        let words = "price increase \(renewalInfo.priceIncreaseStatus.rawValue)"
        guard (state == .subscribed || state == .inGracePeriod) && renewalInfo.willAutoRenew else { return words }
        guard renewalInfo.offerType == nil else { return words + ", from the first renewal after the offer" }
        let currency = renewalInfo.currency.isEmpty ? transaction.currency : renewalInfo.currency
        let price = PriceText.display(renewalInfo.renewalPrice, currency: currency, storefront: transaction.storefront)
        return words + ", renews at \(price)"
    }
}
