import Foundation
import StoreCatalog
import StoreSigning

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
    /// A monthly plan's billing period: its place in the 12-month commitment; nil when billed up front.
    public var commitment: TransactionCommitment?
    /// The share of a refund the App Store gave back, in milliunits, as the refund chose it (100000:
    /// the whole); nil when not refunded, or refunded before the share was kept (``revocationPercentage``).
    public var refundPercentage: Int?
    /// The simulated `verificationError` this copy reached the app with. Not stored:
    /// the next read of the transaction verifies it again.
    public var simulatedVerificationError: SimulatedError?

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
    public enum RevocationReason: String, Sendable, Hashable, CaseIterable {
        case developerIssue
        case other

        /// The `revocationReason` number of Apple's payloads (verifyReceipt's `cancellation_reason`).
        package var appStoreCode: Int { self == .developerIssue ? 1 : 0 }
    }

    /// `Transaction.OwnershipType`.
    public enum OwnershipType: String, Sendable, Hashable, CaseIterable {
        case purchased
        case familyShared
    }

    /// `AppStore.Environment`.
    public enum AppStoreEnvironment: String, Sendable, Hashable, CaseIterable {
        case production
        case sandbox
        case xcode
        /// Unit tests' environment (Apple's `LocalTesting`): data a verifier does not check.
        case localTesting

        /// The environment an `environment` setting value names (`Xcode`, `Sandbox`,
        /// `Production`, `LocalTesting`, as Apple's payloads spell them).
        public init?(appStoreName: String) {
            guard let match = Self.allCases.first(where: { $0.appStoreName.lowercased() == appStoreName.lowercased() }) else { return nil }
            self = match
        }
    }

    /// `Transaction.Reason`: a purchase made by the user, or an automatic renewal
    /// (StoreKit 2's `renewal`; the store file keeps `renew`, as it always has).
    public enum Reason: String, Sendable, Hashable {
        case purchase
        case renewal
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

    /// Marks this copy as having reached the app unverified by a simulated `verificationError`.
    package mutating func markUnverified(by error: SimulatedError) {
        verification = .unverified(reason: "\(error.rawValue) (simulated by verificationError)")
        simulatedVerificationError = error
    }

    /// Whether the transaction grants access at `date`: verified, purchased, not
    /// revoked, not upgraded away, and not expired. A non-renewing subscription has no
    /// expiry the App Store keeps (older store files may have one): it stays until revoked,
    /// and the app decides when its access ends.
    public func isActive(at date: Date) -> Bool {
        guard verification.isVerified, status == .purchased, revocationDate == nil, !isUpgraded else { return false }
        if productType == .nonRenewable { return true }
        if let expirationDate { return expirationDate > date }
        return productType != .consumable
    }
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
        /// Not a StoreKit 1 state: a subscription ended (expired now, auto-renew off, billing given up).
        case expired
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
