import StoreEngine

/// How a purchase ended, as the alert or the checkmark reports it.
public enum PurchaseReport: Equatable, Sendable {
    /// What the purchase came to, in the engine's words (``ActionOutcome/bought(_:product:quantity:store:)``):
    /// purchased (or left unfinished), restored for free, a change scheduled, pending, or cancelled.
    case ended(ActionOutcome)
    /// Purchased, but it reached the app unverified (`verificationError`): the app refused it and left it
    /// unfinished, delivered at the next launch if it verifies then. `error` is the verification error's name.
    case unverified(transactionID: Int64, error: String)
    /// A StoreKit error: its Swift name (`purchaseNotAllowed`), where Apple declares it, and a plain sentence.
    case failed(name: String, domain: String?, message: String)
    /// The promotional offer could not be signed (no offer key): nothing was bought.
    case notSigned(String)
}

/// Why a store command failed, for the alert.
public struct CommandFailure: Error, Equatable, Sendable {
    public var message: String
    public init(_ message: String) { self.message = message }
}

/// Everything that can happen to the paywall: input, timers and engine results.
///
/// Scoped as the screens are (TCA's shape): what one screen or sheet does is a case of its own action
/// type (`PaywallAction`, `ManagerAction`, `SettingsAction`, `SheetAction`), reduced in its own
/// `Update+…` file; the root `update` routes keys and clicks to the screen or sheet in front and
/// keeps what is app-wide (the window, the timer, the store's contents, store commands, the account,
/// the catalog file).
public enum Action: Equatable, Sendable {
    /// A key, routed to the sheet, search, pane or screen in front (see `route(_:_:)`).
    case key(Key)
    /// A click, routed as a key is.
    case click(ClickTarget)
    case resized(Size)
    /// A timer tick, about ten a second.
    case tick
    /// SIGTERM or SIGHUP: leave at once, restoring the terminal.
    case terminate
    /// q: leave.
    case quit
    /// p, t, s (or a click on a tab): another screen, with what it shows read again.
    case show(Screen)
    /// A store command any screen starts (+ and > advance the store's clock).
    case runCommand(StoreCommand)

    // MARK: Scoped

    case paywall(PaywallAction)
    case manager(ManagerAction)
    case settings(SettingsAction)
    case sheet(SheetAction)

    // MARK: Engine results, app-wide

    case loaded(StoreSnapshot)
    case loadFailed(String)
    /// A load the App Store refused (offline, loadProductsError) as it refuses the app's: the products
    /// loaded before stay, and the purchase conditions, read from the settings, replace the snapshot's,
    /// so the App Store sheet says what a purchase meets now.
    case loadRefused(String, conditions: PurchaseConditions)
    /// The store file's current data version, from a periodic check.
    case dataVersion(Int64)
    /// The store's clock brought renewals (made by this process), to show.
    case renewalsMade(Int)
    /// Renewals fell due by the store's clock and more are being made (a long clock advance):
    /// `made` in this step; the load goes on.
    case catchingUpRenewals(made: Int)
    /// A store command finished: a line for the status bar, or an error for an alert.
    case commandFinished(StoreCommand, Result<String, CommandFailure>)
    /// The account in use changed (switched, or a new tester).
    case accountChanged(String)
    /// The catalog file changed and was read again: the store uses it now. Its paywall texts, and
    /// what changed in words for the status line.
    case catalogReloaded(paywall: Paywall, summary: String)
    /// The catalog file changed but cannot be used: why (file, place, fault). The catalog in use stays.
    case catalogFailed(String)
    /// A message could not be marked shown or deferred in the store.
    case messageFailed(String)
}

/// Work for the runtime to do: engine calls, described as values so `update` stays pure.
public enum Effect: Equatable, Sendable {
    /// Read everything the screen shows from the store.
    case load
    /// Buy, as the settings say or with the outcome the tester chose on the sheet, with a subscription offer
    /// and a billing plan (`.monthly`: a one-year subscription's monthly plan, as `buy --billing-plan monthly`).
    case purchase(productID: String, outcome: PurchaseChoice? = nil, offer: PurchaseOffer? = nil, billingPlan: BillingPlanType? = nil)
    case restore
    /// Read the Transaction Manager's list.
    case loadHistory
    /// Read the settings and the accounts.
    case loadSettings
    /// Read a subscription group's history (``AppStoreFace/subscriptionHistory(groupID:)``), for the detail pane's timeline.
    case loadSubscriptionHistory(groupID: String)
    /// Read the App Store Server Notifications recorded for a transaction (the manager's detail pane).
    case loadNotifications(transactionID: Int64)
    case run(StoreCommand)
    case consume(productID: String)
    /// Read the store file's data version, to notice another process's writes.
    case checkForChanges
    /// Redeem an offer code, as the Redeem Code sheet does.
    case redeem(code: String)
    /// The app shows a message now (`Message.display`), or holds it to show later.
    case displayMessage(Int64)
    case deferMessage(Int64)
    /// Ask the engine what Confirm would meet with the purchase sheet's promotional offer.
    case predictOffer(OfferAttempt)
    /// Ask the engine what Submit on the Request a Refund sheet would do for a transaction.
    case previewRefundRequest(transactionID: Int64)
}
