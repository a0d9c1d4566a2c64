import StorefrontKit

// Transaction: OfferType (Int raw values), Offer.paymentMode and period, appBundleID,
// webOrderLineItemID, appTransactionID, currency, deviceVerification(Nonce);
// Product.latestTransaction, currentEntitlement, jsonRepresentation.
struct TransactionFacts {
    var offerType: Transaction.OfferType?
    var isWinBack: Bool
    var offerPeriod: Product.SubscriptionPeriod?
    var isFreeTrial: Bool
    var bundleID: String
    var lineItem: String?
    var appTransactionID: String
    var currencyCode: String?
    var verification: Data
    var nonce: UUID

    init(_ transaction: Transaction) {
        offerType = transaction.offerType
        isWinBack = transaction.offer?.type == .winBack || transaction.offerType?.rawValue == 4
        offerPeriod = transaction.offer?.period
        isFreeTrial = transaction.offer?.paymentMode == .freeTrial
        bundleID = transaction.appBundleID
        lineItem = transaction.webOrderLineItemID
        appTransactionID = transaction.appTransactionID
        currencyCode = transaction.currency?.identifier
        verification = transaction.deviceVerification
        nonce = transaction.deviceVerificationNonce
    }
}

enum ProductHistory {
    static func lastBought(_ product: Product) async -> Date? {
        guard case .verified(let transaction) = await product.latestTransaction else { return nil }
        return transaction.purchaseDate
    }

    static func isEntitled(to product: Product) async -> Bool {
        if case .verified(let transaction)? = await product.currentEntitlement { return transaction.revocationDate == nil }
        return false
    }

    static func json(of product: Product) -> [String: Any]? {
        try? JSONSerialization.jsonObject(with: product.jsonRepresentation) as? [String: Any]
    }
}
