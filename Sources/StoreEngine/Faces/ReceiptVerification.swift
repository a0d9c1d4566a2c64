import Foundation

/// verifyReceipt's `status`: Apple's codes for the legacy receipt endpoint.
public enum VerifyReceiptStatus: Int, Sendable, Hashable, CaseIterable {
    /// The receipt is valid.
    case valid = 0
    /// The request was not a POST of a JSON object.
    case unreadableRequest = 21000
    /// `receipt-data` is missing or malformed (not base64, not PKCS#7, no receipt inside).
    case malformedReceipt = 21002
    /// The receipt could not be authenticated (its signature or chain against this store's root).
    case notAuthenticated = 21003
    /// The shared secret does not match the one on file (`sharedSecret`), for a receipt with subscriptions.
    case sharedSecretMismatch = 21004
    /// The receipt server is not available (never answered here).
    case serverUnavailable = 21005
    /// iOS 6-style transaction receipts only (never answered here: app receipts only).
    case subscriptionExpired = 21006
    /// A sandbox receipt sent to the production endpoint.
    case sandboxReceiptSentToProduction = 21007
    /// A production receipt sent to the sandbox endpoint.
    case productionReceiptSentToSandbox = 21008
    /// An internal data access error (the store file could not be read).
    case internalDataAccessError = 21009
    /// The account of the receipt's purchases is not in the store (deleted, or another store file).
    case accountNotFound = 21010
}

/// What verifyReceipt decided about one receipt: its status and, when valid, the facts its
/// answer shows. The server only writes them as Apple's JSON.
public struct ReceiptVerification: Sendable, Hashable {
    public var status: VerifyReceiptStatus
    /// The environment of the endpoint asked, or of the receipt once read (`Production`, `Sandbox`).
    public var environment: String
    /// The receipt as it was sent (nil when it could not be read).
    public var receipt: AppReceipt?
    /// When the request was answered (store time).
    public var requestDate: Date
    /// Whether the receipt holds an auto-renewable subscription: only then do
    /// ``latestTransactions``, ``latestReceipt`` and ``renewalInfo`` come back, as Apple's.
    public var hasAutoRenewable = false
    /// The customer's purchases now, newest first (finished consumables left out); with
    /// `exclude-old-transactions`, a subscription's newest transaction only.
    public var latestTransactions: [Transaction] = []
    /// A receipt made now for the same customer (PKCS#7 DER).
    public var latestReceipt: [UInt8]?
    /// The customer's subscriptions' renewal information, one per group.
    public var renewalInfo: [RenewalInfo] = []
    /// Why the status is not 0, in words (for the log; Apple's body has none).
    public var reason: String?

    public init(status: VerifyReceiptStatus, environment: String, receipt: AppReceipt? = nil, requestDate: Date, reason: String? = nil) {
        self.status = status
        self.environment = environment
        self.receipt = receipt
        self.requestDate = requestDate
        self.reason = reason
    }
}

/// Which of Apple's two verifyReceipt hosts a request stands for.
public enum VerifyReceiptEndpoint: String, Sendable, Hashable {
    /// `buy.itunes.apple.com`: sandbox receipts get 21007.
    case production = "Production"
    /// `sandbox.itunes.apple.com`: production receipts get 21008.
    case sandbox = "Sandbox"
}

/// The test receipt an `SKReceiptRefreshRequest` asks for (its `receiptProperties`, sandbox only).
public struct ReceiptProperties: OptionSet, Sendable, Hashable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    /// `SKReceiptPropertyIsExpired`: the receipt's expiration date (field 21) has passed.
    public static let expired = ReceiptProperties(rawValue: 1)
    /// `SKReceiptPropertyIsVolumePurchase`: a Volume Purchase Program receipt (`ProductionVPPSandbox`).
    public static let volumePurchase = ReceiptProperties(rawValue: 2)
}
