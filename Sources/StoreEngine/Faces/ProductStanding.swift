import Foundation

// What the account has of a product, decided once from a snapshot: the paywall's row, the CLI's
// `products`, StorefrontKit and a scenario's `expect` all translate this, and print its `text`.

/// A product's standing for the account in a ``StoreSnapshot``.
public struct ProductStanding: Sendable, Hashable {
    /// Whose it is, and where.
    public enum Ownership: Sendable, Hashable {
        /// Not the account's.
        case none
        /// The app has it (its owned-products cache), bought by the account.
        case owned
        /// The app has it, shared by the family organizer or a member (Family Sharing).
        case familyShared
        /// The App Store says the account has it, the app does not (after `reset app`, deleting the app):
        /// restoring brings it back. Not a live subscription: the app sees that in `currentEntitlements` at once.
        case notOnThisDevice
    }

    /// A subscription's state, on the row of the group's current product.
    public struct Subscription: Sendable, Hashable {
        public var state: RenewalState
        /// The current period's end.
        public var expirationDate: Date?
        public var isFreeTrial: Bool
        public var willAutoRenew: Bool
        /// Set in the grace period: the end of it.
        public var gracePeriodExpirationDate: Date?
    }

    /// A change waiting for the current period's end, on the row of the plan it ends.
    public struct ScheduledChange: Sendable, Hashable {
        public enum Kind: String, Sendable, Hashable {
            /// To a lower plan of the group.
            case downgrade
            /// To a plan of the same level with another period.
            case crossgrade
            /// Auto-renew is off: the subscription ends.
            case cancel
        }
        public var kind: Kind
        /// The plan that starts then; nil for a cancellation.
        public var toProductID: String?
        /// When it happens: the current period's end.
        public var date: Date?
    }

    public var productID: String
    public var productType: ProductType
    public var ownership: Ownership
    /// The granting transaction, when the app or the App Store has one.
    public var transaction: Transaction?
    /// The subscription of the product's group, when this product is the group's current one.
    public var subscription: Subscription?
    /// On the group's current product: the change the next renewal makes.
    public var scheduledChange: ScheduledChange?
    /// On the product a waiting downgrade or crossgrade goes to: when it starts.
    public var startsOn: Date?
    /// The introductory offer the account may take now; nil when none, or when payments are not allowed.
    public var introductoryOffer: Product.Offer?
    /// The win-back offers the account may take now, best first; empty without payments.
    public var winBackOfferIDs: [String]
    /// The newest request waiting for a parent or the user.
    public var pending: PendingRequest?
    /// The app was handed a transaction of it and left it unfinished.
    public var isUnfinished: Bool
    /// Why its newest transaction failed verification, when it did (and the app does not own it).
    public var unverifiedReason: String?
    /// A consumable's balance.
    public var balance: Int?
    /// The price to show; nil when payments are not allowed (the product cannot be bought).
    public var displayPrice: String?
    /// A one-year subscription's monthly plan in words (``billingPlanText(_:current:canMakePayments:)``), if it has one.
    public var billingPlanText: String? = nil
    /// "Refund requested" or "Refund declined" while the app's request for its purchase stands
    /// (``StoreSnapshot/refundRequestMark(for:)``); every front end shows it with the status.
    public var refundRequestMark: String? = nil
    /// On the group's current product: the offer its next renewal takes (``SubscriptionStatus/renewalOfferText``).
    public var renewalOffer: String? = nil
    /// On the group's current product: a price increase waiting (``SubscriptionStatus/priceIncreaseText``).
    public var priceIncrease: String? = nil

