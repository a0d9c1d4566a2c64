import Foundation

extension AppStoreFace {
    /// Apple's legacy verifyReceipt (`POST /verifyReceipt`) for any account of the store file:
    /// the status as Apple's codes and, when valid, the receipt and the customer's purchases now.
    /// - Parameters:
    ///   - receiptData: `receipt-data`, the receipt's base64.
    ///   - password: `password`, the shared secret (checked for receipts with subscriptions).
    ///   - excludeOldTransactions: `exclude-old-transactions`: a subscription's newest transaction only.
    ///   - endpoint: which of Apple's hosts the request stands for.
    public func verifyReceipt(receiptData: String, password: String?, excludeOldTransactions: Bool,
                              endpoint: VerifyReceiptEndpoint) async throws -> ReceiptVerification {
        try await store.verifyReceipt(receiptData: receiptData, password: password,
                                      excludeOldTransactions: excludeOldTransactions, endpoint: endpoint)
    }
}
