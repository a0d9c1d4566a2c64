import Foundation

/// What an action outside the app did, decided in the engine with its one wording: the CLI prints
/// ``sentence`` (and carries ``name`` and it in `--json`), the paywall shows it on its status line,
/// and scenarios (which run the CLI's commands) see the same words. Made by the faces'
/// `…Reporting` calls, which take the action and name its product.
public enum ActionOutcome: Sendable, Hashable {
    /// The app bought it (`buy`, the paywall's Buy): purchased (delivered and finished, or left
    /// unfinished), restored for free, a change of plan scheduled, pending, or cancelled. `store` is
    /// the store as a pending request's next step names it (``Transaction/PendingReason/nextStep(id:store:)``).
    case bought(AppPurchase, product: String, quantity: Int, store: String?)
    /// A parent approved an Ask to Buy request: purchased, or a change of plan scheduled.
    case approved(requestID: Int64, PurchaseOutcome, product: String)
    /// The user completed an interrupted purchase: purchased, or a change of plan scheduled.
    case resolved(requestID: Int64, PurchaseOutcome, product: String)
    /// A parent declined an Ask to Buy request: nothing charged.
    case declined(requestID: Int64, product: String)
    /// An offer code redeemed (`redeem`, the paywall's Redeem Code sheet): the offer and its terms, made
    /// now or from the subscriber's next renewal. `terms` is nil when the catalog no longer has the offer.
    case redeemed(code: String, PurchaseOutcome, product: String, offer: String?, terms: String?)
    /// Bought on another device (or a promoted purchase): the app gets it as an update.
    case boughtOutside(PurchaseOutcome, product: String)
    /// The App Store refunded a transaction: revoked, the entitlement gone, and the shares of
    /// `revokedShares` family members with it.
    case refunded(Transaction, product: String, revokedShares: Int = 0)
    /// The app asked for a refund; the App Store waits, or decided at once (`refundRequestOutcome`).
    case refundRequested(RefundRequest, product: String)
    /// The customer agreed to a price increase: `price` (per period) from `date`.
    case priceIncreaseAgreed(product: String, price: String, from: Date)
    /// The customer declined a price increase: auto-renew is off.
    case priceIncreaseDeclined(product: String)
    /// A subscription ended now (`expire`): it does not renew.
    case expired(product: String)
    /// A subscription renewed now (`renew`): the renewal's transaction.
    case renewed(Transaction, product: String)
    /// Auto-renew turned on or off (`auto-renew`): the subscription then renews, or ends, at `date`.
    case autoRenewSet(on: Bool, product: String, date: Date?)
    /// The app deleted, the account's history cleared, or the whole store emptied (`reset`).
    case reset(ResetScope, account: String, store: String)
    /// A setting changed (`settings set`, the Settings screen): the value stored, for every call or the next only.
    case settingChanged(name: String, value: String, once: Bool)
    /// Restore Purchases (`AppStore.sync()`): how many purchases it gave back.
    case restored(count: Int)
    /// The app used up some of a consumable (`consume`): the balance left.
    case consumed(product: String, quantity: Int, balance: Int)

    /// Its name for scripts (`--json`'s `action`): `bought`, `redeemed`, `approved`, `resolved`, `declined`, `boughtOutside`,
    /// `refunded`, `refundRequested`, `priceIncreaseAgreed`, `priceIncreaseDeclined`, `expired`, `renewed`,
    /// `autoRenewSet`, `reset`, `settingChanged`, `restored`, `consumed`.
    public var name: String {
        switch self {
        case .bought: "bought"
        case .redeemed: "redeemed"
        case .approved: "approved"
        case .resolved: "resolved"
        case .declined: "declined"
        case .boughtOutside: "boughtOutside"
        case .refunded: "refunded"
        case .refundRequested: "refundRequested"
        case .priceIncreaseAgreed: "priceIncreaseAgreed"
        case .priceIncreaseDeclined: "priceIncreaseDeclined"
        case .expired: "expired"
        case .renewed: "renewed"
        case .autoRenewSet: "autoRenewSet"
        case .reset: "reset"
        case .settingChanged: "settingChanged"
        case .restored: "restored"
        case .consumed: "consumed"
        }
    }

