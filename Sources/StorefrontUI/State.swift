import Foundation
import StoreEngine

/// A dialog over the paywall.
public enum Sheet: Equatable, Sendable {
    /// The App Store's purchase confirmation for a product, with the tester's choice of
    /// how this purchase ends (nil: as the settings say) and of the subscription offer it is bought with.
    case confirm(productID: String, outcome: PurchaseChoice? = nil, offer: OfferSelection = OfferSelection())
    /// "Are you sure?" before a command that destroys data (delete a transaction, a reset).
    case confirmCommand(StoreCommand)
    /// The Transaction Manager's "buy from outside the app": a product list to pick from.
    case outsidePurchase(selection: Int)
    /// "You've already purchased this…" for an owned non-consumable.
    case alreadyOwned(productID: String)
    case alert(title: String, message: String)
    case help
    /// "Refund transaction N?" with the reason chosen (← →): developerIssue or other.
    case refund(id: Int64, reason: Transaction.RevocationReason)
    /// Esc on the paywall: "Quit Storefront?" (q quits without asking).
    case confirmQuit
    /// The App Store's Redeem Code sheet (`AppStore.presentOfferCodeRedeemSheet`): the code typed so
    /// far, and StoreKit's error for the last code tried.
    case redeemCode(code: String = "", error: String? = nil)
    /// A message from the App Store, shown now (`Message.display`).
    case message(StoreMessage)
    /// The price increase consent sheet of a subscription of the account.
    case priceIncrease(productID: String)
    /// The app's messages (m): how new ones are handled, and those not shown yet.
    case messages(selection: Int)
    /// `Transaction.beginRefundRequest`'s sheet for a transaction: the reason the customer gives.
    case refundRequest(transactionID: Int64, productID: String, reason: RefundRequestReason)
}

/// Work the engine is doing that the spinner stands for.
public enum Busy: Equatable, Sendable {
    case loading
    case purchasing(productID: String)
    case restoring
    case consuming(productID: String)
    /// A Transaction Manager or settings command.
    case working(String)
}

/// The screens, switched with p, t and s.
public enum Screen: Equatable, Sendable, CaseIterable {
    case paywall
    /// The Transaction Manager: the account's history and actions on it.
    case transactions
    /// Simulated conditions, sandbox testers and resets.
    case settings
}

/// What the tester does to the store outside a purchase: the Transaction Manager's
/// actions, settings, accounts and resets.
public enum StoreCommand: Equatable, Sendable {
    case approve(Int64)
    case decline(Int64)
    case resolve(Int64)
    case refund(Int64, reason: Transaction.RevocationReason = .other)
    case delete(Int64)
    case buyOutside(productID: String)
    case setSetting(name: String, value: String, once: Bool)
    case switchAccount(String)
    case newTester
    case reset(ResetScope)
    /// Subscription controls, by group id.
    case expire(groupID: String)
    case renew(groupID: String)
    case autoRenew(groupID: String, on: Bool)
    case advanceClock(ISODuration)
    /// The app asks for a refund (`Transaction.beginRefundRequest`), with the customer's reason.
    case requestRefund(Int64, reason: RefundRequestReason)
    /// The customer's answer on the price increase consent sheet, for the subscription of a product.
    case consentToPriceIncrease(productID: String)
    case declinePriceIncrease(productID: String)
    /// The Billing Problem sheet's Continue: the customer's payment method works again (`billingIssues` false).
    case updatePaymentMethod
}

/// A setting as the settings screen shows it: its value and the values it cycles through.
public struct SettingRow: Equatable, Sendable {
    public var value: SettingValue
    public var choices: [String]
    public var summary: String
    public var acceptsOnce: Bool

    public init(value: SettingValue, choices: [String], summary: String, acceptsOnce: Bool) {
        (self.value, self.choices, self.summary, self.acceptsOnce) = (value, choices, summary, acceptsOnce)
    }
}

