import StoreEngine

extension StoreCommand {
    /// The verb for an alert's title: "Cannot approve".
    var verb: String {
        switch self {
        case .approve: "approve"
        case .decline: "decline"
        case .resolve: "resolve"
        case .refund: "refund"
        case .delete: "delete"
        case .buyOutside: "buy outside the app"
        case .setSetting(let name, _, _): "set \(name)"
        case .switchAccount: "switch account"
        case .newTester: "add a tester"
        case .reset: "reset"
        case .expire: "expire"
        case .renew: "renew"
        case .autoRenew: "change auto-renew"
        case .advanceClock: "advance the clock"
        case .requestRefund: "request a refund"
        case .consentToPriceIncrease: "agree to the new price"
        case .declinePriceIncrease: "cancel the subscription"
        case .updatePaymentMethod: "update the payment method"
        }
    }

    /// What the spinner says meanwhile.
    var progress: String {
        switch self {
        case .approve(let id): "Approving request \(id)…"
        case .decline(let id): "Declining request \(id)…"
        case .resolve(let id): "Resolving request \(id)…"
        case .refund(let id, _): "Refunding \(id)…"
        case .delete(let id): "Deleting \(id)…"
        case .buyOutside: "Purchasing outside the app…"
        case .setSetting(let name, _, _): "Setting \(name)…"
        case .switchAccount(let name): "Signing in as \(name)…"
        case .newTester: "Adding a tester…"
        case .reset: "Resetting…"
        case .expire: "Expiring…"
        case .renew: "Renewing…"
        case .autoRenew(_, let on): on ? "Turning auto-renew on…" : "Turning auto-renew off…"
        case .advanceClock(let duration): "Advancing the clock by \(duration.spelledOut)…"
        case .requestRefund(let id, _): "Requesting a refund of \(id)…"
        case .consentToPriceIncrease: "Agreeing to the new price…"
        case .declinePriceIncrease: "Cancelling the subscription…"
        case .updatePaymentMethod: "Updating the payment method…"
        }
    }

    /// The question a confirmation sheet asks before a command that destroys data.
    var question: String {
        switch self {
        case .delete(let id): "Delete transaction \(id) from the account's history? The App Store forgets it."
        case .reset(.app): "Delete the app? Its owned products and balances go, as after deleting it from a device; Restore brings purchases back."
        case .reset(.account): "Clear this tester's history? Every transaction, setting and log entry of the account goes."
        case .reset(.all): "Reset everything? Every account, transaction, setting and log entry in the store file goes."
        default: "\(verb.prefix(1).uppercased() + verb.dropFirst())?"
        }
    }
}