    /// The standing from its parts (what a snapshot holds of the product).
    /// - Parameters:
    ///   - owned: the app's owned-products entry; `entitled`: whether the App Store says the account has it.
    ///   - subscription: the status of the product's group; `introEligible`: whether the account may take its intro offer.
    ///   - waitingChange: the change to the plan auto-renewal goes to next, when that is another
    ///     (``StoreSnapshot/plannedChanges`` of that plan): a downgrade or a crossgrade.
    public init(_ product: Product, owned: Transaction?, entitled: Bool = false, balance: Int? = nil,
                subscription status: SubscriptionStatus? = nil, introEligible: Bool = false, canMakePayments: Bool = true,
                waitingChange: PlannedChange? = nil, pending: PendingRequest? = nil, isUnfinished: Bool = false,
                unverifiedReason: String? = nil) {
        productID = product.id
        productType = product.type
        transaction = owned
        self.balance = product.type == .consumable ? balance ?? 0 : nil
        self.pending = pending
        self.isUnfinished = isUnfinished
        self.unverifiedReason = owned == nil ? unverifiedReason : nil
        displayPrice = canMakePayments ? product.displayPrice : nil
        let isCurrent = status?.transaction.productID == product.id
        let live = status.map { $0.state == .subscribed || $0.state == .inGracePeriod } ?? false
        if let owned {
            ownership = owned.ownershipType == .familyShared ? .familyShared : .owned
        } else if product.type == .autoRenewable, isCurrent, live, let current = status?.transaction {
            // A StoreKit 2 app sees a live subscription in `Transaction.currentEntitlements` at once, on any
            // device and after a reinstall (`reset app`): nothing to restore.
            ownership = current.ownershipType == .familyShared ? .familyShared : .owned
            transaction = current
        } else if product.type != .consumable, product.type != .autoRenewable, entitled {
            ownership = .notOnThisDevice
        } else {
            ownership = .none
        }
        subscription = nil
        scheduledChange = nil
        startsOn = nil
        introductoryOffer = nil
        winBackOfferIDs = []
        if let status, product.type == .autoRenewable {
            let info = status.renewalInfo
            if isCurrent {
                subscription = Subscription(state: status.state, expirationDate: status.transaction.expirationDate,
                                            isFreeTrial: TransactionFacts.isFreeTrial(status.transaction),
                                            willAutoRenew: info.willAutoRenew,
                                            gracePeriodExpirationDate: info.gracePeriodExpirationDate)
                renewalOffer = status.renewalOfferText
                priceIncrease = status.priceIncreaseText
                if status.state == .subscribed || status.state == .inGracePeriod {
                    if !info.willAutoRenew {
                        scheduledChange = ScheduledChange(kind: .cancel, toProductID: nil, date: status.transaction.expirationDate)
                    } else if let next = status.nextProductID {
                        scheduledChange = ScheduledChange(kind: waitingChange?.kind == .crossgrade ? .crossgrade : .downgrade,
                                                          toProductID: next, date: status.transaction.expirationDate)
                    }
                }
                if canMakePayments, status.state == .expired {
                    let offered = Set(product.subscription?.winBackOffers.compactMap(\.id) ?? [])
                    winBackOfferIDs = info.eligibleWinBackOfferIDs.filter(offered.contains)
                }
            } else if info.autoRenewPreference == product.id, info.willAutoRenew, status.state == .subscribed {
                startsOn = status.transaction.expirationDate
            }
        }
        if status == nil, owned == nil, introEligible, canMakePayments, let offer = product.subscription?.introductoryOffer {
            introductoryOffer = offer
        }
        if product.type == .autoRenewable {
            billingPlanText = Self.billingPlanText(product, current: isCurrent ? status : nil, canMakePayments: canMakePayments)
        }
    }

    /// The status in words, the one wording the CLI and the paywall print:
    /// "Owned", "Shared by family", "Subscribed, not on this device", "Renews Dec 30, 2027",
    /// "Free trial until Jan 7, 2027, then $4.99/month", "Until …, then changes" (a downgrade waits),
    /// "Starts …" (the plan it goes to), "Grace period until …", "Billing retry", "Expired … · win-back offer",
    /// "Refunded", "Bought … · 3 months (app's count)", "Balance: 300", an offer's terms
    /// ("1 week free, then $4.99/month"), "Pending approval", "Unfinished", "⚠ Unverified", or "".
    /// `dot` joins the parts, `warning` marks an unverified purchase (the paywall's glyphs).
    public func text(for product: Product, dot: String = "·", warning: String = "⚠") -> String {
        if unverifiedReason != nil { return "\(warning) Unverified" }
        // Bought here and left unfinished, it is the app's to deliver, not "not on this device" (that
        // sent testers to r); the mark says what it is.
        var text = isUnfinished && ownership == .notOnThisDevice ? "" : mainText(product)
        if let billingPlanText { text = text.isEmpty ? billingPlanText : "\(text) \(dot) \(billingPlanText)" }
        for part in [renewalOffer, priceIncrease].compactMap({ $0 }) { text = text.isEmpty ? part : "\(text) \(dot) \(part)" }
        // What waits: a request for a parent or the user, a transaction the app left unfinished.
        var marks: [String] = []
        if let pending { marks.append(pending.reason == .askToBuy ? "Pending approval" : "Pending (interrupted)") }
        if isUnfinished { marks.append("Unfinished") }
        if let refundRequestMark { marks.append(refundRequestMark) }
        if !marks.isEmpty {
            // Before an offer's text (nothing is owned yet), after an owned state or a balance.
            let isOffer = ownership == .none && productType == .autoRenewable
            text = isOffer || text.isEmpty ? marks.joined(separator: " \(dot) ") : ([text] + marks).joined(separator: " \(dot) ")
        }
        return text
    }