/// The Transaction Manager's contents and cursor.
public struct ManagerState: Equatable, Sendable {
    /// The account's newest transactions, newest first; nil until loaded.
    public var transactions: [Transaction]?
    /// The engine's facts of the listed transactions, by id (state, price, the actions it allows).
    public var facts: [Int64: TransactionFacts] = [:]
    /// The subscription groups' histories the detail pane has read, by group id (its timeline).
    public var histories: [String: SubscriptionHistory] = [:]
    public var selection = 0
    public var scroll = 0
    /// The detail pane, when open (Enter or i).
    public var detail: TransactionDetailState?
    /// The search (/) over the list; `scroll` counts the rows it shows.
    public var search = TableSearch()
    /// The transaction an alert named ("t, then v"): the list selects it when it next loads.
    public var focus: Int64?

    public var selected: Transaction? {
        transactions.flatMap { $0.indices.contains(selection) ? $0[selection] : nil }
    }
}

/// The settings screen's contents and cursor.
public struct SettingsState: Equatable, Sendable {
    public var rows: [SettingRow]?
    public var accounts: [String] = []
    public var selection = 0
}

/// Everything the paywall screen shows: a value, changed only by `update`.
public struct State: Equatable, Sendable {
    public var size: Size
    public var glyphs: Glyphs
    public var account: String
    public var storePath: String
    public var paywall: Paywall
    /// Whether the paywall follows the store file's current account when another process
    /// switches it (false when started with an explicit `--account`).
    public var followsCurrentAccount = true
    /// Whether the first load, the app's launch, has come back.
    public var hasLaunched = false
    /// What reading the catalog repaired or ignored (a `.storekit` file's notes): shown once, at launch,
    /// where the tester looks, rather than on the terminal the paywall covers.
    public var catalogNotes: [String] = []
    /// The store's contents; nil until the first load.
    public var snapshot: StoreSnapshot?
    /// Why the last load failed, shown instead of the table.
    public var loadError: String?
    /// Retries that failed in a row since the last good load, so each retry's result shows.
    public var failedRetries = 0
    /// The selected product, an index into `snapshot.products`.
    public var selection = 0
    /// The first table line shown (the table scrolls when taller than the screen).
    public var scroll = 0
    /// The search (/) over the product table.
    public var search = TableSearch()
    public var sheet: Sheet?
    /// The store command being run (the spinner's), until its result comes back.
    public var inFlight: StoreCommand?
    /// Keys typed on the settings screen while a write was in flight: applied in order once it ends.
    public var pendingKeys: [Key] = []
    /// The first line of the help sheet shown, when it is taller than the screen.
    public var helpScroll = 0
    public var busy: Busy?
    /// Counts timer ticks: drives the spinner and the check for other processes' writes.
    public var ticks = 0
    public var showLog = true
    /// How many lines the event log is scrolled back from its newest (0: it follows the newest).
    public var logScroll = 0
    /// A one-line note in the status line ("Purchased Swift Shopping").
    public var flash: String?
    /// The tick the status line's note was set at: it goes after ``flashTicks``.
    public var flashSince = 0
    /// Renewals made so far while the paywall catches up the store's clock.
    public var renewalsCaughtUp = 0
    public var isRunning = true
    public var screen = Screen.paywall
    public var manager = ManagerState()
    public var settings = SettingsState()
    /// The store file's data version last read or asked for: another one means another process wrote.
    public var knownDataVersion: Int64?
    /// The product table's lines and column widths, worked out once per snapshot (see `TableMeasure`).
    public var tableMeasure = TableMeasure()
    /// How the app handles the App Store's messages, and those it handled already.
    public var messages = MessageHandling()
    /// The file `--record` writes the tester's actions to, nil when not recording: the title bar
    /// says REC, and `=` (an expectation for the selected row) is in the help and the footer.
    public var recording: String?
    /// What the purchase sheet predicts for its promotional offer, as the engine last answered.
    public var offerPrediction = OfferPrediction()
    /// What Submit on the Request a Refund sheet will do, as the engine last answered for its transaction.
    public var refundRequestPrediction = SheetPrediction<Int64, RefundRequestPreview>()

    public init(size: Size, glyphs: Glyphs = .unicode, account: String, storePath: String, paywall: Paywall) {
        self.size = size
        self.glyphs = glyphs
        self.account = account
        self.storePath = storePath
        self.paywall = paywall
    }

    /// The products, or none before the first load.
    public var products: [Product] { snapshot?.products ?? [] }

    /// The product under the cursor; none when a search hides every row.
    public var selectedProduct: Product? {
        products.indices.contains(selection) && search.contains(selection) ? products[selection] : nil
    }
}