    /// The one sentence every front end says of it. Dates are ``StatusText/shortDate(_:)``'s, prices
    /// the storefront's (``PriceText``), per period for a subscription.
    public var sentence: String {
        switch self {
        case .bought(let purchase, let product, let quantity, let store): Self.bought(purchase, product, quantity, store: store)
        case .redeemed(let code, let outcome, let product, let offer, let terms):
            "Redeemed \(code): \(product)" + (offer.map { ", offer \"\($0)\"" } ?? "") + (terms.map { ": \($0)" } ?? "")
                + Self.redemption(outcome, product)
        case .approved(let id, let outcome, let product): Self.completed("Approved", id, outcome, product)
        case .resolved(let id, let outcome, let product): Self.completed("Resolved", id, outcome, product)
        case .declined(let id, let product): "Declined transaction \(id) (\(product)): declined; nothing was charged."
        case .boughtOutside(let outcome, let product):
            switch outcome {
            case .alreadyOwned(let transaction):
                "The account owns \(product) already (transaction \(transaction.id)): nothing was charged."
            case .changeScheduled(let change):
                "Scheduled a \(Self.change(change, to: product)) outside the app \(Self.when(change)): nothing is charged now."
            case .purchased(let transaction, _):
                "Purchased \(product) outside the app (transaction \(transaction.id)): the app receives it as an update."
            case .pending(let request): request.reason.sentence(for: product)
            case .userCancelled: "The purchase of \(product) outside the app was cancelled."
            }
        case .refunded(let transaction, let product, let shares):
            "Refunded transaction \(transaction.id) (\(product)): revoked (\((transaction.revocationReason ?? .other).rawValue)); the entitlement is gone"
                + (shares == 0 ? "." : "; \(shares) family member\(shares == 1 ? "'s share is" : "s' shares are") revoked too.")
        case .refundRequested(let request, let product):
            "Asked for a refund of transaction \(request.transactionID) (\(product)), \(request.reason.rawValue): "
                + Self.decision(request.status, transactionID: request.transactionID)
        case .priceIncreaseAgreed(let product, let price, let date):
            "Agreed: \(product) renews at \(price) from \(StatusText.shortDate(date))."
        case .priceIncreaseDeclined(let product):
            "Declined the new price of \(product): auto-renew is off; it ends at the period's end."
        case .expired(let product): "Expired \(product) now: it does not renew."
        case .renewed(let transaction, let product):
            "Renewed \(product) now: transaction \(transaction.id)"
                + (transaction.expirationDate.map { ", until \(StatusText.shortDate($0))." } ?? ".")
        case .autoRenewSet(let on, let product, let date):
            "Auto-renew is \(on ? "on" : "off") for \(product)"
                + (date.map { ": it \(on ? "renews" : "ends") \(StatusText.shortDate($0))." } ?? ".")
        case .reset(.app, _, _):
            "Reset the app: owned products and balances are gone, as after deleting the app. Restore brings purchases back."
        case .reset(.account, let account, _): "Reset account \(account): its history, settings and app state are gone."
        case .reset(.all, _, let store): "Reset everything in \(store)."
        case .settingChanged(let name, let value, let once): "\(name) = \(value)" + (once ? " (once: the next call only)" : "")
        case .restored(let count): "Restored \(count) purchase\(count == 1 ? "" : "s")."
        case .consumed(let product, let quantity, let balance): "Consumed \(quantity) × \(product): the balance is \(balance)."
        }
    }

