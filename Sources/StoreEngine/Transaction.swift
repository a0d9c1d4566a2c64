import Foundation

/// A purchase record, with StoreKit 2's `Transaction` names. Renewals are new
/// transactions sharing the first one's `originalID`.
public struct Transaction: Sendable, Hashable, Identifiable {
    public var id: Int64
    public var originalID: Int64
    public var productID: String
    public var productType: ProductType
    public var purchaseDate: Date
    public var originalPurchaseDate: Date
    public var expirationDate: Date?
    public var revocationDate: Date?
    public var revocationReason: RevocationReason?
    /// Set on a subscription's transaction when a higher tier replaced it.
    public var isUpgraded: Bool
    public var ownershipType: OwnershipType
    public var purchasedQuantity: Int
    public var appAccountToken: UUID?
    public var environment: AppStoreEnvironment
    /// The storefront's country code at the time of purchase.
    public var storefront: String
    public var currency: String
    /// The price charged, for the whole quantity.
    public var price: Decimal
    public var reason: Reason
    public var subscriptionGroupID: String?
    public var offerType: OfferType?
    /// The sandbox account that made the purchase.
    public var account: String
    public var status: Status
    /// Whether the app has delivered the content and called `finish()`.
    public var isFinished: Bool
    /// Why a pending transaction waits: Ask to Buy, or an interrupted purchase.
    public var pendingReason: PendingReason?
    /// The promotional offer redeemed (`offerID`), if any.
    public var offerID: String?
    /// How the offer applied to this transaction is paid (`offerDiscountType`), if any.
    public var offerPaymentMode: PaymentMode?
    /// The whole length of that offer (`offerPeriod`): its period times its count.
    public var offerPeriod: ISODuration?
    /// The signed transaction (compact JWS, ES256); nil until the App Store signs it (pending ones are not).
    public var jwsRepresentation: String?
    /// Whether the signature and the stored record agree, as StoreKit's `VerificationResult`.
    public var verification: Verification = .verified

    /// StoreKit's `VerificationResult` of a transaction read from the store file.
    public enum Verification: Sendable, Hashable {
        case verified
        /// Not to be trusted: the reason says why (edited data, a bad signature, not signed).
        case unverified(reason: String)

        public var isVerified: Bool { self == .verified }
    }

    public init(id: Int64, originalID: Int64, productID: String, productType: ProductType, purchaseDate: Date,
                originalPurchaseDate: Date, expirationDate: Date?, revocationDate: Date?,
                revocationReason: RevocationReason?, isUpgraded: Bool, ownershipType: OwnershipType,
                purchasedQuantity: Int, appAccountToken: UUID?, environment: AppStoreEnvironment, storefront: String,
                currency: String, price: Decimal, reason: Reason, subscriptionGroupID: String?, offerType: OfferType?,
                account: String, status: Status, isFinished: Bool, pendingReason: PendingReason? = nil,
                offerID: String? = nil, jwsRepresentation: String? = nil, verification: Verification = .verified,
                offerPaymentMode: PaymentMode? = nil, offerPeriod: ISODuration? = nil) {
        self.id = id
        self.originalID = originalID
        self.productID = productID
        self.productType = productType
        self.purchaseDate = purchaseDate
        self.originalPurchaseDate = originalPurchaseDate
        self.expirationDate = expirationDate
        self.revocationDate = revocationDate
        self.revocationReason = revocationReason
        self.isUpgraded = isUpgraded
        self.ownershipType = ownershipType
        self.purchasedQuantity = purchasedQuantity
        self.appAccountToken = appAccountToken
        self.environment = environment
        self.storefront = storefront
        self.currency = currency
        self.price = price
        self.reason = reason
        self.subscriptionGroupID = subscriptionGroupID
        self.offerType = offerType
        self.account = account
        self.status = status
        self.isFinished = isFinished
        self.pendingReason = pendingReason
        self.offerID = offerID
        self.offerPaymentMode = offerPaymentMode
        self.offerPeriod = offerPeriod
        self.jwsRepresentation = jwsRepresentation
        self.verification = verification
    }

    /// Why a transaction was revoked, as `Transaction.RevocationReason`.
    public enum RevocationReason: String, Sendable, Hashable {
        case developerIssue
        case other
    }

    /// `Transaction.OwnershipType`.
    public enum OwnershipType: String, Sendable, Hashable {
        case purchased
        case familyShared
    }

