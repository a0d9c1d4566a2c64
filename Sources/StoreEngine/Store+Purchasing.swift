import Foundation

/// Buying: the rules a purchase follows, decided once for every face.
extension Store {
    // MARK: - Purchasing

    /// Buys a product, as `Product.purchase(options:)`.
    ///
    /// Returns only after the transaction is durably committed. A non-consumable
    /// the account owns, or a subscription it is already subscribed to, is not
    /// charged again: the existing transaction comes back and the event log says `restored`.
    /// The caller delivers the content and calls ``finish(_:)``. The settings
    /// (Ask to Buy, interrupted purchases, simulated errors, offline, latency) apply;
    /// `choice` replaces the purchase conditions (Ask to Buy, interrupted, purchaseError)
    /// for this one purchase, while the device's (canMakePayments, offline, latency) still apply.
    func purchase(_ productID: String, quantity: Int = 1, appAccountToken: UUID? = nil,
                  offerID: String? = nil, offerSignature: PromotionalOfferSignature? = nil, winBackOfferID: String? = nil,
                  choice: PurchaseChoice? = nil) async throws -> PurchaseOutcome {
        try await makePurchase(productID, quantity: quantity, appAccountToken: appAccountToken, offerID: offerID,
                               offerSignature: offerSignature, winBackOfferID: winBackOfferID, choice: choice)
    }

    /// What an app does on a Buy tap: purchase, then deliver and ``finish(_:)`` a
    /// new, verified transaction. The outcome says whether it was charged, owned already,
    /// pending or a change scheduled for the renewal (nothing new to deliver then).
    /// Throws ``StoreError/failedVerification(_:transactionID:)`` when the transaction
    /// arrives unverified; it is then left unfinished, as an app that checks verification leaves it.
    func purchaseAndFinish(_ productID: String, quantity: Int = 1, appAccountToken: UUID? = nil,
                           offerID: String? = nil, offerSignature: PromotionalOfferSignature? = nil,
                           winBackOfferID: String? = nil, choice: PurchaseChoice? = nil) async throws -> AppPurchase {
        // Delivered and finished in the purchase's own write: one sync to disk, not two. The purchase
        // stands if delivering fails (the finish is a savepoint of its own, rolled back alone).
        var delivered: Result<Transaction, Undelivered>?
        let outcome = try await makePurchase(productID, quantity: quantity, appAccountToken: appAccountToken,
                                             offerID: offerID, offerSignature: offerSignature, winBackOfferID: winBackOfferID,
                                             choice: choice) { [self] made in
            guard case .purchased(let transaction, _) = made, transaction.simulatedVerificationError == nil else { return }
            do {
                guard try value(.finishTransactions) else { return }
                try finish(transaction)
                delivered = .success(try ledger.transaction(id: transaction.id) ?? transaction)
            } catch {
                delivered = .failure(Undelivered(warning: Self.undelivered(transaction, error)))
            }
        }
        switch outcome {
        case .pending, .userCancelled:
            return AppPurchase(outcome: outcome, isFinished: false)
        case .changeScheduled(let change):
            return AppPurchase(outcome: outcome, isFinished: change.current.isFinished)
        case .alreadyOwned(let transaction):
            // Handed back: the app records it as owned again.
            do {
                try finish(transaction)
            } catch {
                return AppPurchase(outcome: outcome, isFinished: transaction.isFinished, warning: Self.undelivered(transaction, error))
            }
            return AppPurchase(outcome: outcome, isFinished: true)
        case .purchased(let transaction, let change):
            if let error = transaction.simulatedVerificationError {
                throw StoreError.failedVerification(error, transactionID: transaction.id)
            }
            // Committed: the purchase is made, whatever failed after it. Its result is the commit's
            // result; a failure to deliver left it unfinished, delivered at the next launch.
            switch delivered {
            case .success(let transaction)?:
                return AppPurchase(outcome: .purchased(transaction, change: change), isFinished: true)
            case .failure(let undelivered)?:
                return AppPurchase(outcome: outcome, isFinished: false, warning: undelivered.warning)
            case nil:
                return AppPurchase(outcome: outcome, isFinished: false)  // finishTransactions is false
            }
        }
    }

    /// A purchase made, and why it could not be delivered and finished.
    struct Undelivered: Error {
        var warning: String
    }

