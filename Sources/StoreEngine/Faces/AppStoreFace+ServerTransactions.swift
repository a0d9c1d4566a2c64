import Foundation

extension AppStoreFace {
    /// The app transaction of the customer that a transaction id, original transaction id or
    /// `appTransactionId` belongs to, signed now (Get App Transaction Info); nil when none does.
    public func appTransaction(ofCustomerWith id: String) async throws -> AppTransaction? {
        try await store.appTransaction(ofCustomerWith: id)
    }

    /// Whether `id` is a customer's `appTransactionId` and no transaction's (an endpoint that takes
    /// transaction ids only answers it with Apple's `AppTransactionIdNotSupportedError`).
    public func isAppTransactionID(_ id: Int64) async throws -> Bool { try await store.isAppTransactionID(id) }

    /// Sets (or replaces) the `appAccountToken` of a purchase and its renewals, each signed
    /// again (Set App Account Token). Throws ``ServerTransactionError`` for an unknown id, a
    /// family member's transaction, or an id that is not an original transaction id.
    public func setAppAccountToken(_ token: UUID, originalTransactionID: Int64) async throws {
        try await store.setAppAccountToken(token, originalTransactionID: originalTransactionID)
    }

    /// Finishes a transaction for the app, as its `finish()` does (Finish Transaction): it stops
    /// arriving as unfinished. Throws ``ServerTransactionError/transactionNotFound``.
    public func finishTransaction(_ transactionID: Int64) async throws {
        try await store.finishFromServer(transactionID: transactionID)
    }

    /// The `appAppleId` signed payloads and the Server API's answers carry now: the
    /// `appAppleId` setting's, in Production only (Apple sends none in Sandbox and Xcode).
    public func payloadAppAppleID() async throws -> Int64? { try await store.payloadAppAppleID() }
}
