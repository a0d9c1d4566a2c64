import Foundation
import StoreCatalog
import StoreSigning

// MARK: - Values

/// Apple's `sendAttemptResult`: how one delivery attempt of a notification ended.
public enum SendAttemptResult: String, Sendable, Hashable, CaseIterable {
    case success = "SUCCESS"
    case timedOut = "TIMED_OUT"
    case tlsIssue = "TLS_ISSUE"
    case circularRedirect = "CIRCULAR_REDIRECT"
    case noResponse = "NO_RESPONSE"
    case socketIssue = "SOCKET_ISSUE"
    case unsupportedCharset = "UNSUPPORTED_CHARSET"
    case invalidResponse = "INVALID_RESPONSE"
    case prematureClose = "PREMATURE_CLOSE"
    case unsuccessfulHTTPResponseCode = "UNSUCCESSFUL_HTTP_RESPONSE_CODE"
    case other = "OTHER"
}

/// One attempt to deliver a notification to one URL.
public struct NotificationAttempt: Sendable, Hashable {
    public var url: String
    /// Store time.
    public var date: Date
    public var result: SendAttemptResult

    public init(url: String, date: Date, result: SendAttemptResult) {
        self.url = url
        self.date = date
        self.result = result
    }
}

/// An App Store Server Notification V2 as the store recorded it: the signed
/// `responseBodyV2` payload, with what it is about and every delivery attempt.
public struct ServerNotification: Sendable, Hashable, Identifiable {
    public var id: Int64
    /// `notificationUUID`.
    public var uuid: String
    /// The account it concerns ('' for TEST).
    public var account: String
    /// `notificationType` as recorded (Apple's raw value: SUBSCRIBED, DID_RENEW, …; a newer
    /// build's type survives an older one's reading).
    public var type: String
    /// `subtype` as recorded, when the type has one.
    public var subtype: String?
    public var transactionID: Int64?
    public var originalTransactionID: Int64?
    /// `signedDate`, store time.
    public var signedDate: Date
    /// The JWS POSTed as `{"signedPayload": …}`.
    public var signedPayload: String
    /// For TEST: the token the Server API handed out.
    public var testNotificationToken: String?
    /// Every delivery attempt, oldest first.
    public var attempts: [NotificationAttempt] = []

    /// `type`, typed: nil for a type this build does not know.
    public var notificationType: NotificationType? { NotificationType(rawValue: type) }

    /// `subtype`, typed.
    public var notificationSubtype: NotificationSubtype? { subtype.flatMap(NotificationSubtype.init(rawValue:)) }

    /// Whether some receiver has had it.
    public var isDelivered: Bool { attempts.contains { $0.result == .success } }

    /// Memberwise, for the targets above this one.
    package init(id: Int64, uuid: String, account: String, type: String, subtype: String? = nil, transactionID: Int64? = nil, originalTransactionID: Int64? = nil, signedDate: Date, signedPayload: String, testNotificationToken: String? = nil, attempts: [NotificationAttempt] = []) {
        self.id = id
        self.uuid = uuid
        self.account = account
        self.type = type
        self.subtype = subtype
        self.transactionID = transactionID
        self.originalTransactionID = originalTransactionID
        self.signedDate = signedDate
        self.signedPayload = signedPayload
        self.testNotificationToken = testNotificationToken
        self.attempts = attempts
    }
}

/// What a notification history request asks for.
public struct NotificationFilter: Sendable, Hashable {
    public var startDate: Date?
    public var endDate: Date?
    public var type: String?
    public var subtype: String?
    /// Only notifications about this transaction (or subscription).
    public var transactionID: Int64?
    /// Only notifications of the customer who made this transaction, about any of their
    /// purchases (Get Notification History's `transactionId`).
    public var customerTransactionID: Int64?
    package var originalTransactionID: Int64?
    package var account: String?
    public var onlyFailures = false

    public init(startDate: Date? = nil, endDate: Date? = nil, type: String? = nil, subtype: String? = nil,
                transactionID: Int64? = nil, onlyFailures: Bool = false) {
        (self.startDate, self.endDate, self.type, self.subtype) = (startDate, endDate, type, subtype)
        (self.transactionID, self.onlyFailures) = (transactionID, onlyFailures)
    }
}

/// The Get Transaction History query: filters and sort.
public struct HistoryQuery: Sendable, Hashable {
    public var ascending = true
    public var startDate: Date?
    public var endDate: Date?
    public var productIDs: [String] = []
    public var productTypes: [ProductType] = []
    public var subscriptionGroupIDs: [String] = []
    /// Only purchases or only family members' shares.
    public var ownershipType: Transaction.OwnershipType?
    public var revoked: Bool?
    /// Get Transaction History v1: no consumable the app has finished, unless refunded or revoked.
    public var excludesFinishedConsumables = false

    public init() {}
}

/// One page of a customer's history: up to the page size, and whether more follow.
public struct HistoryPage: Sendable {
    public var transactions: [Transaction]
    public var hasMore: Bool
    /// The history revision to continue after (the last change listed, before it is made a token).
    public var lastID: Int64?

    /// Memberwise, for the targets above this one.
    package init(transactions: [Transaction], hasMore: Bool, lastID: Int64? = nil) {
        self.transactions = transactions
        self.hasMore = hasMore
        self.lastID = lastID
    }
}

/// A Server API key: its id, the issuer, and the public half of the ES256 key that signs tokens.
public struct APIKey: Sendable, Hashable {
    public var keyID: String
    public var issuerID: String
    public var publicKeyPEM: String
    public var created: Date

    public init(keyID: String, issuerID: String, publicKeyPEM: String, created: Date) {
        (self.keyID, self.issuerID, self.publicKeyPEM, self.created) = (keyID, issuerID, publicKeyPEM, created)
    }
}
