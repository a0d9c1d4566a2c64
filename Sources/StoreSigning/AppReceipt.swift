import COpenSSL
import Foundation
import StoreCatalog

/// The payload of an app receipt (StoreKit 1's `Bundle.main.appStoreReceiptURL`), with the
/// fields of Apple's "Receipt Fields" page, in Apple's ASN.1 form: a SET of
/// `ReceiptAttribute ::= SEQUENCE { type INTEGER, version INTEGER, value OCTET STRING }`,
/// each value the DER of its own type (UTF8STRING, IA5STRING dates in RFC 3339, INTEGER),
/// one type-17 attribute for each in-app purchase, whose value is a SET of the same form.
///
/// Encoded and decoded with OpenSSL's libcrypto (`ASN1_SET_ANY`, `ASN1_SEQUENCE_ANY`,
/// `ASN1_TYPE`), DER throughout: the SETs are sorted as DER sorts them, which Apple's are
/// not; a reader that looks attributes up by type, as Apple tells it to, sees no difference.
public struct AppReceipt: Sendable, Hashable {
    /// Field 0, which Apple does not document: `Production` or `ProductionSandbox`
    /// (verifyReceipt's `receipt_type`).
    public var receiptType: String
    /// Field 2 (UTF8STRING): `CFBundleIdentifier`.
    public var bundleID: String
    /// Field 3 (UTF8STRING): `CFBundleVersion`; "1.0" in the sandbox.
    public var appVersion: String
    /// Field 4 (bytes): the opaque value the SHA-1 hash covers.
    public var opaqueValue: [UInt8]
    /// Field 5 (20 bytes): SHA-1 of the device identifier, the opaque value and field 2's value.
    public var sha1Hash: [UInt8]
    /// Field 12 (IA5STRING, RFC 3339): when the receipt was made.
    public var creationDate: Date
    /// Field 18 (IA5STRING), which Apple does not document: when the app was first bought
    /// (verifyReceipt's `original_purchase_date`).
    public var originalPurchaseDate: Date?
    /// Field 19 (UTF8STRING): the version first bought; "1.0" in the sandbox.
    public var originalAppVersion: String
    /// Field 21 (IA5STRING): the receipt's expiry (Volume Purchase Program only).
    public var expirationDate: Date?
    /// Field 17, once per purchase.
    public var inAppPurchases: [InAppPurchase]

    public init(receiptType: String, bundleID: String, appVersion: String, opaqueValue: [UInt8], sha1Hash: [UInt8],
                creationDate: Date, originalPurchaseDate: Date?, originalAppVersion: String, expirationDate: Date? = nil,
                inAppPurchases: [InAppPurchase]) {
        self.receiptType = receiptType
        self.bundleID = bundleID
        self.appVersion = appVersion
        self.opaqueValue = opaqueValue
        self.sha1Hash = sha1Hash
        self.creationDate = creationDate
        self.originalPurchaseDate = originalPurchaseDate
        self.originalAppVersion = originalAppVersion
        self.expirationDate = expirationDate
        self.inAppPurchases = inAppPurchases
    }

    /// One in-app purchase receipt (field 17's value), Apple's fields 1701–1721.
    public struct InAppPurchase: Sendable, Hashable {
        /// 1701 (INTEGER).
        public var quantity: Int
        /// 1702 (UTF8STRING).
        public var productID: String
        /// 1703 (UTF8STRING).
        public var transactionID: String
        /// 1704 (IA5STRING).
        public var purchaseDate: Date
        /// 1705 (UTF8STRING).
        public var originalTransactionID: String
        /// 1706 (IA5STRING).
        public var originalPurchaseDate: Date
        /// 1707 (INTEGER), which Apple does not document but its receipts carry:
        /// 0 non-consumable, 1 consumable, 2 non-renewing, 3 auto-renewable.
        public var productType: Int?
        /// 1708 (IA5STRING): auto-renewable subscriptions only.
        public var subscriptionExpirationDate: Date?
        /// 1711 (INTEGER): auto-renewable subscriptions only.
        public var webOrderLineItemID: Int64?
        /// 1712 (IA5STRING): refunded or revoked purchases only.
        public var cancellationDate: Date?
        /// 1713 (INTEGER 0 or 1): auto-renewable subscriptions only.
        public var isTrialPeriod: Bool?
        /// 1719 (INTEGER 0 or 1): auto-renewable subscriptions only.
        public var isInIntroOfferPeriod: Bool?
        /// 1721 (UTF8STRING): the promotional offer redeemed, if any.
        public var promotionalOfferID: String?

