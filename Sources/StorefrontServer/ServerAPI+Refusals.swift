import Foundation
import StoreEngine

/// What the server answers before a request reaches an endpoint.
extension ServerAPI {
    /// Apple's answer to a missing or bad bearer token.
    static let unauthenticated = HTTPResponse(status: 401, body: Array("Unauthenticated\n".utf8),
                                              headers: [("Content-Type", "text/plain")])

    /// A request with a body, looked at before the body is read: refused unless its token
    /// checks out, so a stranger's connection costs its headers, never up to a megabyte of body.
    func refusalBeforeBody(_ request: HTTPRequest) async -> HTTPResponse? {
        // verifyReceipt is Apple's legacy endpoint: no bearer token, its body (the receipt) is the proof.
        if VerifyReceiptAPI.endpoint(request.path) != nil { return nil }
        return await auth.isAuthorized(request.headers["authorization"]) ? nil : Self.unauthenticated
    }

    /// The answer to a request the HTTP layer refuses (a body too large, a header sent twice):
    /// Apple's JSON error body with the status, as the endpoints' own errors have.
    static func refusal(_ status: Int) -> HTTPResponse {
        switch status {
        case 401: unauthenticated
        case 413: APIError(status: 413, code: APIError.badRequest.code, message: "Request body too large.").response
        default: APIError(status: status, code: APIError.badRequest.code, message: APIError.badRequest.message).response
        }
    }
}
