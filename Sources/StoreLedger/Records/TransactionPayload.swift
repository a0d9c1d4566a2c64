import Foundation
import StoreCatalog
import StoreSigning

/// Which fields a store file's schema signed in a transaction's payload: each
/// schema is judged by its own rule (the doctor reads older files as they are).
public enum PayloadRule: Sendable, Hashable, CaseIterable {
    /// Schemas 1–3: Apple's fields of the time, without the account.
    case withoutAccount
    /// Schema 4: with `sandboxAccount`.
    case withAccount
    /// Schema 5: with `sandboxAccount` and Apple's later fields (`webOrderLineItemId`,
    /// `storefrontId`, `appTransactionId`, `offerDiscountType`, `offerPeriod`), signed with `x5c`.
    case current

    /// The rule the given schema version signed with.
    public static func forSchema(_ version: Int64) -> PayloadRule {
        version >= 5 ? .current : version == 4 ? .withAccount : .withoutAccount
    }
}

extension Transaction {
    /// The JWS payload of this transaction, with the field names and values of
    /// Apple's decoded transaction payload (`JWSTransactionDecodedPayload`):
    /// dates in milliseconds since 1970, the price in milliunits. One field is the
    /// simulator's own: `sandboxAccount`, so that a row moved to another account in
    /// the store file no longer verifies. `rule` gives the fields of older schemas.
    /// A change to the current fields changes ``Ledger/verifiedMarkRule`` too (or signs every row anew).
    public func signedPayload(bundleID: String, signedDate: Date, rule: PayloadRule = .current) -> JSON {
        let current = rule == .current
        return .object([
            "transactionId": .string(String(id)),
            "originalTransactionId": .string(String(originalID)),
            "webOrderLineItemId": current && productType == .autoRenewable ? .string(webOrderLineItemID) : nil,
            "bundleId": .string(bundleID),
            "productId": .string(productID),
            "subscriptionGroupIdentifier": subscriptionGroupID.map { .string($0) },
            "purchaseDate": .integer(purchaseDate.milliseconds),
            "originalPurchaseDate": .integer(originalPurchaseDate.milliseconds),
            "expiresDate": expirationDate.map { .integer($0.milliseconds) },
            "quantity": .integer(purchasedQuantity),
            "type": .string(productType.appStoreName),
            "appAccountToken": appAccountToken.map { .string($0.uuidString.lowercased()) },
            "inAppOwnershipType": .string(ownershipType.appStoreName),
            "signedDate": .integer(signedDate.milliseconds),
            "revocationDate": revocationDate.map { .integer($0.milliseconds) },
            "revocationReason": revocationReason.map { .integer($0.appStoreCode) },
            "revocationType": current ? revocationType.map { .string($0.rawValue) } : nil,
            "revocationPercentage": current ? revocationPercentage.map { .integer($0) } : nil,
            "isUpgraded": isUpgraded ? .bool(true) : nil,
            "offerType": offerType.map { .integer($0.appStoreCode) },
            "offerIdentifier": offerID.map { .string($0) },
            "offerDiscountType": current ? offerDiscountType.map(JSON.string) : nil,
            "offerPeriod": current ? offerPeriod.map { .string($0.description) } : nil,
            "environment": .string(environment.appStoreName),
            "transactionReason": .string(reason == .renewal ? "RENEWAL" : "PURCHASE"),
            "storefront": .string(storefront),
            "storefrontId": current ? AppStoreStorefront.named(storefront).map { .string($0.id) } : nil,
            "price": .integer(NSDecimalNumber(decimal: price * 1000).int64Value),
            "currency": .string(currency),
            "appTransactionId": current ? .string(AppTransactionID.make(account: account, bundleID: bundleID)) : nil,
            "sandboxAccount": rule != .withoutAccount ? .string(account) : nil,
            // A monthly plan's period only: an up-front transaction's payload stays as every earlier build signed it.
            "billingPlanType": current ? commitment.map { .string($0.billingPlanType.rawValue) } : nil,
            "commitmentInfo": current ? commitment?.payload : nil,
        ])
    }