        public init(quantity: Int, productID: String, transactionID: String, purchaseDate: Date,
                    originalTransactionID: String, originalPurchaseDate: Date, productType: Int? = nil,
                    subscriptionExpirationDate: Date? = nil, webOrderLineItemID: Int64? = nil, cancellationDate: Date? = nil,
                    isTrialPeriod: Bool? = nil, isInIntroOfferPeriod: Bool? = nil, promotionalOfferID: String? = nil) {
            self.quantity = quantity
            self.productID = productID
            self.transactionID = transactionID
            self.purchaseDate = purchaseDate
            self.originalTransactionID = originalTransactionID
            self.originalPurchaseDate = originalPurchaseDate
            self.productType = productType
            self.subscriptionExpirationDate = subscriptionExpirationDate
            self.webOrderLineItemID = webOrderLineItemID
            self.cancellationDate = cancellationDate
            self.isTrialPeriod = isTrialPeriod
            self.isInIntroOfferPeriod = isInIntroOfferPeriod
            self.promotionalOfferID = promotionalOfferID
        }
    }

    /// Apple's field types.
    public enum Field {
        public static let receiptType = 0, bundleID = 2, appVersion = 3, opaqueValue = 4, sha1Hash = 5
        public static let creationDate = 12, inAppPurchase = 17, originalPurchaseDate = 18, originalAppVersion = 19
        public static let expirationDate = 21
        public static let quantity = 1701, productID = 1702, transactionID = 1703, purchaseDate = 1704
        public static let originalTransactionID = 1705, originalPurchaseDate1706 = 1706, productType = 1707
        public static let subscriptionExpirationDate = 1708, webOrderLineItemID = 1711, cancellationDate = 1712
        public static let isTrialPeriod = 1713, isInIntroOfferPeriod = 1719, promotionalOfferID = 1721
    }

    /// The SHA-1 hash of field 5, as Apple computes it: the device identifier's 16 bytes, the
    /// opaque value, then field 2's value (the UTF8STRING's whole DER encoding).
    public static func sha1Hash(deviceIdentifier: UUID, opaqueValue: [UInt8], bundleID: String) throws(VerificationFailure) -> [UInt8] {
        let device = withUnsafeBytes(of: deviceIdentifier.uuid) { Array($0) }
        let input = device + opaqueValue + (try ReceiptASN1.der(of: .utf8(bundleID)))
        var digest = [UInt8](repeating: 0, count: Int(SHA_DIGEST_LENGTH))
        SHA1(input, input.count, &digest)
        return digest
    }

    // MARK: - Encoding

    /// The payload's DER: the SET of attributes that the PKCS#7 envelope signs.
    public func der() throws(VerificationFailure) -> [UInt8] {
        var attributes: [(Int, ReceiptASN1.Value)] = [
            (Field.receiptType, .utf8(receiptType)), (Field.bundleID, .utf8(bundleID)), (Field.appVersion, .utf8(appVersion)),
            (Field.opaqueValue, .bytes(opaqueValue)), (Field.sha1Hash, .bytes(sha1Hash)),
            (Field.creationDate, .date(creationDate)), (Field.originalAppVersion, .utf8(originalAppVersion)),
        ]
        if let originalPurchaseDate { attributes.append((Field.originalPurchaseDate, .date(originalPurchaseDate))) }
        if let expirationDate { attributes.append((Field.expirationDate, .date(expirationDate))) }
        for purchase in inAppPurchases { attributes.append((Field.inAppPurchase, .bytes(try purchase.der()))) }
        return try ReceiptASN1.set(attributes)
    }

    /// Reads a payload's DER; attributes of types Apple does not document are skipped, as it asks.
    public init(der: [UInt8]) throws(VerificationFailure) {
        let fields = try ReceiptASN1.attributes(der)
        func text(_ type: Int) throws(VerificationFailure) -> String {
            guard let value = fields.first(where: { $0.type == type })?.value else { throw ReceiptASN1.missing(type) }
            return try ReceiptASN1.string(value, type)
        }
        func date(_ type: Int) throws(VerificationFailure) -> Date? {
            guard let value = fields.first(where: { $0.type == type })?.value else { return nil }
            return try ReceiptASN1.date(value, type)
        }
        func bytes(_ type: Int) -> [UInt8] { fields.first { $0.type == type }?.value ?? [] }
        guard let created = try date(Field.creationDate) else { throw ReceiptASN1.missing(Field.creationDate) }
        var purchases: [InAppPurchase] = []
        for field in fields where field.type == Field.inAppPurchase { purchases.append(try InAppPurchase(der: field.value)) }
        self.init(receiptType: (try? text(Field.receiptType)) ?? "", bundleID: try text(Field.bundleID),
                  appVersion: try text(Field.appVersion), opaqueValue: bytes(Field.opaqueValue), sha1Hash: bytes(Field.sha1Hash),
                  creationDate: created, originalPurchaseDate: try date(Field.originalPurchaseDate),
                  originalAppVersion: try text(Field.originalAppVersion), expirationDate: try date(Field.expirationDate),
                  inAppPurchases: purchases)
    }
}

