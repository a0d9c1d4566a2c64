import Foundation

/// What the App Store Server API's newer endpoints change or read about one transaction of
/// any account: Get App Transaction Info, Set App Account Token, Finish Transaction.
extension Store {
    /// The account of the customer a transaction id, an original transaction id or an
    /// `appTransactionId` belongs to (Apple's "any transaction identifier that belongs to the
    /// customer", Server API 1.20); nil when none does.
    func customer(of id: String) throws -> String? {
        if let number = Int64(id), let owner = try ledger.account(owning: number) { return owner }
        return try ledger.accounts().first { AppTransactionID.make(account: $0, bundleID: catalog.bundleID) == id }
    }

    /// Whether `id` is no transaction's, but a customer's `appTransactionId`.
    func isAppTransactionID(_ id: Int64) throws -> Bool {
        try ledger.account(owning: id) == nil && customer(of: String(id)) != nil
    }

    /// The app transaction of the customer a transaction id, an original transaction id or an
    /// `appTransactionId` belongs to; nil when none does.
    func appTransaction(ofCustomerWith id: String) throws -> AppTransaction? {
        guard let owner = try customer(of: id) else { return nil }
        return try appTransaction(of: owner)
    }

    /// Sets the `appAccountToken` of a purchase and its renewals, signed again (Set App Account Token).
    func setAppAccountToken(_ token: UUID, originalTransactionID id: Int64) throws {
        try processRenewals()
        try ledger.write { () throws -> Void in
            guard let found = try ledger.transaction(id: id), found.status == .purchased else {
                throw ServerTransactionError.transactionNotFound
            }
            guard found.ownershipType == .purchased else { throw ServerTransactionError.familyShared }
            guard found.originalID == found.id else { throw ServerTransactionError.notOriginalTransaction }
            _ = try ledger.setAppAccountToken(token, originalID: id)
        }
    }

    /// Finishes a transaction for the app, as `Transaction.finish()` would (Finish Transaction):
    /// it no longer arrives unfinished, and the app's cache has what it granted.
    func finishFromServer(transactionID id: Int64) throws {
        guard let found = try ledger.transaction(id: id), found.status == .purchased else {
            throw ServerTransactionError.transactionNotFound
        }
        try finish(found)
    }
}

/// Why the Server API's transaction endpoints refuse a request; the server answers with Apple's error.
public enum ServerTransactionError: Error, Sendable, Equatable {
    /// No transaction has that id (`TransactionIdNotFoundError`).
    case transactionNotFound
    /// A family member's shared transaction (`FamilyTransactionNotSupportedError`).
    case familyShared
    /// The id is not an original transaction id (`TransactionIdIsNotOriginalTransactionIdError`).
    case notOriginalTransaction
}
