import Foundation

// What a front end shows about one transaction, decided here once: its state at the store's
// time, its price in its own currency, whether it was a free trial, and what the App Store
// allows on it (with the reason when it refuses). The Transaction Manager, `transactions`,
// StorefrontKit and scenarios translate these; none of them decides them.

/// A transaction's state at the store's time, as the Transaction Manager names it.
public enum TransactionState: Sendable, Hashable {
    case purchased
    /// Purchased, and the app has not delivered it and called `finish()` yet.
    case unfinished
    /// Waiting for a parent (Ask to Buy) or the user (an interrupted purchase).
    case pending(Transaction.PendingReason)
    /// A parent declined the Ask to Buy request: nothing was charged.
    case declined
    /// The App Store refunded it (`revocationDate`, `revocationReason`).
    case refunded(Transaction.RevocationReason?)
    /// A family member's share, taken away (the purchaser's refund, or leaving the family).
    case revoked(Transaction.RevocationReason?)
    /// A subscription period that ended by the store's time.
    case expired
    /// A subscription period that ended by the store's time, whose renewal failed to bill and whose
    /// billing grace period keeps the entitlement: `status`, `products` and the paywall's row say so too.
    case inGracePeriod
    /// A subscription period a higher plan replaced.
    case upgraded
    /// Its signature and the stored record disagree: not to be trusted.
    case unverified(reason: String)

    /// The state of `transaction` at the store's time `now`. The first that applies, in this order:
    /// refunded (revoked), expired (in grace period), unverified, pending, declined, upgraded, unfinished,
    /// purchased. `subscription`: the status of its subscription group, which says whether the
    /// subscription is in its billing grace period (the Transaction Manager said "expired" while every
    /// other front end said "Grace period until …").
    public init(of transaction: Transaction, at now: Date, subscription: SubscriptionStatus? = nil) {
        if transaction.revocationDate != nil {
            self = transaction.ownershipType == .familyShared ? .revoked(transaction.revocationReason)
                : .refunded(transaction.revocationReason)
        } else if transaction.status == .purchased, !transaction.isUpgraded, transaction.productType == .autoRenewable,
                  let end = transaction.expirationDate, end <= now {
            self = subscription?.state == .inGracePeriod && subscription?.transaction.id == transaction.id ? .inGracePeriod : .expired
        } else if case .unverified(let reason) = transaction.verification {
            self = .unverified(reason: reason)
        } else {
            switch transaction.status {
            case .pending: self = .pending(transaction.pendingReason ?? .askToBuy)
            case .declined: self = .declined
            case .purchased: self = transaction.isUpgraded ? .upgraded : transaction.isFinished ? .purchased : .unfinished
            }
        }
    }

    /// The state in words with the refund request the app made for the transaction, while it
    /// stands: "refund requested", "refund declined" in place of "purchased" (the Transaction
    /// Manager and `transactions` alike).
    public func text(refundRequest: RefundRequest.Status?) -> String {
        guard self == .purchased || self == .unfinished, let mark = refundRequest?.mark else { return text }
        return mark.lowercased()
    }

    /// How it was taken back, with Apple's reason, for a line about it: "refunded (developerIssue)",
    /// a family member's share "revoked (family share, developerIssue)"; nil when it stands.
    public var revocationText: String? {
        switch self {
        case .refunded(let reason): "refunded" + (reason.map { " (\($0.rawValue))" } ?? "")
        case .revoked(let reason): "revoked (family share" + (reason.map { ", \($0.rawValue))" } ?? ")")
        default: nil
        }
    }

    /// The state in words, the same on every front end: "purchased", "pending (Ask to Buy)",
    /// "refunded", "revoked (family share)", "purchased, unfinished", …
    public var text: String {
        switch self {
        case .purchased: "purchased"
        case .unfinished: "purchased, unfinished"
        case .pending(.askToBuy): "pending (Ask to Buy)"
        case .pending(.interrupted): "pending (interrupted)"
        case .declined: "declined"
        case .refunded: "refunded"
        case .revoked: "revoked (family share)"
        case .expired: "expired"
        case .inGracePeriod: "expired, in grace period"
        case .upgraded: "upgraded"
        case .unverified: "unverified"
        }
    }
}

/// Something a tester (or the App Store) may do to a transaction.
public enum TransactionAction: String, Sendable, Hashable, CaseIterable {
    /// The App Store refunds it (App Store Connect, the Transaction Manager's f).
    case refund
    /// The app asks for a refund (`Transaction.beginRefundRequest`).
    case requestRefund
    /// A parent approves or declines an Ask to Buy request.
    case approve, decline
    /// The user completes an interrupted purchase.
    case resolve
    /// The server extends the subscription's renewal date (Extend a Subscription Renewal Date).
    case extendRenewalDate
    /// The subscription controls: end it now, renew it now, turn auto-renew on or off.
    case expireSubscription, renewSubscription, setAutoRenew
    /// Take it out of the account's history (the Transaction Manager's Delete).
    case delete
}

/// Whether the App Store allows an action on a transaction, and why not when it does not.
public struct ActionAllowance: Sendable, Hashable {
    public var action: TransactionAction
    /// Why the App Store refuses it; nil when it is allowed.
    public var refusal: String?
    public var isAllowed: Bool { refusal == nil }

