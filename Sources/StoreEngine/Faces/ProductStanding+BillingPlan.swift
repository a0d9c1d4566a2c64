import Foundation

extension ProductStanding {
    /// The monthly plan in words, the one wording the paywall's row and the CLI print beside the
    /// status: "$9.99/month for 12 months · payment 3 of 12" for a subscription on it (", ends
    /// Jan 1, 2028" once its commitment will not renew), "or $9.99/month for 12 months" for a
    /// one-year subscription that has the plan and is not subscribed; nil otherwise.
    static func billingPlanText(_ product: Product, current status: SubscriptionStatus?, canMakePayments: Bool) -> String? {
        if let status, let commitment = status.transaction.commitment, let terms = status.transaction.monthlyPlanTerms,
           let payment = status.transaction.commitmentPayment,
           status.state == .subscribed || status.state == .inGracePeriod || status.state == .inBillingRetryPeriod {
            var text = "\(terms) · \(payment)"
            if status.renewalInfo.commitmentInfo?.willAutoRenew == false {
                text += ", ends \(StatusText.shortDate(commitment.commitmentExpiresDate))"
            }
            return text
        }
        guard canMakePayments, let terms = product.subscription?.monthlyTerms else { return nil }
        return "or " + terms.summary
    }
}
