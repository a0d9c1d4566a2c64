import Foundation

/// What a purchase made now would come to, before it is made: the App Store sheet says it,
/// so the tester knows what Confirm does. Decided here, by the rules `purchase` follows.

/// The simulated conditions a purchase meets, as the settings are now.
public struct PurchaseConditions: Sendable, Hashable {
    public var canMakePayments = true
    public var offline = false
    /// The `purchaseError` setting, and whether it applies once only.
    public var purchaseError: SimulatedError?
    public var purchaseErrorOnce = false
    public var askToBuy = false
    public var interruptedPurchases = false
    public var finishTransactions = true
    public var verificationError: SimulatedError?
    public var verificationErrorOnce = false
    /// The App Store's `latency`, in milliseconds.
    public var latencyMilliseconds = 0

    public init() {}

    /// How a purchase "as the settings say" ends, in the order `purchase` applies them.
    public enum Expected: Sendable, Hashable {
        case notAllowed
        case fails(SimulatedError)
        case askToBuy
        case interrupted
        case succeeds
    }

    public var expected: Expected {
        if let refusal = deviceRefusal() { return refusal }
        switch storeAnswer(choice: nil) {
        case .fail(let error): return .fails(error)
        case .askToBuy: return .askToBuy
        case .interrupt: return .interrupted
        case .succeed, .cancel: return .succeeds
        }
    }

    // The rule order, written once: `expected` (the sheet's preview) and `purchase` both follow it.

    /// The device's refusal before the App Store is asked: `canMakePayments` false, then `offline`
    /// (a purchase made outside the app is not this device's). Nil when the device lets it through.
    public func deviceRefusal(outside: Bool = false) -> Expected? {
        if !canMakePayments { return .notAllowed }
        if offline, !outside { return .fails(.networkError) }
        return nil
    }

    /// The App Store's answer, after the product, quantity and offer checked out: the tester's
    /// `choice` for this purchase, else `purchaseError`, then `askToBuy`, then `interruptedPurchases`.
    public func storeAnswer(choice: PurchaseChoice?) -> PurchaseChoice {
        if let choice { return choice }
        if let purchaseError { return .fail(purchaseError) }
        if askToBuy { return .askToBuy }
        if interruptedPurchases { return .interrupt }
        return .succeed
    }

    /// The settings in force that a purchase meets, by name and value, in the order they apply:
    /// `offline`, `purchaseError networkError (once)`, `askToBuy`, … Empty when every one is at its default.
    public var inForce: [String] {
        var names: [String] = []
        if !canMakePayments { names.append("canMakePayments false") }
        if offline { names.append("offline") }
        if let purchaseError { names.append("purchaseError \(purchaseError.rawValue)\(purchaseErrorOnce ? " (once)" : "")") }
        if askToBuy { names.append("askToBuy") }
        if interruptedPurchases { names.append("interruptedPurchases") }
        if let verificationError {
            names.append("verificationError \(verificationError.rawValue)\(verificationErrorOnce ? " (once)" : "")")
        }
        if !finishTransactions { names.append("finishTransactions false") }
        if latencyMilliseconds > 0 { names.append("latency \(latencyMilliseconds) ms") }
        return names
    }

    /// One line for the sheet: what the settings make of a purchase and which ones do it.
    /// "fails with networkError (offline)", "pending Ask to Buy (askToBuy)", "succeeds (no condition set)".
    public var summary: String {
        let outcome = switch expected {
        case .notAllowed: "fails with purchaseNotAllowed"
        case .fails(let error): "fails with \(error.rawValue)"
        case .askToBuy: "pending Ask to Buy"
        case .interrupted: "pending (interrupted)"
        case .succeeds: "succeeds"
        }
        let names = inForce
        return names.isEmpty ? "\(outcome) (no condition set)" : "\(outcome) (\(names.joined(separator: ", ")))"
    }
}

/// A change of plan that buying a product of a subscription group would make, given the plan
/// the account is on now: an upgrade at once, a downgrade (or a crossgrade to another period)
/// waiting for the renewal with nothing charged now.
public struct PlannedChange: Sendable, Hashable {
    public var kind: SubscriptionChange.Kind
    /// The plan the account is on.
    public var fromProductID: String
    /// Whether it waits for the next renewal (nothing charged now).
    public var isScheduled: Bool
    /// When the new plan starts: the current period's end for a scheduled change; nil when at once.
    public var effectiveDate: Date?

    public init(kind: SubscriptionChange.Kind, fromProductID: String, isScheduled: Bool, effectiveDate: Date? = nil) {
        (self.kind, self.fromProductID, self.isScheduled, self.effectiveDate) = (kind, fromProductID, isScheduled, effectiveDate)
    }
}

extension SubscriptionChange.Kind {
    /// The change from a plan on `current` terms to one on `new` terms, and whether it is made at
    /// once: by level within the group (1 the highest) — up at once, down at the renewal; a
    /// crossgrade (same level) at once when the period is the same, else at the renewal.
    static func between(_ current: SubscriptionTerms, _ new: SubscriptionTerms) -> (kind: Self, immediate: Bool) {
        let kind: Self = new.level < current.level ? .upgrade : new.level > current.level ? .downgrade : .crossgrade
        return (kind, kind == .upgrade || (kind == .crossgrade && new.period == current.period))
    }
}

/// A promotional offer as the paywall would buy it: the product, the offer, and the fault put in its
/// signature on purpose (nil: signed well).
public struct OfferAttempt: Sendable, Hashable {
    public var productID: String
    public var offerID: String
    public var flaw: PromotionalOfferSignature.Flaw?

    public init(productID: String, offerID: String, flaw: PromotionalOfferSignature.Flaw? = nil) {
        (self.productID, self.offerID, self.flaw) = (productID, offerID, flaw)
    }
}

/// Why a purchase with a promotional offer ends before the settings decide: the purchase's own
/// check, run without writing, so the App Store sheet predicts what Confirm does.
public enum OfferRefusal: Sendable, Hashable {
    /// The app's server has no key to sign with: the app never asks the App Store, nothing is bought.
    case cannotSign(String)
    /// The App Store refuses the purchase: `invalidOfferSignature`, `ineligibleForOffer`.
    case refused(StoreError)

    /// The sheet's line, worded as the outcome is: "fails with ineligibleForOffer: promotional offers are for …",
    /// "cannot be signed: No offer key to sign …".
    public var summary: String {
        switch self {
        case .cannotSign(let reason): "cannot be signed: \(reason)"
        case .refused(let error): "fails with \(error.name): \(error.message)"
        }
    }
}
