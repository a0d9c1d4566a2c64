import Foundation
import StoreEngine

/// Finish Transaction (App Store Server API 1.20): a backend that delivers content finishes
/// the transaction in the app's stead, so the app no longer gets it as unfinished.
extension ServerAPI {
    /// `POST /inApps/v1/transactions/{transactionId}/finish`: 200, no body; finishing twice is not an error.
    func finishTransaction(_ text: String) async throws -> HTTPResponse {
        let id = try Self.transactionID(text)
        do {
            try await face.finishTransaction(id)
        } catch let error as ServerTransactionError {
            throw APIError(error)
        }
        return HTTPResponse(status: 200)
    }
}
