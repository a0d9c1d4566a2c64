import Foundation

/// What the store knows that the screen shows, loaded from the engine in one go.
public struct StoreSnapshot: Equatable, Sendable {
    public var storefront: Storefront
    public var products: [Product]
    /// The app's owned products (its local cache), with the granting transaction.
    public var owned: [String: Transaction]
    /// What the account is entitled to at the App Store, whether or not the app has it.
    public var entitled: Set<String>
    public var balances: [String: Int]
    /// Products whose newest transaction failed verification, with the reason: warned about, never checked.
    public var unverified: [String: String]
    public var canMakePayments: Bool
    /// The newest transaction state changes, in the order they happened by the store's clock
    /// (renewals caught up late are recorded after later events), oldest first.
    public var events: [TransactionEvent]
    /// The store file's data version when this was read; a different one means another process wrote.
    public var dataVersion: Int64
    /// Products whose transactions arrived as updates and were delivered during this load
    /// (an Ask to Buy approval, a purchase outside the app, a renewal).
    public var arrived: [String] = []
    /// Products whose refunds (revoked transactions) arrived as updates during this load.
    public var revoked: [String] = []
    /// Each subscription group's status, by group id. Its renewal info is not signed
    /// (`jwsRepresentation` nil): the screen never shows it; `subscriptionStatuses()` signs.
    public var subscriptions: [String: SubscriptionStatus] = [:]
    /// The groups whose introductory offer the account may take.
    public var introEligibleGroups: Set<String> = []
    /// The store's clock when this was read, once it differs from real time (nil while it
    /// is real time), and how fast it runs.
    public var clock: Date?
    /// The store's time when this was read, always (what is expired is judged by it).
    public var storeTime = Date(timeIntervalSince1970: 0)
    public var timeRate = TimeRate.realTime
    /// Requests waiting for a parent or for the user, oldest first.
    public var pending: [PendingRequest] = []
    /// Transactions the app could not finish during this load (unverified, or `finishTransactions` false).
    public var left: [Transaction] = []
    /// The account the store file names as the current one (`accounts switch`, from any process);
    /// nil when none was ever chosen (the default account).
    public var currentAccount: String?
    /// The simulated conditions a purchase meets now (the App Store sheet names them).
    public var conditions = PurchaseConditions()
    /// For products of a group the account is subscribed to: the change of plan buying one would make.
    public var plannedChanges: [String: PlannedChange] = [:]
    /// The App Store's messages to the app not displayed yet (pending or deferred), oldest first.
    public var messages: [StoreMessage] = []
    /// The account's refund requests made from the app, by transaction id.
    public var refundRequests: [Int64: RefundRequest] = [:]
    /// The price increases the account's subscriptions wait for, with the renewal that takes each.
    public var priceIncreases: [PriceIncrease] = []
    /// The environment purchases are signed for now (the `environment` setting): the App Store sheet names it.
    public var environment = Transaction.AppStoreEnvironment.xcode

    public init(storefront: Storefront, products: [Product], owned: [String: Transaction], entitled: Set<String>,
                balances: [String: Int], unverified: [String: String] = [:], canMakePayments: Bool,
                events: [TransactionEvent], dataVersion: Int64, arrived: [String] = []) {
        self.storefront = storefront
        self.products = products
        self.owned = owned
        self.entitled = entitled
        self.balances = balances
        self.unverified = unverified
        self.canMakePayments = canMakePayments
        self.events = events
        self.dataVersion = dataVersion
        self.arrived = arrived
    }
}
