import Foundation
import StoreEngine
import Synchronization

/// Checks the Server API's bearer token as Apple does: an ES256 JWT whose header names a
/// registered key (`kid`), signed by that key, with the key's issuer (`iss`), audience
/// `appstoreconnect-v1`, the app's bundle id (`bid`), not expired and living at most an hour.
///
/// A backend sends the same token with every request for up to an hour: its signature and
/// claims are checked once, and the token (by its exact text) is kept until it expires. The
/// key is looked up on every request all the same, so a key removed (`serve keys remove`), or
/// registered anew with another public key, stops its tokens at once.
struct BearerAuthenticator: Sendable {
    let face: AppStoreFace
    /// Real time: tokens expire by the wall clock, whatever the store's clock does.
    let now: @Sendable () -> Date
    let verified = VerifiedTokens()

    /// The token of an `Authorization: Bearer …` header.
    static func token(_ header: String?) -> String? {
        guard let header, header.hasPrefix("Bearer ") else { return nil }
        // Spaces and tabs trimmed byte by byte (Foundation's trimming bridged every token to NSString),
        // the rest decoded from the header's own bytes in one piece (a reversed view is copied byte by byte).
        let rest = header.utf8.dropFirst("Bearer ".count)
        let blank: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 }
        guard let first = rest.firstIndex(where: { !blank($0) }), let last = rest.lastIndex(where: { !blank($0) }) else { return "" }
        return String(decoding: rest[first...last], as: UTF8.self)
    }

    /// A token checked before and not expired.
    func known(_ token: String) -> VerifiedTokens.Token? {
        guard let known = verified.lookup(token), known.expires > now().timeIntervalSince1970 else { return nil }
        return known
    }

    /// Whether the header carries a good token; `keysRead` gets the keys looked up, for the answer cache.
    func isAuthorized(_ header: String?, keysRead: ([APIKey]) -> Void = { _ in }) async -> Bool {
        guard let token = Self.token(header) else { return false }
        let now = now().timeIntervalSince1970
        if let known = verified.lookup(token) {
            guard known.expires > now, let keys = try? await face.apiKeys() else { return false }
            keysRead(keys)
            return keys.contains { $0.keyID == known.keyID && $0.issuerID == known.issuerID && $0.publicKeyPEM == known.publicKeyPEM }
        }
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerBytes = Base64URL.decode(parts[0]), let jwtHeader = try? JSON.parse(headerBytes),
              case .string("ES256")? = jwtHeader["alg"], case .string(let keyID)? = jwtHeader["kid"],
              let keys = try? await face.apiKeys() else { return false }
        keysRead(keys)
        guard let key = keys.first(where: { $0.keyID == keyID }),
              let publicKey = try? SigningKey(pem: key.publicKeyPEM),
              let payload = try? publicKey.verify(token).payload else { return false }
        guard case .string(key.issuerID)? = payload["iss"], case .string("appstoreconnect-v1")? = payload["aud"],
              case .string(face.catalog.bundleID)? = payload["bid"],
              case .number(let expText)? = payload["exp"], let exp = Double(expText) else { return false }
        var issued = now
        if let iat = payload["iat"] {
            guard case .number(let text) = iat, let value = Double(text), value <= now + 60 else { return false }
            issued = value
        }
        // Apple refuses tokens that live longer than an hour.
        guard exp > now && exp - issued <= 3600 + 60 else { return false }
        verified.keep(token, VerifiedTokens.Token(keyID: key.keyID, issuerID: key.issuerID, publicKeyPEM: key.publicKeyPEM,
                                                  expires: exp))
        return true
    }
}

/// Tokens whose signature and claims passed, by their exact text, until they expire: at most
/// ``capacity`` of them (the oldest go first when more come).
final class VerifiedTokens: Sendable {
    struct Token: Sendable {
        var keyID: String
        var issuerID: String
        /// The key that verified it: a token of a key registered again with another key is checked anew.
        var publicKeyPEM: String
        /// `exp`, seconds since 1970.
        var expires: Double
    }

    static let capacity = 256
    private let tokens = Mutex<(byText: [String: Token], order: [String])>(([:], []))

    func lookup(_ text: String) -> Token? {
        tokens.withLock { $0.byText[text] }
    }

    func keep(_ text: String, _ token: Token) {
        tokens.withLock { kept in
            guard kept.byText.updateValue(token, forKey: text) == nil else { return }
            kept.order.append(text)
            if kept.order.count > Self.capacity {
                kept.byText[kept.order.removeFirst()] = nil
            }
        }
    }
}
