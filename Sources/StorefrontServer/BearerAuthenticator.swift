import Foundation
import StoreEngine

/// Checks the Server API's bearer token as Apple does: an ES256 JWT whose header names a
/// registered key (`kid`), signed by that key, with the key's issuer (`iss`), audience
/// `appstoreconnect-v1`, the app's bundle id (`bid`), not expired and living at most an hour.
struct BearerAuthenticator: Sendable {
    let face: AppStoreFace
    /// Real time: tokens expire by the wall clock, whatever the store's clock does.
    let now: @Sendable () -> Date

    func isAuthorized(_ header: String?) async -> Bool {
        guard let header, header.hasPrefix("Bearer ") else { return false }
        let token = String(header.dropFirst("Bearer ".count)).trimmingCharacters(in: .whitespaces)
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerBytes = Base64URL.decode(parts[0]), let jwtHeader = try? JSON.parse(headerBytes),
              case .string("ES256")? = jwtHeader["alg"], case .string(let keyID)? = jwtHeader["kid"],
              let keys = try? await face.apiKeys(), let key = keys.first(where: { $0.keyID == keyID }),
              let publicKey = try? SigningKey(pem: key.publicKeyPEM),
              let payload = try? publicKey.verify(token).payload else { return false }
        guard case .string(key.issuerID)? = payload["iss"], case .string("appstoreconnect-v1")? = payload["aud"],
              case .string(face.catalog.bundleID)? = payload["bid"],
              case .number(let expText)? = payload["exp"], let exp = Double(expText) else { return false }
        let now = now().timeIntervalSince1970
        var issued = now
        if let iat = payload["iat"] {
            guard case .number(let text) = iat, let value = Double(text), value <= now + 60 else { return false }
            issued = value
        }
        // Apple refuses tokens that live longer than an hour.
        return exp > now && exp - issued <= 3600 + 60
    }
}
