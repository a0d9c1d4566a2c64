import Foundation

extension Store {
    /// The account's app transaction (`AppTransaction.shared`), signed now (store time).
    func appTransaction() throws -> AppTransaction { try appTransaction(of: account) }

    /// The app transaction of `account` (any account of the file: the Server API's), signed now.
    func appTransaction(of account: String) throws -> AppTransaction {
        let date = try currentTime()
        let created = try ledger.write {
            try ledger.ensureAccount(account, at: date)
            return try ledger.accountCreated(account) ?? date
        }
        var result = AppTransaction(
            bundleID: catalog.bundleID, appVersion: AppTransaction.sandboxVersion,
            originalAppVersion: AppTransaction.sandboxVersion, originalPurchaseDate: created,
            appTransactionID: AppTransactionID.make(account: account, bundleID: catalog.bundleID),
            environment: try value(.environment), signedDate: date)
        result.appAppleID = try payloadAppAppleID()
        result.jwsRepresentation = try signer.sign(result.signedPayload())
        return result
    }
}
