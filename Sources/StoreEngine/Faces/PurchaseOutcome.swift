import Foundation

/// What a purchase came to, decided once in the engine: every front end shows this value
/// and none works it out again from ids or prose.
public enum PurchaseOutcome: Sendable, Hashable {
    /// Charged and recorded. `change` is set when it replaced the group's plan at once
    /// (an upgrade, or a crossgrade within the same period).
    case purchased(Transaction, change: SubscriptionChange?)
    /// The account owns it already (a non-consumable, or the subscription it is on):
    /// StoreKit hands back the existing transaction and nothing is charged.
    case alreadyOwned(Transaction)
    /// Nothing charged yet: waiting for a parent (Ask to Buy) or for the user to act (interrupted).
    case pending(PendingRequest)
    /// A downgrade, or a crossgrade to another period: nothing charged now; the new plan
    /// starts at the next renewal, and the current subscription runs until then.
    case changeScheduled(SubscriptionChange)
    /// The user cancelled on the App Store sheet.
    case userCancelled

    /// As StoreKit 2's `Product.PurchaseResult`: a scheduled change is a success carrying the
    /// subscription kept, as StoreKit returns it.
    public var result: PurchaseResult {
        switch self {
        case .purchased(let transaction, _), .alreadyOwned(let transaction): .success(transaction)
        case .changeScheduled(let change): .success(change.current)
        case .pending(let request): .pending(request)
        case .userCancelled: .userCancelled
        }
    }

    /// The transaction that came back, if any (for a scheduled change, the subscription kept).
    public var transaction: Transaction? {
        if case .success(let transaction) = result { transaction } else { nil }
    }

    /// A name for scripts: `purchased`, `alreadyOwned`, `pending`, `changeScheduled`, `userCancelled`.
    public var name: String {
        switch self {
        case .purchased: "purchased"
        case .alreadyOwned: "alreadyOwned"
        case .pending: "pending"
        case .changeScheduled: "changeScheduled"
        case .userCancelled: "userCancelled"
        }
    }
}

/// A change of plan within a subscription group.
public struct SubscriptionChange: Sendable, Hashable {
    /// By level within the group (level 1 the highest): up is at once, down waits for the renewal;
    /// a crossgrade (same level) is at once when the period is the same, else at the renewal.
    public enum Kind: String, Sendable, Hashable {
        case upgrade, downgrade, crossgrade
        /// Not a change of plan: a promotional offer bought while subscribed to the same
        /// product, applied at the next renewal (the renewal info's `offer…` fields say so).
        case promotionalOffer

        /// Its name in a sentence's first word: "Upgrade", "Promotional offer".
        public var title: String { self == .promotionalOffer ? "Promotional offer" : rawValue.capitalized }
    }

    public var kind: Kind
    public var fromProductID: String
    public var toProductID: String
    /// When the new plan starts: now for a change made at once, the current period's end for a scheduled one.
    public var effectiveDate: Date?
    /// The subscription's transaction before the change (for a scheduled change, the one that runs until then).
    public var current: Transaction

    /// The App Store's note, for logs and `--json`: "downgrade to pro.monthly takes effect at the next renewal, Jan 3, 2027"
    /// (``StatusText/shortDate(_:)``, the date every sentence uses).
    public var summary: String {
        if isScheduled {
            let when = effectiveDate.map(StatusText.shortDate) ?? "the next renewal"
            if kind == .promotionalOffer {
                return "promotional offer \(offerID ?? "") on \(toProductID) applies at the next renewal, \(when)"
            }
            let offer = offerID.map { " with offer \($0)" } ?? ""
            return "\(kind.rawValue) to \(toProductID)\(offer) takes effect at the next renewal, \(when)"
        }
        return "\(kind.rawValue) from \(fromProductID) at once; the unused part of \(current.id) is refunded pro rata"
    }

    /// Whether the change waits for the next renewal (nothing is charged now).
    public var isScheduled: Bool
    /// The offer applied at the renewal: for ``Kind/promotionalOffer``, and for a scheduled change of
    /// plan redeemed with an offer (a code, a promotional offer) for the new plan.
    public var offerID: String? = nil
}

/// A purchase waiting for someone: the request, not yet a transaction.
public struct PendingRequest: Sendable, Hashable, Identifiable {
    /// The request's id: `approve`, `decline` and `resolve` take it, and the transaction keeps it.
    public var id: Int64
    public var productID: String
    public var reason: Transaction.PendingReason
    public var date: Date