    /// The warning for a purchase made but not delivered.
    static func undelivered(_ transaction: Transaction, _ error: any Error) -> String {
        "transaction \(transaction.id) was purchased, but the app could not deliver and finish it (\(error)); it stays unfinished and is delivered at the next launch — do not buy again"
    }

    /// Records a purchase made outside the app (on another device, or a promoted
    /// purchase): the App Store has it, the app gets it as an update, unfinished.
    /// The purchase conditions of this device (Ask to Buy, errors, offline) do not apply;
    /// what the account owns already is handed back, not charged (``PurchaseOutcome/alreadyOwned(_:)``).
    /// The purchase's own options apply as in the app (quantity, `appAccountToken`, an offer and its
    /// signature); `choice` `.askToBuy` makes it wait for a parent as a child's would.
    func purchaseOutsideApp(_ productID: String, quantity: Int = 1, appAccountToken: UUID? = nil,
                            offerID: String? = nil, offerSignature: PromotionalOfferSignature? = nil,
                            winBackOfferID: String? = nil, choice: PurchaseChoice = .succeed) async throws -> PurchaseOutcome {
        try await makePurchase(productID, quantity: quantity, appAccountToken: appAccountToken, offerID: offerID,
                               offerSignature: offerSignature, winBackOfferID: winBackOfferID, choice: choice, outside: true)
    }

    /// `finishing` runs inside the purchase's write transaction once a purchase succeeded, before it commits.
    func makePurchase(_ productID: String, quantity: Int, appAccountToken: UUID?, offerID promotionalOfferID: String?,
                      offerSignature: PromotionalOfferSignature? = nil, winBackOfferID: String? = nil,
                      choice chosen: PurchaseChoice?, outside: Bool = false,
                      finishing: (PurchaseOutcome) -> Void = { _ in }) async throws -> PurchaseOutcome {
        // The offer the transaction records: a promotional offer, or a win-back offer (which needs no signature).
        let offerID = promotionalOfferID ?? winBackOfferID
        if !outside { try await simulateLatency() }
        // This account's renewals only: another's long catch-up must not hold up a purchase.
        try processRenewals(onlyAccount: account)
        let date = try currentTime()
        let outcome: Result<PurchaseOutcome, StoreError> = try ledger.write {
            try ledger.ensureAccount(account, at: date)
            try ledger.log(.purchasing, account: account, productID: productID, at: date)
            // The promotional offer's nonce, used up only by a purchase that goes ahead (not by a refusal).
            var offerNonce: String?
            func useNonce() throws {
                if let offerNonce { _ = try ledger.useOfferNonce(offerNonce, account: account, at: date) }
            }
            // A failure is logged and committed with the log, then thrown after the write transaction.
            func fail(_ error: StoreError) throws -> Result<PurchaseOutcome, StoreError> {
                try ledger.log(.failed, account: account, productID: productID, detail: Self.logDetail(error), at: date)
                return .failure(error)
            }
            guard let item = catalog.product(id: productID) else { return try fail(.productUnavailable(productID: productID)) }
            let storefront = try storefront()
            guard item.isAvailable(in: storefront.countryCode) else {
                return try fail(.notAvailableInStorefront(productID: productID, storefront: storefront.countryCode))
            }
            guard FaceValidation.isValidQuantity(quantity, of: item.type) else { return try fail(.invalidQuantity(quantity)) }
            if let refusal = billingPlanRefusal(item) { return try fail(refusal) }
            // The rule order is PurchaseConditions': the device first, then the offer, then the App Store's answer.
            let conditions = try purchaseConditions()
            switch conditions.deviceRefusal(outside: outside) {
            case .notAllowed?: return try fail(.purchaseNotAllowed)
            case .fails(let error)?: return try fail(.simulated(error, cause: "offline is true"))
            default: break
            }
            if let refusal = try offerRefusal(item, promotionalOfferID: promotionalOfferID, signature: offerSignature,
                                              winBackOfferID: winBackOfferID, appAccountToken: appAccountToken,
                                              at: date, nonce: &offerNonce) {
                return try fail(refusal)
            }

            var outcome = conditions.storeAnswer(choice: chosen)
            var cause = "chosen for this purchase"
            if chosen == nil, case .fail = outcome {
                // Taken, so that a `--once` error fails this purchase only (another process may have taken it).
                if let error = try takeSimulatedError(.purchaseError) {
                    (outcome, cause) = (.fail(error.error), error.cause)
                } else {
                    var taken = conditions
                    taken.purchaseError = nil
                    outcome = taken.storeAnswer(choice: nil)
                }
            }
            switch outcome {
            case .cancel, .fail(.userCancelled):
                try ledger.log(.failed, account: account, productID: productID,
                               detail: "userCancelled (SKError code 2)", at: date)
                return .success(.userCancelled)
            case .fail(let error):
                return try fail(.simulated(error, cause: cause))
            case .askToBuy:
                try useNonce()
                return .success(try commitPurchase(item, quantity: quantity, appAccountToken: appAccountToken,
                                                   offerID: offerID, pending: .askToBuy, at: date))
            case .interrupt:
                try useNonce()
                return .success(try commitPurchase(item, quantity: quantity, appAccountToken: appAccountToken,
                                                   offerID: offerID, pending: .interrupted, at: date))
            case .succeed:
                try useNonce()
                let made = try commitPurchase(item, quantity: quantity, appAccountToken: appAccountToken,
                                              offerID: offerID, pending: nil, outside: outside, at: date)
                finishing(made)
                return .success(made)
            }
        }
        return try outcome.get()
    }