    /// `webOrderLineItemId`: one per subscription period. Each period (a purchase, a
    /// renewal, an upgrade) is its own transaction, so it is derived from the
    /// transaction's id; re-signing a transaction (a refund) keeps it.
    public var webOrderLineItemID: String { String(Self.webOrderLineItemBase + id) }

    static let webOrderLineItemBase: Int64 = 1_000_000_000_000_000

    /// `offerDiscountType`: the offer's payment mode; `ONE_TIME` for an offer (code) on a consumable,
    /// non-consumable or non-renewing subscription, as Apple signs it.
    public var offerDiscountType: String? {
        offerPaymentMode?.offerDiscountType ?? (offerType != nil && productType != .autoRenewable ? "ONE_TIME" : nil)
    }

    /// Records the offer a transaction uses (`offerDiscountType`, `offerPeriod`): its
    /// payment mode and whole length — `count` periods when paid as you go. Nil clears it.
    public mutating func applyOffer(mode: PaymentMode?, period: ISODuration?, count: Int) {
        offerPaymentMode = mode
        offerPeriod = mode == .payAsYouGo ? period?.times(max(count, 1)) : period
    }
}

/// Apple's `appTransactionId`: one per Apple Account and app, the same for every
/// purchase, across reinstalls and storefronts. Here: a number made from the
/// sandbox account and the bundle id (SHA-256), stable for the store's life.
public enum AppTransactionID {
    /// The id for `account` in the app `bundleID`.
    public static func make(account: String, bundleID: String) -> String {
        let input = Array("appTransaction\u{0}\(bundleID)\u{0}\(account)".utf8)
        let digest = Digest.sha256(input)
        let value = digest.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) } >> 5  // 59 bits: up to 18 digits
        return String(value)
    }
}

extension PaymentMode {
    /// The `offerDiscountType` string of Apple's payloads.
    public var offerDiscountType: String {
        switch self {
        case .freeTrial: "FREE_TRIAL"
        case .payAsYouGo: "PAY_AS_YOU_GO"
        case .payUpFront: "PAY_UP_FRONT"
        }
    }
}

extension ISODuration {
    /// This duration `count` times over (a pay-as-you-go offer's whole length).
    public func times(_ count: Int) -> ISODuration {
        ISODuration(years: years * count, months: months * count, weeks: weeks * count, days: days * count,
                    hours: hours * count, minutes: minutes * count, seconds: seconds * count)
    }
}

extension ProductType {
    /// The `type` string of Apple's payloads.
    package var appStoreName: String {
        switch self {
        case .consumable: "Consumable"
        case .nonConsumable: "Non-Consumable"
        case .nonRenewable: "Non-Renewing Subscription"
        case .autoRenewable: "Auto-Renewable Subscription"
        }
    }

    /// The `productType` query value of Apple's Get Transaction History.
    package var historyFilterName: String {
        switch self {
        case .consumable: "CONSUMABLE"
        case .nonConsumable: "NON_CONSUMABLE"
        case .nonRenewable: "NON_RENEWABLE"
        case .autoRenewable: "AUTO_RENEWABLE"
        }
    }
}

extension Transaction.OwnershipType {
    /// The `inAppOwnershipType` string of Apple's payloads and queries (verifyReceipt's `in_app_ownership_type`).
    package var appStoreName: String {
        switch self {
        case .purchased: "PURCHASED"
        case .familyShared: "FAMILY_SHARED"
        }
    }
}

extension CaseIterable {
    /// The case whose `name` is `text`: one of Apple's strings read back into its type.
    package static func named(_ text: String, by name: (Self) -> String) -> Self? {
        allCases.first { name($0) == text }
    }
}

extension Transaction.AppStoreEnvironment {
    /// The `environment` string of Apple's payloads.
    package var appStoreName: String {
        switch self {
        case .production: "Production"
        case .sandbox: "Sandbox"
        case .xcode: "Xcode"
        case .localTesting: "LocalTesting"
        }
    }
}

extension Transaction.OfferType {
    /// The `offerType` number of Apple's payloads.
    package var appStoreCode: Int {
        switch self {
        case .introductory: 1
        case .promotional: 2
        case .code: 3
        case .winBack: 4
        }
    }
}