    /// `AppStore.Environment`.
    public enum AppStoreEnvironment: String, Sendable, Hashable {
        case production
        case sandbox
        case xcode
        /// Unit tests' environment (Apple's `LocalTesting`): data a verifier does not check.
        case localTesting

        /// The environment an `environment` setting value names (`Xcode`, `Sandbox`,
        /// `Production`, `LocalTesting`, as Apple's payloads spell them).
        public init?(appStoreName: String) {
            guard let match = [Self.xcode, .sandbox, .production, .localTesting]
                .first(where: { $0.appStoreName.lowercased() == appStoreName.lowercased() }) else { return nil }
            self = match
        }
    }

    /// `Transaction.Reason`: a purchase made by the user, or an automatic renewal.
    public enum Reason: String, Sendable, Hashable {
        case purchase
        case renew
    }

    /// `Transaction.OfferType`.
    public enum OfferType: String, Sendable, Hashable {
        case introductory
        case promotional
        case code
        case winBack
    }

    /// Where the purchase stands at the App Store. Only `purchased` transactions
    /// reach the app; pending ones wait for Ask to Buy approval or an action.
    public enum Status: String, Sendable, Hashable {
        case purchased
        case pending
        case declined
    }

    /// What a pending transaction waits for.
    public enum PendingReason: String, Sendable, Hashable {
        /// A parent's approval (`approve` / `decline`).
        case askToBuy
        /// An action of the user's, such as accepting new terms (`resolve`).
        case interrupted
    }

    /// Whether the transaction grants access at `date`: verified, purchased, not
    /// revoked, not upgraded away, and not expired.
    public func isActive(at date: Date) -> Bool {
        guard verification.isVerified, status == .purchased, revocationDate == nil, !isUpgraded else { return false }
        if let expirationDate { return expirationDate > date }
        return productType != .consumable
    }
}

/// The outcome of `Store.purchase`, as StoreKit 2's `Product.PurchaseResult`.
public enum PurchaseResult: Sendable, Hashable {
    /// The purchase went through (or, for an owned non-consumable, was restored for free).
    case success(Transaction)
    case userCancelled
    /// Waiting for Ask to Buy approval or another action; the transaction arrives as an update later.
    case pending(Transaction?)

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
public enum PurchaseOutcome: Sendable, Hashable {
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

/// What an app's Buy button got: the result, and what the app then did with it.
public struct AppPurchase: Sendable, Hashable {
    public var result: PurchaseResult
    /// The product was owned already and was handed back for free, not charged.
    public var alreadyOwned: Bool
    /// The app delivered and finished the transaction (false when `finishTransactions` is off).
    public var isFinished: Bool
    /// What else the App Store did: "upgrade from … at once", "downgrade … takes effect at the next renewal".
    public var note: String? = nil
}

/// What an app does with the transactions waiting for it at launch or on an update.
public struct Delivery: Sendable, Hashable {
    /// Delivered and finished.
    public var finished: [Transaction] = []
    /// Still unfinished: the app "crashed" first (`finishTransactions` false) or got them unverified.
    public var left: [Transaction] = []
}

/// A StoreKit 1 transaction state change, kept in the store file's event log.
public struct TransactionEvent: Sendable, Hashable, Identifiable {
    /// `SKPaymentTransactionState`'s names.
    public enum State: String, Sendable, Hashable, CaseIterable {
        case purchasing
        case purchased
        case failed
        case restored
        case deferred
        /// Not a StoreKit 1 state: the App Store refunded the purchase (StoreKit 2 sets `revocationDate`).
        case revoked
    }

    public var id: Int64
    public var date: Date
    public var account: String
    public var state: State
    public var productID: String
    public var transactionID: Int64?
    /// Extra words: the error's name, "already owned", "finished".
    public var detail: String

    public init(id: Int64, date: Date, account: String, state: State, productID: String, transactionID: Int64?,
                detail: String) {
        self.id = id
        self.date = date
        self.account = account
        self.state = state
        self.productID = productID
        self.transactionID = transactionID
        self.detail = detail
    }
}

/// Why `reset` wipes what it wipes.
public enum ResetScope: String, Sendable, CaseIterable {
    /// The app-side state, as deleting the app would: owned-products cache and consumable balances.
    case app
    /// The account's purchase history, settings and app-side state.
    case account
    /// Everything in the store file.
    case all
}
