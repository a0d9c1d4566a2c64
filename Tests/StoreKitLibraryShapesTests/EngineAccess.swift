import Foundation
import StoreEngine
import StorefrontKit

// The engine under the test session, for what the library's server does outside the app (its own
// file, because StoreEngine has a `Transaction` of its own).

/// An In-App Purchase key the store knows, made as `storefront offer-keys create` makes one, and the app's bundle id.
func serverKey(keyID: String) async throws -> (keyID: String, pem: String, bundleID: String) {
    let store = try StoreContext.resolve().store
    let made = try await store.appStore.createOfferKey(keyID: keyID)
    return (made.key.keyID, made.privateKeyPEM, store.catalog.bundleID)
}

/// A key the store does not know.
func strangerKeyPEM() throws -> String { try SigningKey.generate().privateKeyPEM }

/// A compact JWS as the App Store Server Library's Advanced Commerce signature creator makes it:
/// Apple's header and base claims, `request` the base64 of `request`'s JSON.
func advancedCommerceJWS(_ request: [String: Any], keyID: String, pem: String, bundleID: String) throws -> String {
    let header = JSON.object(["alg": .string("ES256"), "kid": .string(keyID), "typ": .string("JWT")])
    let claims = JSON.object([
        "iss": .string("issuer"), "iat": .integer(Int64(Date().timeIntervalSince1970)), "aud": .string("advanced-commerce-api"),
        "bid": .string(bundleID), "nonce": .string(UUID().uuidString),
        "request": .string(try JSONSerialization.data(withJSONObject: request).base64EncodedString()),
    ])
    return try SigningKey(pem: pem).sign(claims, encodedHeader: Base64URL.encode(Array(header.serialized(pretty: false).utf8)))
}
