import StoreEngine
import StorefrontKit

// The engine under the test session: what the customer, the App Store or the app's server
// does outside the app. Its own file, because StoreEngine has a `Transaction` of its own.

/// The engine's store under the session.
func store() throws -> StoreEngine.Store { try StoreContext.resolve().store }

/// An introductory offer eligibility JWS, signed as the app's server would with the offer key
/// the store makes (`keyID`), for `productID`.
func eligibilityJWS(productID: String, allow: Bool, audience: String = "introductory-offer-eligibility") async throws -> String {
    let made = try await store().appStore.createOfferKey(keyID: "ELIGIBILITY")
    let key = try SigningKey(pem: made.privateKeyPEM)
    let header = JSON.object(["alg": .string("ES256"), "kid": .string(made.key.keyID), "typ": .string("JWT")])
    let claims = JSON.object([
        "productId": .string(productID), "allowIntroductoryOffer": .bool(allow), "aud": .string(audience),
        "bid": .string(try store().catalog.bundleID), "iss": .string("storefront"),
        "iat": .integer(Int64(Date().timeIntervalSince1970)), "nonce": .string(UUID().uuidString.lowercased()),
    ])
    return try key.sign(claims, encodedHeader: Base64URL.encode(Array(header.serialized(pretty: false).utf8)))
}

/// SHA-384 of `text`'s UTF-8, with libcrypto (as StoreKit's device verification hash).
func sha384(_ text: String) -> Data { Data(Digest.sha384(Array(text.utf8))) }

/// The id of the first Ask to Buy request waiting.
func firstPendingRequest() async throws -> Int64? { try await store().appStore.pendingRequests().first?.id }