    /// The App Store's check of a purchase's offer, once the device let it through: a win-back offer
    /// the account may take, or a promotional offer of the product, signed well, for a current or
    /// lapsed subscriber of its group. Nil when it passes; `nonce` is then the signature's, to use up.
    /// The purchase and its preview (``promotionalOfferRefusal(productID:offerID:flaw:at:)``) both ask this.
    /// `usedNonce`: a nonce to take as used already (the preview's, which writes nothing).
    func offerRefusal(_ item: CatalogProduct, promotionalOfferID: String?, signature: PromotionalOfferSignature?,
                      winBackOfferID: String?, appAccountToken: UUID?, at date: Date, nonce: inout String?,
                      usedNonce: String? = nil) throws -> StoreError? {
        if let winBackOfferID {
            guard promotionalOfferID == nil else {
                return .purchaseError(.invalidOfferIdentifier, reason: "a purchase takes one offer: promotional or win-back")
            }
            return try winBackFault(item, offerID: winBackOfferID, at: date)
        }
        guard let offerID = promotionalOfferID else { return nil }
        guard let terms = item.subscription, terms.offers.contains(where: { $0.kind == .promotional && $0.id == offerID }) else {
            return .purchaseError(.invalidOfferIdentifier, reason: "\(item.id) has no promotional offer \"\(offerID)\"")
        }
        // Apple requires the developer's signature for every promotional offer.
        guard let signature else {
            return .purchaseError(.missingOfferParameters,
                                  reason: "a promotional offer needs its signature (storefront offer sign \(item.id) \(offerID))")
        }
        if let fault = try offerSignatureFault(signature, productID: item.id, offerID: offerID, appAccountToken: appAccountToken,
                                               at: date, nonce: &nonce, usedNonce: usedNonce) {
            return .purchaseError(.invalidOfferSignature, reason: fault)
        }
        // Promotional offers are for people who subscribe, or once subscribed, in the group.
        guard try !isEligibleForIntroOffer(groupID: terms.groupID) else {
            return .purchaseError(.ineligibleForOffer, reason: "promotional offers are for current and lapsed subscribers of the group")
        }
        return nil
    }

    /// The event log's words for a failure: the error's name and its StoreKit 1 code (and
    /// StoreKit 1's name where it differs: `purchaseNotAllowed (SKError.paymentNotAllowed, code 4)`).
    static func logDetail(_ error: StoreError) -> String {
        guard let code = error.skErrorCode else { return error.name }
        if let old = error.storeKit1Name { return "\(error.name) (SKError.\(old), code \(code))" }
        return "\(error.name) (SKError code \(code))"
    }

