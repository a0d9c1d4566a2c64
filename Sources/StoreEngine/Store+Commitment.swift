import Foundation

/// Monthly subscriptions with a 12-month commitment (Apple's `MONTHLY` billing plan of a
/// one-year subscription): bought with the billing plan option, billed every month, each
/// month a transaction with its place in the commitment (`commitmentInfo`).
///
/// The rules, as Apple describes them (WWDC26 "What's new in Apple In-App Purchase"; the App
/// Store Server API's `TransactionCommitmentInfo` and `RenewalCommitmentInfo`):
/// - every monthly renewal is a `DID_RENEW` with billing period `n` of 12, the commitment's
///   expiry and total price; the app uses the latest transaction's `expiresDate`;
/// - the renewal info's `commitmentInfo` says what happens when the commitment ends, and is
///   there only while a commitment runs;
/// - the customer committed to 12 payments: turning auto-renew off inside the commitment stops
///   the renewal *after* it (`commitmentAutoRenewStatus` 0), not the monthly payments; the
///   subscription expires at the commitment's end (`EXPIRED VOLUNTARY`).
///
/// Where Apple's text is silent, Storefront decides: the commitment renews into a new
/// 12-month commitment of the same plan at the catalog's price then (there is no way yet to
/// choose another plan for after it); the top-level `autoRenewStatus` stays 1 while monthly
/// payments remain (the next month is billed), and follows the customer's choice in the last
/// month; the monthly plan's own introductory offer (a catalog's `introductoryOffers` entry for
/// it) applies to a new commitment's first billing periods, one offer period each, at the offer's
/// price; other offers (promotional, codes, win-back) apply to the up-front plan only; a billing
/// period's price is the one the commitment began with.
extension Store {
    /// The billing plan the purchase in progress asked for (StoreKit's
    /// `PurchaseOption.billingPlanType(_:)`), bound for that purchase; nil bills up front.
    @TaskLocal public static var billingPlanType: BillingPlanType?

    /// Why the purchase cannot take the billing plan it asked for, if it cannot.
    func billingPlanRefusal(_ item: CatalogProduct) -> StoreError? {
        if Self.billingPlanType != .monthly, let terms = item.subscription, !terms.isBilledUpfrontOnSale {
            return .purchaseError(.productUnavailable, reason: terms.monthlyPlan == nil
                ? "\(item.id)'s up-front billing plan is turned off (isEnabled false) in the catalog, and it has no other"
                : "\(item.id)'s up-front billing plan is turned off (isEnabled false) in the catalog; buy it monthly (the billing plan option)")
        }
        guard Self.billingPlanType == .monthly, item.subscription?.monthlyPlan == nil else { return nil }
        return .purchaseError(.productUnavailable, reason: item.subscription == nil
            ? "\(item.id) is not a subscription: only a one-year subscription has a monthly billing plan"
            : "\(item.id) has no monthly billing plan (monthly with a 12-month commitment) in the catalog; buy it billed up front")
    }

    /// A new purchase on the monthly plan, when asked: billing period 1 of 12, one month long, at the
    /// monthly price; or, with the plan's own introductory offer (`draftTransaction` applied it),
    /// as long as its period and at its price.
    func startCommitment(_ transaction: inout Transaction, _ item: CatalogProduct, in storefront: Storefront, at date: Date) {
        guard Self.billingPlanType == .monthly, let plan = item.subscription?.monthlyPlan else { return }
        transaction.commitment = TransactionCommitment(
            billingPeriodNumber: 1, commitmentExpiresDate: BillingPlan.commitmentPeriod.after(date),
            commitmentPrice: plan.commitmentPrice(in: storefront))
        if transaction.offerType == .introductory, plan.introductoryOffer != nil { return }
        transaction.price = plan.price(in: storefront)
        transaction.expirationDate = BillingPlan.billingPeriod.after(date)
        (transaction.offerType, transaction.offerID) = (nil, nil)
        transaction.applyOffer(mode: nil, period: nil, count: 0)
    }

