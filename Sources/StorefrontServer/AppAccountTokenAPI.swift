import Foundation
import StoreEngine

extension APIError {
    static let invalidAppAccountTokenUUID = APIError(status: 400, code: 4000183, message: "Invalid request. The app account token field must be a valid UUID.")
    static let familyTransactionNotSupported = APIError(status: 400, code: 4000185, message: "Invalid request. Family Sharing transactions aren't supported by this endpoint.")
    static let notOriginalTransactionID = APIError(status: 400, code: 4000187, message: "Invalid request. The transaction ID provided is not an original transaction ID.")

    /// Apple's error for the engine's refusal of a transaction endpoint.
    init(_ error: ServerTransactionError) {
        self = switch error {
        case .transactionNotFound: .transactionNotFound
        case .familyShared: .familyTransactionNotSupported
        case .notOriginalTransaction: .notOriginalTransactionID
        }
    }
}

/// Set App Account Token (App Store Server API 1.16).
extension ServerAPI {
    /// `PUT /inApps/v1/transactions/{originalTransactionId}/appAccountToken` with
    /// `{"appAccountToken": UUID}`: the purchase and its renewals carry the token, signed again. 200, no body.
    func setAppAccountToken(_ text: String, _ request: HTTPRequest) async throws -> HTTPResponse {
        let id = try Self.transactionID(text, error: .invalidOriginalTransactionID)
        let body = try Self.objectBody(request)
        guard case .string(let value)? = body["appAccountToken"], let token = UUID(uuidString: value) else {
            throw APIError.invalidAppAccountTokenUUID
        }
        do {
            try await face.setAppAccountToken(token, originalTransactionID: id)
        } catch let error as ServerTransactionError {
            throw APIError(error)
        }
        return HTTPResponse(status: 200)
    }
}
