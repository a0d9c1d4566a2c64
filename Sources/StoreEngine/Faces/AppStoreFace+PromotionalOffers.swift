import Foundation

extension AppStoreFace {
    /// The promotional offer keys registered (App Store Connect's In-App Purchase keys).
    public func offerKeys() async throws -> [OfferKey] { try await store.offerKeys() }

    /// Registers a key from PEM: a private key (`.p8`) lets `offer sign` sign with it.
    public func addOfferKey(keyID: String, pem: String, issuerID: String? = nil) async throws -> OfferKey {
        try await store.addOfferKey(keyID: keyID, pem: pem, issuerID: issuerID)
    }

    /// Forgets a key, as revoking it in App Store Connect: its signatures fail with
    /// `invalidOfferSignature` from now on. False when there was none of that id.
    public func removeOfferKey(_ keyID: String) async throws -> Bool { try await store.removeOfferKey(keyID) }

    /// Makes a key the store keeps; its private half is returned to be shown once.
    public func createOfferKey(keyID: String? = nil, issuerID: String? = nil) async throws
        -> (key: OfferKey, privateKeyPEM: String) {
        try await store.createOfferKey(keyID: keyID, issuerID: issuerID)
    }

    /// Signs a promotional offer for this account as the app's server would (`offer sign`).
    /// `flaw` puts a fault in it on purpose (wrong key, stale, a used nonce), for testing the refusal.
    public func signPromotionalOffer(productID: String, offerID: String, keyID: String? = nil, appAccountToken: UUID? = nil,
                                     form: PromotionalOfferSignature.Form = .compactJWS,
                                     flaw: PromotionalOfferSignature.Flaw? = nil) async throws -> PromotionalOfferSignature {
        try await store.signPromotionalOffer(productID: productID, offerID: offerID, keyID: keyID,
                                             appAccountToken: appAccountToken, form: form, flaw: flaw)
    }

    /// Signs as the paywall does, standing in for the app's server: with the store's first key that
    /// can sign. Throws ``OfferKeyError`` naming the command that makes one when there is none.
    public func signWithFirstKey(productID: String, offerID: String,
                                 flaw: PromotionalOfferSignature.Flaw? = nil) async throws -> PromotionalOfferSignature {
        try await store.signWithFirstKey(productID: productID, offerID: offerID, flaw: flaw)
    }

    /// What the App Store sheet predicts for a promotional offer signed as the paywall signs it
    /// (``signWithFirstKey(productID:offerID:flaw:)``): why the purchase would end before the
    /// settings decide, by the purchase's own check, writing nothing; nil when it passes.
    /// Asked for when the sheet shows the attempt, not with every snapshot: it signs and verifies.
    public func offerRefusal(_ attempt: OfferAttempt) async throws -> OfferRefusal? {
        try await store.promotionalOfferRefusal(attempt)
    }
}