    /// The renewal after `latest`: the commitment's next month, or a new commitment after its last
    /// month; billed up front when the product renewing has no monthly plan (any more).
    func continueCommitment(_ transaction: inout Transaction, after latest: Transaction, item: CatalogProduct,
                            in storefront: Storefront, at start: Date) throws {
        guard let current = latest.commitment, item.id == latest.productID, let plan = item.subscription?.monthlyPlan else {
            transaction.commitment = nil
            return
        }
        if current.isLastBillingPeriod {
            transaction.commitment = TransactionCommitment(
                billingPeriodNumber: 1, commitmentExpiresDate: BillingPlan.commitmentPeriod.after(start),
                commitmentPrice: plan.commitmentPrice(in: storefront))
            transaction.price = plan.price(in: storefront)
        } else {
            var next = current
            next.billingPeriodNumber += 1
            transaction.commitment = next
            // The commitment's own monthly price, not an introductory offer's the month before paid.
            transaction.price = current.commitmentPrice / Decimal(BillingPlan.totalBillingPeriods)
            // The plan's pay-as-you-go introductory offer goes on for its periods (``renewalOffer(after:record:)``).
            if transaction.offerType == .introductory, plan.introductoryOffer != nil,
               let offer = offerTerms(item, type: .introductory, id: nil, monthly: true) {
                transaction.price = offer.price
                transaction.expirationDate = try renewalEnd(after: start, period: BillingPlan.billingPeriod, latest: latest)
                return
            }
        }
        (transaction.offerType, transaction.offerID) = (nil, nil)
        transaction.applyOffer(mode: nil, period: nil, count: 0)
        transaction.expirationDate = try renewalEnd(after: start, period: BillingPlan.billingPeriod, latest: latest)
    }

    /// The renewal info's billing plan fields: `renewalBillingPlanType` for a subscription with a
    /// monthly plan, and `commitmentInfo` while a commitment runs.
    func applyCommitment(to info: inout RenewalInfo, record: SubscriptionRecord, latest: Transaction,
                         state: RenewalState, account: String, in storefront: Storefront) throws {
        let renewing = catalog.product(id: record.autoRenewProductID)?.subscription?.monthlyPlan
        guard let commitment = latest.commitment, state != .expired, state != .revoked, record.expirationReason == nil else {
            if renewing != nil || latest.commitment != nil { info.renewalBillingPlanType = .billedUpfront }
            return
        }
        let afterPlan: BillingPlanType = renewing == nil ? .billedUpfront : .monthly
        var afterPrice = latest.price
        if let renewing {
            afterPrice = renewing.price(in: storefront)
        } else if let item = catalog.product(id: record.autoRenewProductID) {
            afterPrice = try renewalBasePrice(item, groupID: record.groupID, account: account,
                                              at: commitment.commitmentExpiresDate, in: storefront)
        }
        info.commitmentInfo = RenewalCommitmentInfo(
            autoRenewPreference: record.autoRenewProductID, willAutoRenew: record.willAutoRenew,
            renewalBillingPlanType: afterPlan, renewalDate: commitment.commitmentExpiresDate, renewalPrice: afterPrice)
        if commitment.isLastBillingPeriod {
            // The next renewal is the commitment's own: as the customer set it.
            info.renewalBillingPlanType = afterPlan
            info.renewalPrice = afterPrice
        } else {
            // Months remain: the next one is billed whatever auto-renew says, at the commitment's price
            // (or the plan's introductory offer's, while its periods last).
            info.renewalBillingPlanType = .monthly
            info.willAutoRenew = true
            if info.offerType != .introductory {
                info.renewalPrice = commitment.commitmentPrice / Decimal(BillingPlan.totalBillingPeriods)
                (info.offerType, info.offerID, info.offerPaymentMode, info.offerPeriod) = (nil, nil, nil, nil)
            }
        }
    }
}

extension Transaction {
    /// Whether this is a monthly plan's billing period with more of its commitment to pay.
    var isInsideCommitment: Bool { commitment.map { !$0.isLastBillingPeriod } ?? false }
}