    /// The words for what the account has, before any marks.
    private func mainText(_ product: Product) -> String {
        let date = StatusText.shortDate
        switch productType {
        case .consumable:
            return "Balance: \(balance ?? 0)"
        case .nonConsumable:
            switch ownership {
            case .owned: return "Owned"
            case .familyShared: return "Shared by family"
            case .notOnThisDevice: return "Purchased, not on this device"
            case .none: return ""
            }
        case .nonRenewable:
            // The App Store keeps no end date for it: the length is the app's own reckoning from the catalog.
            // After `reset app` the app has no transaction of it, but the customer bought it.
            if ownership == .notOnThisDevice { return "Purchased, not on this device" }
            guard let transaction else { return "" }
            let length = product.nonRenewingDuration.map { " · \($0.spelledOut) (app's count)" } ?? ""
            return "Bought \(date(transaction.purchaseDate))\(length)"
        case .autoRenewable:
            if ownership == .notOnThisDevice { return "Subscribed, not on this device" }
            if let startsOn { return "Starts \(date(startsOn))" }
            if let subscription { return subscriptionText(subscription, product) }
            if let transaction { return transaction.expirationDate.map { "Renews \(date($0))" } ?? "Active" }
            if let introductoryOffer { return StatusText.offerTerms(introductoryOffer, product) }
            return ""
        }
    }

    private func subscriptionText(_ subscription: Subscription, _ product: Product) -> String {
        let date = StatusText.shortDate
        switch subscription.state {
        case .subscribed:
            guard let end = subscription.expirationDate else { return "Active" }
            if subscription.isFreeTrial {
                // A trial is a trial: when it ends, and what comes then.
                switch scheduledChange?.kind {
                case .cancel?: return "Free trial until \(date(end)), then ends"
                case .downgrade?, .crossgrade?: return "Free trial until \(date(end)), then changes"
                case nil:
                    // The renewal's offer follows on the row ("· next renewal: …"): not the regular price.
                    guard renewalOffer == nil else { return "Free trial until \(date(end))" }
                    let price = StatusText.pricePerPeriod(product.displayPrice, product.subscription?.subscriptionPeriod)
                    return "Free trial until \(date(end)), then \(price)"
                }
            }
            switch scheduledChange?.kind {
            case .cancel?: return "Expires \(date(end))"
            // A downgrade waits: this plan ends then, the other one starts.
            case .downgrade?, .crossgrade?: return "Until \(date(end)), then changes"
            case nil: return "Renews \(date(end))"
            }
        case .inGracePeriod:
            return subscription.gracePeriodExpirationDate.map { "Grace period until \(date($0))" } ?? "Grace period"
        case .inBillingRetryPeriod:
            return "Billing retry"
        case .expired:
            // A lapsed subscriber may come back with a win-back offer: the row says so.
            let winBack = winBackOfferIDs.isEmpty ? "" : " · win-back offer"
            return (subscription.expirationDate.map { "Expired \(date($0))" } ?? "Expired") + winBack
        case .revoked:
            return "Refunded"
        }
    }
}

extension StoreSnapshot {
    /// The standing of `product` in this snapshot.
    public func standing(of product: Product) -> ProductStanding {
        let group = product.subscription?.subscriptionGroupID
        var standing = ProductStanding(product, owned: owned[product.id], entitled: entitled.contains(product.id),
                               balance: balances[product.id], subscription: group.flatMap { subscriptions[$0] },
                               introEligible: group.map(introEligibleGroups.contains) ?? false,
                               canMakePayments: canMakePayments,
                               waitingChange: group.flatMap { subscriptions[$0]?.renewalInfo.autoRenewPreference }.flatMap { plannedChanges[$0] },
                               pending: pending.last { $0.productID == product.id },
                               isUnfinished: left.contains { $0.productID == product.id },
                               unverifiedReason: unverified[product.id])
        standing.refundRequestMark = refundRequestMark(for: refundableTransaction(of: product))
        return standing
    }

    /// The purchase a refund request for `product` is about: the subscription's current
    /// transaction when it is of this product, else the app's own.
    public func refundableTransaction(of product: Product) -> Transaction? {
        if let group = product.subscription?.subscriptionGroupID, let status = subscriptions[group],
           status.transaction.productID == product.id {
            return status.transaction
        }
        return owned[product.id]
    }

    /// "Refund requested" or "Refund declined" for a transaction the app asked a refund for, until
    /// it is refunded; nil otherwise.
    public func refundRequestMark(for transaction: Transaction?) -> String? {
        guard let transaction, transaction.revocationDate == nil else { return nil }
        return refundRequests[transaction.id]?.status.mark
    }

    /// Every product's standing, in the catalog's order.
    public var standings: [ProductStanding] { products.map(standing(of:)) }
}