    public init(_ action: TransactionAction, refusal: String? = nil) { (self.action, self.refusal) = (action, refusal) }
}

/// Everything a front end shows about one transaction, decided by the engine.
public struct TransactionFacts: Sendable, Hashable {
    public var transactionID: Int64
    /// Its state at the store's time.
    public var state: TransactionState
    /// What was charged, in its own currency as its storefront writes it ("0,99 €").
    public var displayPrice: String
    /// Whether this period was a free trial: any offer paid as `freeTrial` (introductory, promotional, code, win-back).
    public var wasFreeTrial: Bool
    /// Every ``TransactionAction``, in `allCases` order, allowed or refused with the reason.
    public var actions: [ActionAllowance]

    /// The facts of `transaction` at the store's time `now`. `subscription`: the status of its
    /// subscription group (the one whose renewal date an extension moves); nil for other products.
    public init(_ transaction: Transaction, at now: Date, subscription: SubscriptionStatus? = nil) {
        transactionID = transaction.id
        state = TransactionState(of: transaction, at: now, subscription: subscription)
        displayPrice = transaction.displayPrice
        wasFreeTrial = Self.isFreeTrial(transaction)
        actions = TransactionAction.allCases.map {
            ActionAllowance($0, refusal: Self.refusal($0, transaction, at: now, subscription: subscription))
        }
    }

    /// The one test of "was it a free trial": the offer's payment mode, whatever kind of offer it was.
    public static func isFreeTrial(_ transaction: Transaction) -> Bool { transaction.offerPaymentMode == .freeTrial }

    /// Whether `action` is allowed.
    public func allows(_ action: TransactionAction) -> Bool { refusal(of: action) == nil }

    /// Why `action` is refused; nil when it is allowed.
    public func refusal(of action: TransactionAction) -> String? { actions.first { $0.action == action }?.refusal }

    /// The actions allowed, in `allCases` order.
    public var allowed: [TransactionAction] { actions.filter(\.isAllowed).map(\.action) }

    /// The App Store's rule for each action (the engine enforces the same when the action is made).
    static func refusal(_ action: TransactionAction, _ transaction: Transaction, at now: Date,
                        subscription: SubscriptionStatus?) -> String? {
        let isSubscription = transaction.productType == .autoRenewable && transaction.subscriptionGroupID != nil
        switch action {
        case .refund, .requestRefund:
            if transaction.status != .purchased { return "it is \(TransactionState(of: transaction, at: now).text), not purchased" }
            if transaction.revocationDate != nil { return "it is refunded already" }
            if transaction.ownershipType == .familyShared {
                return action == .refund ? "it is shared by family: refund the purchaser's transaction"
                    : "it is shared by family: only the purchaser can ask for a refund"
            }
            return nil
        case .approve, .decline:
            guard transaction.status == .pending, transaction.pendingReason == .askToBuy else {
                return "it is not waiting for Ask to Buy"
            }
            return nil
        case .resolve:
            guard transaction.status == .pending, transaction.pendingReason == .interrupted else {
                return "it is not an interrupted purchase"
            }
            return nil
        case .extendRenewalDate:
            guard isSubscription else { return "it is not an auto-renewable subscription" }
            guard transaction.status == .purchased, transaction.revocationDate == nil else { return "it is not active" }
            if let subscription {
                guard subscription.transaction.originalID == transaction.originalID else {
                    return "it is not the group's current subscription"
                }
                if subscription.state == .inBillingRetryPeriod || subscription.state == .inGracePeriod {
                    return "the subscription is in billing retry"
                }
            }
            guard let end = transaction.expirationDate, end > now, !transaction.isUpgraded else { return "its period has ended" }
            return nil
        case .expireSubscription, .renewSubscription, .setAutoRenew:
            return isSubscription ? nil : "it is not an auto-renewable subscription"
        case .delete:
            return nil
        }
    }
}

extension AppStoreFace {
    /// The facts of one transaction of this account at the store's time.
    public func facts(of transaction: Transaction) async throws -> TransactionFacts {
        try await facts(of: [transaction])[0]
    }

    /// The facts of each transaction, in order, at the store's time (read once for all).
    public func facts(of transactions: [Transaction]) async throws -> [TransactionFacts] {
        try await store.transactionFacts(transactions)
    }
}

extension Store {
    /// The facts of `transactions` at the store's time now, against the groups' statuses (unsigned: not shown).
    /// A transaction read before due renewals were made keeps its old copy; the statuses are current.
    func transactionFacts(_ transactions: [Transaction]) throws -> [TransactionFacts] {
        // Renewals and billing steps due come first, as for every status read.
        try processRenewals()
        let now = try currentTime()
        let statuses = try statuses(at: now, signed: false)
        return transactions.map { transaction in
            let status = transaction.subscriptionGroupID.flatMap { group in statuses.first { $0.groupID == group } }
            return TransactionFacts(transaction, at: now, subscription: status)
        }
    }
}

extension RefundRequest.Status {
    /// What a product's status and a transaction's state say while the request stands:
    /// "Refund requested", "Refund declined"; nil once approved (the transaction is refunded).
    public var mark: String? {
        switch self {
        case .pending: "Refund requested"
        case .declined: "Refund declined"
        case .approved: nil
        }
    }
}