    /// A purchase the app made: what it came to, the transaction's id where there is one.
    private static func bought(_ purchase: AppPurchase, _ product: String, _ quantity: Int, store: String?) -> String {
        let bought = product + (quantity > 1 ? " × \(quantity)" : "")
        switch purchase.outcome {
        case .alreadyOwned(let transaction):
            return "Restored \(product) for free: the account owns it already (transaction \(transaction.id))."
        case .changeScheduled(let change):
            // Short, so that at 80 columns the paywall's status line keeps "nothing is charged now".
            let what = Self.change(change, to: product)
            let date = change.effectiveDate.map(StatusText.shortDate) ?? "the next renewal"
            return what.prefix(1).uppercased() + what.dropFirst() + " from \(date): nothing is charged now."
        case .purchased(let transaction, _) where !purchase.isFinished && purchase.warning == nil:
            // finishTransactions false: the app "crashed" before finish().
            return "Purchased \(bought), left unfinished (transaction \(transaction.id)): nothing delivered; the next launch delivers it."
        case .purchased(let transaction, _):
            let id = "transaction \(transaction.id)"
            if TransactionFacts.isFreeTrial(transaction) { return "Started the free trial of \(product) (\(id))." }
            if let commitment = transaction.commitment, let terms = transaction.monthlyPlanTerms, let payment = transaction.commitmentPayment {
                return "Subscribed to \(product) for \(terms) (\(payment), commitment until \(StatusText.shortDate(commitment.commitmentExpiresDate)); \(id))."
            }
            if transaction.offerType == .winBack {
                return "Resubscribed to \(product) with the win-back offer \(transaction.offerID ?? "") for \(transaction.displayPrice) (\(id))."
            }
            return "Purchased \(bought) for \(transaction.displayPrice) (\(id))."
        case .pending(let request):
            return request.reason.sentence(for: product) + " Request \(request.id): \(request.reason.nextStep(id: request.id, store: store))."
        case .userCancelled:
            return "The purchase of \(product) was cancelled (userCancelled)."
        }
    }

    /// How a redemption ended: made now (an update for the app), or from the next renewal.
    private static func redemption(_ outcome: PurchaseOutcome, _ product: String) -> String {
        switch outcome {
        case .changeScheduled(let change): " \(when(change)): nothing is charged now."
        case .purchased(let transaction, _), .alreadyOwned(let transaction):
            " (transaction \(transaction.id)): the app receives it as an update."
        case .pending(let request): ". " + request.reason.sentence(for: product)
        case .userCancelled: ": cancelled (userCancelled)."
        }
    }

    /// "downgrade to Monthly", "promotional offer SPRING on Annual".
    private static func change(_ change: SubscriptionChange, to product: String) -> String {
        change.kind == .promotionalOffer ? "promotional offer \(change.offerID ?? "") on \(product)" : "\(change.kind.rawValue) to \(product)"
    }

    /// An approved or resolved request: purchased, or a change of plan scheduled for the renewal.
    private static func completed(_ verb: String, _ id: Int64, _ outcome: PurchaseOutcome, _ product: String) -> String {
        switch outcome {
        case .changeScheduled(let change):
            "\(verb) transaction \(id): a \(Self.change(change, to: product)) \(when(change)); nothing is charged now."
        case .purchased, .alreadyOwned:
            "\(verb) transaction \(id) (\(product)): purchased; the app receives it as an update."
        case .pending(let request): "\(verb) transaction \(id): " + request.reason.sentence(for: product)
        case .userCancelled: "\(verb) transaction \(id) (\(product)): cancelled."
        }
    }

    /// What the App Store did with a refund request: waiting, or decided at once (`refundRequestOutcome`).
    /// The Request a Refund sheet says the same before Submit (``RefundRequestPreview``).
    static func decision(_ status: RefundRequest.Status, transactionID id: Int64) -> String {
        switch status {
        case .pending: "the App Store decides (refund-request approve \(id), or decline \(id))."
        case .approved: "approved at once (refundRequestOutcome approve): refunded; the app gets the revocation as an update."
        case .declined: "declined at once (refundRequestOutcome decline): nothing changes for the app."
        }
    }

    /// "from Dec 30, 2027 (the next renewal)".
    private static func when(_ change: SubscriptionChange) -> String {
        change.effectiveDate.map { "from \(StatusText.shortDate($0)) (the next renewal)" } ?? "from the next renewal"
    }
}