    /// The purchase itself, inside the write transaction.
    func commitPurchase(_ item: CatalogProduct, quantity: Int, appAccountToken: UUID?, offerID: String?,
                        pending: Transaction.PendingReason?, outside: Bool = false,
                        at date: Date) throws -> PurchaseOutcome {
        // A consumable's history changes nothing, and each row read is a signature check.
        let history = item.type == .consumable ? [] : try ledger.transactions(account: account, productID: item.id)
        // Only a subscription can be in its billing grace period.
        let inGrace = item.type == .autoRenewable ? try transactionsInGrace(at: date) : []
        let active = history.first { $0.isActive(at: date) } ?? inGrace.first { $0.productID == item.id }
        if let active, item.type == .nonConsumable || item.type == .autoRenewable {
            if let terms = item.subscription,
               var record = try ledger.subscriptionStates(account: account).first(where: { $0.groupID == terms.groupID }) {
                let (wasRenewing, waitingChange) = (record.willAutoRenew, record.autoRenewProductID != item.id)
                if !record.willAutoRenew || record.autoRenewProductID != item.id {
                    // Subscribing again to the current product turns auto-renew back on and cancels a waiting change.
                    (record.willAutoRenew, record.autoRenewProductID, record.expirationReason) = (true, item.id, nil)
                }
                if let offerID, pending == nil {
                    // A promotional offer for the plan the account is on starts at the next renewal.
                    record.renewalOfferID = offerID
                    try ledger.saveSubscription(record, account: account)
                    let change = SubscriptionChange(kind: .promotionalOffer, fromProductID: item.id, toProductID: item.id,
                                                    effectiveDate: active.expirationDate, current: active,
                                                    isScheduled: true, offerID: offerID)
                    try ledger.log(.purchased, account: account, productID: item.id, transactionID: active.id,
                                   detail: change.summary, at: date)
                    // Apple: an offer redeemed for the active subscription is OFFER_REDEEMED without a subtype.
                    try notify(.offerRedeemed, transaction: active, record: record, account: account, at: date)
                    return .changeScheduled(change)
                }
                try ledger.saveSubscription(record, account: account)
                if !wasRenewing {
                    try notify(.didChangeRenewalStatus, .autoRenewEnabled, transaction: active, record: record,
                               account: account, at: date)
                }
                if waitingChange {
                    // The downgrade cancelled: Apple's DID_CHANGE_RENEWAL_PREF without a subtype.
                    try notify(.didChangeRenewalPref, transaction: active, record: record, account: account, at: date)
                }
            }
            // Already owned: StoreKit hands back the existing transaction for free.
            try ledger.recordOwned(account: account, productID: item.id, transactionID: active.id)
            try ledger.log(.restored, account: account, productID: item.id, transactionID: active.id,
                           detail: item.type == .nonConsumable ? "already purchased" : "already subscribed", at: date)
            return .alreadyOwned(active)
        }

        if let pending {
            // Nothing is charged or granted yet: the record waits for approval or an action.
            var draft = try draftTransaction(item, quantity: quantity, appAccountToken: appAccountToken, at: date)
            // The offer chosen is kept for the approval; what it grants is decided then.
            (draft.status, draft.pendingReason, draft.expirationDate, draft.offerType) = (.pending, pending, nil, nil)
            draft.offerID = offerID
            let stored = try ledger.insert(draft)
            switch pending {
            case .askToBuy:
                try ledger.log(.deferred, account: account, productID: item.id, transactionID: stored.id,
                               detail: "Ask to Buy: waiting for a parent to approve or decline", at: date)
            case .interrupted:
                try ledger.log(.failed, account: account, productID: item.id, transactionID: stored.id,
                               detail: "interrupted: the user must act (resolve) before it completes", at: date)
            }
            return .pending(PendingRequest(stored))
        }

        var stored: Transaction, change: SubscriptionChange?
        switch try complete(item, quantity: quantity, appAccountToken: appAccountToken, offerID: offerID, at: date) {
        case .scheduled(let scheduled): return .changeScheduled(scheduled)
        case .added(let transaction, let immediate): (stored, change) = (transaction, immediate)
        }
        var detail = [outside ? "purchased outside the app" : nil, change?.summary].compactMap { $0 }.joined(separator: "; ")
        if !outside, let error = try takeSimulatedError(.verificationError)?.error {
            stored.markUnverified(by: error)
            detail = "reached the app unverified: \(error.rawValue) (simulated)"
        }
        try ledger.log(.purchased, account: account, productID: item.id, transactionID: stored.id, detail: detail, at: date)
        return .purchased(stored, change: change)
    }

