import Foundation
import StoreEngine
import StorefrontKit

// The app's server for AdvancedCommerceProductTests: its In-App Purchase key and its signed requests
// (its own file, because StoreEngine has a `Transaction` of its own).

/// The compact JWS the app's server makes (Apple's header and base claims) around `request`.
func advancedCommerceJWS(_ request: String, audience: String = "advanced-commerce-api", nonce: UUID = UUID(),
                         key: (keyID: String, pem: String)) throws -> String {
    let header = JSON.object(["alg": .string("ES256"), "kid": .string(key.keyID), "typ": .string("JWT")])
    let claims = JSON.object([
        "iss": .string("storefront"), "iat": .integer(Int64(Date().timeIntervalSince1970)), "aud": .string(audience),
        "bid": .string(try StoreContext.resolve().store.catalog.bundleID), "nonce": .string(nonce.uuidString.lowercased()),
        "request": .string(request),
    ])
    return try SigningKey(pem: key.pem).sign(claims, encodedHeader: Base64URL.encode(Array(header.serialized(pretty: false).utf8)))
}

/// The server's In-App Purchase key `KIT`, made in the store as `storefront offer-keys create` makes one.
func advancedCommerceKey() async throws -> (keyID: String, pem: String) {
    let made = try await StoreContext.resolve().store.appStore.createOfferKey(keyID: "KIT")
    return (made.key.keyID, made.privateKeyPEM)
}

/// A key the store does not know.
func strangerPEM() throws -> String { try SigningKey.generate().privateKeyPEM }