    public init(id: Int64, productID: String, reason: Transaction.PendingReason, date: Date) {
        (self.id, self.productID, self.reason, self.date) = (id, productID, reason, date)
    }

    init(_ transaction: Transaction) {
        (id, productID, date) = (transaction.id, transaction.productID, transaction.purchaseDate)
        reason = transaction.pendingReason ?? .askToBuy
    }
}

extension Transaction.PendingReason {
    /// The sentence every front end says of a pending purchase of `name`.
    public func sentence(for name: String) -> String {
        switch self {
        case .askToBuy: "The purchase of \(name) is pending Ask to Buy approval: a parent approves or declines it, and it arrives as an update."
        case .interrupted: "The purchase of \(name) was interrupted and is pending: the user must act (accept new terms) before it completes."
        }
    }

    /// The command that moves request `id` on, for people at a terminal: on `store` (its path, or
    /// its URI without the password, as shown) when given, so that it acts on this store from any
    /// folder and terminal, not on the default one.
    public func nextStep(id: Int64?, store: String? = nil) -> String {
        let command = ShellWord.storefront(store: store)
        let number = id.map { " \($0)" } ?? ""
        switch self {
        case .askToBuy: return "\(command) approve\(number)" + (id.map { " (or decline \($0))" } ?? "")
        case .interrupted: return "\(command) resolve\(number)"
        }
    }
}

/// The outcome of `Store.purchase`, as StoreKit 2's `Product.PurchaseResult`.
public enum PurchaseResult: Sendable, Hashable {
    /// The purchase went through (or, for an owned non-consumable, was restored for free).
    case success(Transaction)
    case userCancelled
    /// Waiting for Ask to Buy approval or another action; the transaction arrives as an update later.
    case pending(PendingRequest)

    /// StoreKit's name of the case: `success`, `userCancelled`, `pending`.
    public var name: String {
        switch self {
        case .success: "success"
        case .userCancelled: "userCancelled"
        case .pending: "pending"
        }
    }
}

/// How one purchase ends, chosen by the tester (the confirmation sheet's outcome,
/// `buy --outcome`) instead of what the settings would make of it.
public enum PurchaseChoice: Sendable, Hashable {
    case succeed
    case cancel
    case fail(SimulatedError)
    case askToBuy
    case interrupt

    /// The outcome named on a command line: `succeed`, `cancel`, `askToBuy`, `interrupt`, or an error's case name.
    public init?(name: String) {
        switch name {
        case "succeed", "success": self = .succeed
        case "cancel", "userCancelled": self = .cancel
        case "askToBuy": self = .askToBuy
        case "interrupt", "interrupted": self = .interrupt
        default:
            guard let error = SimulatedError.cases(in: [.storeKitError, .purchaseError]).first(where: { $0.rawValue == name })
            else { return nil }
            self = .fail(error)
        }
    }

    /// Its name, as `init(name:)` reads it.
    public var name: String {
        switch self {
        case .succeed: "succeed"
        case .cancel: "cancel"
        case .fail(let error): error.rawValue
        case .askToBuy: "askToBuy"
        case .interrupt: "interrupt"
        }
    }
}

/// What an app's Buy button got: the outcome, and whether the app delivered and finished it.
public struct AppPurchase: Sendable, Hashable {
    public var outcome: PurchaseOutcome
    /// The app delivered and finished the transaction (false when `finishTransactions` is off,
    /// and for outcomes with nothing new to deliver).
    public var isFinished: Bool
    /// Why the app could not deliver and finish a purchase that was made (committed and
    /// charged): a full disk, say. The purchase stands; it is delivered at the next launch.
    public var warning: String? = nil

    /// As StoreKit 2's `Product.PurchaseResult`.
    public var result: PurchaseResult { outcome.result }
    /// The product was owned already and was handed back for free, not charged.
    public var alreadyOwned: Bool { if case .alreadyOwned = outcome { true } else { false } }
}

/// What an app does with the transactions waiting for it at launch or on an update.
public struct Delivery: Sendable, Hashable {
    /// Delivered and finished.
    public var finished: [Transaction] = []
    /// Refunded or revoked since the app last looked: arrived as updates, finished, and
    /// taken out of the app's owned products (as `Transaction.updates` delivers a revocation).
    public var revoked: [Transaction] = []
    /// Still unfinished: the app "crashed" first (`finishTransactions` false) or got them unverified.
    public var left: [Transaction] = []
}