    /// What completing a purchase did: a transaction added (perhaps replacing the group's
    /// plan at once), or a change of plan scheduled for the renewal (no transaction).
    enum Completion {
        case added(Transaction, change: SubscriptionChange?)
        case scheduled(SubscriptionChange)
    }

    /// Completes a purchase at `date` (a new one, or an approved or resolved pending one):
    /// adds or finalizes its transaction, and for a subscription applies the group's rules.
    /// Within a group (level 1 the highest) an upgrade takes effect at once and the old
    /// transaction is marked upgraded; a downgrade, or a crossgrade to another period,
    /// waits for the next renewal and adds no transaction (`current` is the subscription kept).
    func complete(_ item: CatalogProduct, quantity: Int, appAccountToken: UUID?, offerID: String?,
                  replacing pending: Transaction? = nil, at date: Date) throws -> Completion {
        if let pending, item.type == .nonConsumable,
           try ledger.transactions(account: account, productID: item.id).contains(where: { $0.isActive(at: date) }) {
            // A second request for something the account got meanwhile: charging again would be wrong.
            throw StoreError.invalidTransactionState(id: pending.id, action: "complete",
                                                     state: "a request for \(item.id), which the account owns already; decline it")
        }
        var draft = try draftTransaction(item, quantity: quantity, appAccountToken: appAccountToken, offerID: offerID, at: date)
        guard let terms = item.subscription else {
            let stored = try store(draft, replacing: pending)
            try shareWithFamily(stored, at: date)
            try notify(.oneTimeCharge, transaction: stored, account: account, at: date)
            return .added(stored, change: nil)
        }
        var record = try ledger.subscriptionStates(account: account).first { $0.groupID == terms.groupID }
        var change: SubscriptionChange?
        let inGrace = Set(try transactionsInGrace(at: date).map(\.id))
        if let existing = record, let current = try ledger.latestTransaction(originalID: existing.originalID),
           current.revocationDate == nil, current.isActive(at: date) || inGrace.contains(current.id),
           let currentTerms = catalog.product(id: current.productID)?.subscription {
            let (kind, immediate) = SubscriptionChange.Kind.between(currentTerms, terms)
            if !immediate {
                // Downgrade, or crossgrade to another period: from the next renewal on. An offer redeemed for
                // that plan (a code, a promotional offer) goes with it: the renewal into the plan takes the offer
                // (Apple: OFFER_REDEEMED DOWNGRADE, "goes into effect at the next renewal date").
                record?.autoRenewProductID = item.id
                record?.willAutoRenew = true
                record?.renewalOfferID = offerID
                try ledger.saveSubscription(record!, account: account)
                if let pending { try ledger.delete(transactionID: pending.id) }
                let scheduled = SubscriptionChange(kind: kind, fromProductID: current.productID, toProductID: item.id,
                                                   effectiveDate: current.expirationDate, current: current, isScheduled: true,
                                                   offerID: offerID)
                try ledger.log(.purchased, account: account, productID: item.id, transactionID: current.id,
                               detail: scheduled.summary, at: date)
                try notify(offerID == nil ? .didChangeRenewalPref : .offerRedeemed, .downgrade, transaction: current,
                           record: record, account: account, at: date)
                return .scheduled(scheduled)
            }
            try ledger.markUpgraded(current.id)
            try mirrorToFamily(current.id)
            change = SubscriptionChange(kind: kind, fromProductID: current.productID, toProductID: item.id,
                                        effectiveDate: date, current: current, isScheduled: false)
        }
        if let existing = record {
            // Upgrades and resubscriptions keep the subscription's original transaction.
            draft.originalID = existing.originalID
            draft.originalPurchaseDate = try ledger.transaction(id: existing.originalID)?.originalPurchaseDate ?? date
        }
        let subscribedBefore = record != nil
        let newestBefore = try record.flatMap { try ledger.latestTransaction(originalID: $0.originalID)?.id }
        let stored = try store(draft, replacing: pending, after: newestBefore)
        try shareWithFamily(stored, at: date)
        record = SubscriptionRecord(groupID: terms.groupID, originalID: stored.originalID, willAutoRenew: true,
                                    autoRenewProductID: item.id, expirationReason: nil, billingRetrySince: nil, graceUntil: nil)
        try ledger.saveSubscription(record!, account: account)
        // Apple's (type, subtype): a promotional offer is OFFER_REDEEMED; an upgrade or a crossgrade
        // at once DID_CHANGE_RENEWAL_PREF UPGRADE; else SUBSCRIBED, the first time INITIAL_BUY.
        let subtype: NotificationSubtype = change != nil ? .upgrade : subscribedBefore ? .resubscribe : .initialBuy
        let type: NotificationType = [.promotional, .code, .winBack].contains(stored.offerType) ? .offerRedeemed
            : change != nil ? .didChangeRenewalPref : .subscribed
        try notify(type, subtype, transaction: stored, record: record, account: account, at: date)
        return .added(stored, change: change)
    }

