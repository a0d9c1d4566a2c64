import Foundation

extension Transaction {
    /// The JWS payload of this transaction, with the field names and values of
    /// Apple's decoded transaction payload (`JWSTransactionDecodedPayload`):
    /// dates in milliseconds since 1970, the price in milliunits. One field is the
    /// simulator's own: `sandboxAccount`, so that a row moved to another account in
    /// the store file no longer verifies (store files of schema 1 were signed without it).
    public func signedPayload(bundleID: String, signedDate: Date, includingAccount: Bool = true) -> JSON {
        .object([
            "transactionId": .string(String(id)),
            "originalTransactionId": .string(String(originalID)),
            "bundleId": .string(bundleID),
            "productId": .string(productID),
            "subscriptionGroupIdentifier": subscriptionGroupID.map { .string($0) },
            "purchaseDate": .integer(purchaseDate.milliseconds),
            "originalPurchaseDate": .integer(originalPurchaseDate.milliseconds),
            "expiresDate": expirationDate.map { .integer($0.milliseconds) },
            "quantity": .integer(purchasedQuantity),
            "type": .string(productType.appStoreName),
            "appAccountToken": appAccountToken.map { .string($0.uuidString.lowercased()) },
            "inAppOwnershipType": .string(ownershipType == .purchased ? "PURCHASED" : "FAMILY_SHARED"),
            "signedDate": .integer(signedDate.milliseconds),
            "revocationDate": revocationDate.map { .integer($0.milliseconds) },
            "revocationReason": revocationReason.map { .integer($0 == .developerIssue ? 1 : 0) },
            "isUpgraded": isUpgraded ? .bool(true) : nil,
            "offerType": offerType.map { .integer($0.appStoreCode) },
            "offerIdentifier": offerID.map { .string($0) },
            "environment": .string(environment.appStoreName),
            "transactionReason": .string(reason == .renew ? "RENEWAL" : "PURCHASE"),
            "storefront": .string(storefront),
            "price": .integer(NSDecimalNumber(decimal: price * 1000).int64Value),
            "currency": .string(currency),
            "sandboxAccount": includingAccount ? .string(account) : nil,
        ])
    }
}

extension ProductType {
    /// The `type` string of Apple's payloads.
    var appStoreName: String {
        switch self {
        case .consumable: "Consumable"
        case .nonConsumable: "Non-Consumable"
        case .nonRenewable: "Non-Renewing Subscription"
        case .autoRenewable: "Auto-Renewable Subscription"
        }
    }
}

extension Transaction.AppStoreEnvironment {
    /// The `environment` string of Apple's payloads.
    var appStoreName: String {
        switch self {
        case .production: "Production"
        case .sandbox: "Sandbox"
        case .xcode: "Xcode"
        }
    }
}

extension Transaction.OfferType {
    /// The `offerType` number of Apple's payloads.
    var appStoreCode: Int {
        switch self {
        case .introductory: 1
        case .promotional: 2
        case .code: 3
        case .winBack: 4
        }
    }
}