extension AppReceipt.InAppPurchase {
    typealias Field = AppReceipt.Field

    /// The in-app purchase's SET of attributes.
    func der() throws(VerificationFailure) -> [UInt8] {
        var attributes: [(Int, ReceiptASN1.Value)] = [
            (Field.quantity, .integer(Int64(quantity))), (Field.productID, .utf8(productID)),
            (Field.transactionID, .utf8(transactionID)), (Field.purchaseDate, .date(purchaseDate)),
            (Field.originalTransactionID, .utf8(originalTransactionID)), (Field.originalPurchaseDate1706, .date(originalPurchaseDate)),
        ]
        if let productType { attributes.append((Field.productType, .integer(Int64(productType)))) }
        if let subscriptionExpirationDate { attributes.append((Field.subscriptionExpirationDate, .date(subscriptionExpirationDate))) }
        if let webOrderLineItemID { attributes.append((Field.webOrderLineItemID, .integer(webOrderLineItemID))) }
        if let cancellationDate { attributes.append((Field.cancellationDate, .date(cancellationDate))) }
        if let isTrialPeriod { attributes.append((Field.isTrialPeriod, .integer(isTrialPeriod ? 1 : 0))) }
        if let isInIntroOfferPeriod { attributes.append((Field.isInIntroOfferPeriod, .integer(isInIntroOfferPeriod ? 1 : 0))) }
        if let promotionalOfferID { attributes.append((Field.promotionalOfferID, .utf8(promotionalOfferID))) }
        return try ReceiptASN1.set(attributes)
    }

    /// Reads one in-app purchase receipt (field 17's value).
    init(der: [UInt8]) throws(VerificationFailure) {
        let fields = try ReceiptASN1.attributes(der)
        func value(_ type: Int) throws(VerificationFailure) -> [UInt8] {
            guard let found = fields.first(where: { $0.type == type }) else { throw ReceiptASN1.missing(type) }
            return found.value
        }
        func optional(_ type: Int) -> [UInt8]? { fields.first { $0.type == type }?.value }
        func integer(_ type: Int) throws(VerificationFailure) -> Int64? {
            guard let found = optional(type) else { return nil }
            return try ReceiptASN1.integer(found, type)
        }
        func date(_ type: Int) throws(VerificationFailure) -> Date? {
            guard let found = optional(type) else { return nil }
            return try ReceiptASN1.date(found, type)
        }
        guard let quantity = try integer(Field.quantity), let purchased = try date(Field.purchaseDate),
              let original = try date(Field.originalPurchaseDate1706) else {
            throw ReceiptASN1.missing(Field.quantity)
        }
        guard let count = Int(exactly: quantity) else { throw ReceiptASN1.failure("field 1701's quantity is out of range") }
        var offerID: String?
        if let found = optional(Field.promotionalOfferID) { offerID = try ReceiptASN1.string(found, Field.promotionalOfferID) }
        var productType: Int?
        if let found = try integer(Field.productType) { productType = Int(exactly: found) }
        self.init(quantity: count, productID: try ReceiptASN1.string(try value(Field.productID), Field.productID),
                  transactionID: try ReceiptASN1.string(try value(Field.transactionID), Field.transactionID),
                  purchaseDate: purchased,
                  originalTransactionID: try ReceiptASN1.string(try value(Field.originalTransactionID), Field.originalTransactionID),
                  originalPurchaseDate: original, productType: productType,
                  subscriptionExpirationDate: try date(Field.subscriptionExpirationDate),
                  webOrderLineItemID: try integer(Field.webOrderLineItemID), cancellationDate: try date(Field.cancellationDate),
                  isTrialPeriod: try integer(Field.isTrialPeriod).map { $0 != 0 },
                  isInIntroOfferPeriod: try integer(Field.isInIntroOfferPeriod).map { $0 != 0 },
                  promotionalOfferID: offerID)
    }
}
