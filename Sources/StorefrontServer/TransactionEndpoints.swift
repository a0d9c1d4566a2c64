import Foundation
import StoreEngine

/// The endpoints whose paths name one transaction between fixed parts
/// (`/inApps/v1/transactions/{id}/finish`), which ``ServerAPI/route(_:)``'s scheme of fixed
/// parts then an id does not fit, and whose answers are not always a JSON body.
extension ServerAPI {
    /// The answer of one of these endpoints; nil when the request is for another.
    func transactionEndpoint(_ request: HTTPRequest) async throws -> HTTPResponse? {
        let parts = request.path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        guard parts.count == 5, parts[0] == "inApps" else { return nil }
        switch (request.method, parts[1], parts[2], parts[3], parts[4]) {
        case ("GET", "v1", "transactions", "appTransactions", let id): return try await appTransactionInfo(id)
        case ("PUT", "v1", "transactions", let id, "appAccountToken"): return try await setAppAccountToken(id, request)
        case ("POST", "v1", "transactions", let id, "finish"): return try await finishTransaction(id)
        case ("PUT", "v2", "transactions", "consumption", let id): return try await consumptionV2(id, request)
        default: return nil
        }
    }

    /// `200 OK` with a JSON body.
    static func answer(_ body: JSON) -> HTTPResponse {
        HTTPResponse(status: 200, body: Array(body.serialized(pretty: false).utf8), headers: [("Content-Type", "application/json")])
    }

    /// The request's body as a JSON object; Apple's 4000000 for anything else.
    static func objectBody(_ request: HTTPRequest) throws -> JSON {
        guard let body = try? JSON.parse(request.body), case .object = body else { throw APIError.badRequest }
        return body
    }
}