    /// Inserts a new transaction, or turns a pending one into it (same id).
    /// `after`: the id of the newest transaction of the subscription the purchase joins (an upgrade,
    /// a resubscription), whose newest is the one of the highest id. A request older than it takes a
    /// new id when completed: keeping its own, a monthly bought after the request stayed the
    /// subscription's newest (its status, the paywall's ✓) while `currentEntitlements` had the plan
    /// completed (the parity walk, issue 40). As on Apple's App Store, the request is not the
    /// transaction: that arrives when completed.
    func store(_ draft: Transaction, replacing pending: Transaction?, after newest: Int64? = nil) throws -> Transaction {
        guard let pending else { return try ledger.insert(draft) }
        if let newest, newest > pending.id {
            try ledger.delete(transactionID: pending.id)
            return try ledger.insert(draft)
        }
        var transaction = draft
        transaction.id = pending.id
        if transaction.originalID == 0 { transaction.originalID = pending.originalID }
        return try ledger.update(transaction)
    }

    /// A new transaction for `item` bought at `date`, priced in the current storefront:
    /// a subscription gets its introductory offer when eligible, or the promotional offer `offerID`.
    func draftTransaction(_ item: CatalogProduct, quantity: Int, appAccountToken: UUID?, offerID: String? = nil,
                                  at date: Date) throws -> Transaction {
        let storefront = try storefront()
        // The price, with any price change, without its display text (whose currency formatting is costly).
        let price = try withChangedPrice(item, in: storefront).price(in: storefront)
        var transaction = Transaction(
            id: 0, originalID: 0, productID: item.id, productType: item.type,
            purchaseDate: date, originalPurchaseDate: date, expirationDate: nil,
            revocationDate: nil, revocationReason: nil, isUpgraded: false, ownershipType: .purchased,
            purchasedQuantity: quantity, appAccountToken: appAccountToken, environment: .xcode,
            storefront: storefront.countryCode, currency: storefront.currency,
            price: price * Decimal(quantity), reason: .purchase,
            subscriptionGroupID: item.subscription?.groupID, offerType: nil,
            account: account, status: .purchased, isFinished: false)

        switch item.type {
        case .consumable, .nonConsumable, .nonRenewable:
            // No expiresDate on a non-renewing subscription: Apple sets it on auto-renewable
            // subscriptions only. The app works out from the purchase date how long its access lasts.
            // An offer code of a one-time product: its price, signed ONE_TIME.
            if let offerID, let offer = item.offerCodes.first(where: { $0.codeOfferID == offerID }) {
                (transaction.offerType, transaction.offerID) = (.code, offerID)
                transaction.price = (offer.price ?? 0) * Decimal(quantity)
            }
        case .autoRenewable:
            let terms = item.subscription!
            transaction.expirationDate = terms.period.after(date)
            let offerType: Transaction.OfferType? = offerID != nil ? offerKind(item, id: offerID!)
                : try Self.introductoryOfferEligibility ?? isEligibleForIntroOffer(groupID: terms.groupID) ? .introductory : nil
            let monthly = Self.billingPlanType == .monthly && terms.monthlyPlan != nil
            if let offerType, let offer = offerTerms(item, type: offerType, id: offerID, monthly: monthly) {
                (transaction.offerType, transaction.offerID, transaction.price) = (offerType, offerID, offer.price)
                transaction.applyOffer(mode: offer.mode, period: offer.period, count: offer.count)
                // Pay up front covers the whole offer; the other modes one period at a time.
                transaction.expirationDate = offer.period.after(date)
            }
            startCommitment(&transaction, item, in: storefront, at: date)
        }
        return transaction
    }
}
