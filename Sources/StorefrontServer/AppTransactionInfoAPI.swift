import Foundation
import StoreEngine

extension APIError {
    static let appTransactionDoesNotExist = APIError(status: 404, code: 4040019, message: "No AppTransaction exists for the customer.")
}

/// Get App Transaction Info (App Store Server API 1.17): the customer's app transaction, signed now.
extension ServerAPI {
    /// `GET /inApps/v1/transactions/appTransactions/{transactionId}` → `{"signedAppTransactionInfo": …}`,
    /// for any transaction id, original transaction id or `appTransactionId` of the customer.
    func appTransactionInfo(_ text: String) async throws -> HTTPResponse {
        // An appTransactionId is a number too (up to 18 digits), so one check serves both.
        _ = try Self.transactionID(text)
        guard let found = try await face.appTransaction(ofCustomerWith: text), let jws = found.jwsRepresentation else {
            throw APIError.appTransactionDoesNotExist
        }
        return Self.answer(.object(["signedAppTransactionInfo": .string(jws)]))
    }
}
