import Foundation

// The App Store's actions with what they did as an ``ActionOutcome``: the one wording the CLI, the
// paywall and scenarios show.

extension AppStoreFace {
    /// ``approve(_:)``, reported.
    public func approveReporting(_ id: Int64) async throws -> ActionOutcome {
        let outcome = try await approve(id)
        return .approved(requestID: id, outcome, product: try await store.productName(Self.productID(of: outcome)))
    }

    /// ``resolve(_:)``, reported.
    public func resolveReporting(_ id: Int64) async throws -> ActionOutcome {
        let outcome = try await resolve(id)
        return .resolved(requestID: id, outcome, product: try await store.productName(Self.productID(of: outcome)))
    }

    /// ``decline(_:)``, reported.
    public func declineReporting(_ id: Int64) async throws -> ActionOutcome {
        let request = try await decline(id)
        return .declined(requestID: id, product: try await store.productName(request.productID))
    }

    /// ``refund(_:reason:share:)``, reported: with how many family members' shares were revoked with it.
    public func refundReporting(_ id: Int64, reason: Transaction.RevocationReason = .other,
                                share: RefundShare = .full) async throws -> ActionOutcome {
        let (transaction, revoked) = try await store.refundRevokingShares(id, reason: reason, share: share)
        return .refunded(transaction, product: try await store.productName(transaction.productID), revokedShares: revoked.count)
    }

    /// ``purchaseOutsideApp(_:quantity:appAccountToken:offerID:offerSignature:winBackOfferID:choice:)``, reported.
    public func purchaseOutsideAppReporting(_ productID: String, quantity: Int = 1) async throws -> ActionOutcome {
        .boughtOutside(try await purchaseOutsideApp(productID, quantity: quantity), product: try await store.productName(productID))
    }

    /// ``consentToPriceIncrease(_:)``, reported: the new price per period, in the storefront's currency,
    /// from the renewal that takes it.
    public func consentToPriceIncreaseReporting(_ productID: String) async throws -> (PriceIncrease, ActionOutcome) {
        let increase = try await consentToPriceIncrease(productID)
        let period = catalog.product(id: productID)?.subscription?.period
        return (increase, increase.answers(product: try await store.productName(productID), period: period).agree)
    }

    /// ``declinePriceIncrease(_:)``, reported (the consent sheet's ``PriceIncreaseAnswers/cancel``).
    public func declinePriceIncreaseReporting(_ productID: String) async throws -> ActionOutcome {
        try await declinePriceIncrease(productID)
        return .priceIncreaseDeclined(product: try await store.productName(productID))
    }

    /// ``expireSubscription(groupID:)``, reported.
    public func expireSubscriptionReporting(groupID: String) async throws -> ActionOutcome {
        try await expireSubscription(groupID: groupID)
        return .expired(product: try await store.productName(try await store.latestSubscriptionTransaction(groupID).productID))
    }

    /// ``renewSubscription(groupID:)``, reported: the renewal's transaction.
    public func renewSubscriptionReporting(groupID: String) async throws -> ActionOutcome {
        try await renewSubscription(groupID: groupID)
        let renewal = try await store.latestSubscriptionTransaction(groupID)
        return .renewed(renewal, product: try await store.productName(renewal.productID))
    }

    /// ``setAutoRenew(groupID:_:)``, reported: when the subscription then renews or ends.
    public func setAutoRenewReporting(groupID: String, _ on: Bool) async throws -> ActionOutcome {
        try await setAutoRenew(groupID: groupID, on)
        let latest = try await store.latestSubscriptionTransaction(groupID)
        return .autoRenewSet(on: on, product: try await store.productName(latest.productID), date: latest.expirationDate)
    }

    /// The product a request's outcome is for: the plan it changes to, for a scheduled change.
    private static func productID(of outcome: PurchaseOutcome) -> String {
        switch outcome {
        case .changeScheduled(let change): change.toProductID
        case .pending(let request): request.productID
        default: outcome.transaction?.productID ?? ""
        }
    }
}

extension AppFace {
    /// ``buy(_:quantity:appAccountToken:offerID:offerSignature:winBackOfferID:billingPlanType:choice:)``, reported:
    /// the purchase and its one sentence (a pending request's next step names this store).
    public func buyReporting(_ productID: String, quantity: Int = 1, appAccountToken: UUID? = nil,
                             offerID: String? = nil, offerSignature: PromotionalOfferSignature? = nil,
                             winBackOfferID: String? = nil, billingPlanType: BillingPlanType? = nil,
                             choice: PurchaseChoice? = nil) async throws -> ActionOutcome {
        let purchase = try await buy(productID, quantity: quantity, appAccountToken: appAccountToken, offerID: offerID,
                                     offerSignature: offerSignature, winBackOfferID: winBackOfferID,
                                     billingPlanType: billingPlanType, choice: choice)
        // A scheduled change is named by the plan it changes to, as the request it may have been.
        let named = if case .changeScheduled(let change) = purchase.outcome { change.toProductID } else { productID }
        return .bought(purchase, product: try await store.productName(named), quantity: quantity, store: store.path)
    }

    /// ``consume(_:quantity:)``, reported: the balance left.
    public func consumeReporting(_ productID: String, quantity: Int = 1) async throws -> ActionOutcome {
        let balance = try await consume(productID, quantity: quantity)
        return .consumed(product: try await store.productName(productID), quantity: quantity, balance: balance)
    }

    /// ``beginRefundRequest(transactionID:reason:outcome:)``, reported.
    public func beginRefundRequestReporting(transactionID: Int64, reason: RefundRequestReason = .other) async throws
        -> (RefundRequest, ActionOutcome) {
        let request = try await beginRefundRequest(transactionID: transactionID, reason: reason)
        let name = try await store.productName(try await transaction(id: transactionID).productID)
        return (request, .refundRequested(request, product: name))
    }
}

extension TestSessionFace {
    /// ``reset(_:)``, reported.
    public func resetReporting(_ scope: ResetScope) async throws -> ActionOutcome {
        try await reset(scope)
        return .reset(scope, account: store.account, store: store.path)
    }
}
