import Foundation

extension Store {
    // MARK: - Keys

    /// The keys registered in the store, then the catalog's own (`subscriptionOffersKeyPair`)
    /// unless a registered key has its id.
    func offerKeys() throws -> [OfferKey] {
        let registered = try ledger.offerKeys()
        guard let key = try catalogOfferKey(), !registered.contains(where: { $0.keyID == key.keyID }) else { return registered }
        return registered + [key]
    }

    /// The catalog's key as an offer key; an error naming it when it is no P-256 private key.
    private func catalogOfferKey() throws -> OfferKey? {
        guard let key = catalog.offerKey else { return nil }
        let signing: SigningKey
        do { signing = try SigningKey(pem: key.privateKeyPEM) } catch {
            throw OfferKeyError(description: "the catalog's subscriptionOffersKeyPair \(key.keyID) is not a P-256 private key (PKCS#8): \(error)")
        }
        var record = OfferKey(keyID: key.keyID, publicKeyPEM: signing.publicKeyPEM, canSign: true,
                              created: Date(timeIntervalSince1970: 0))
        record.isFromCatalog = true
        return record
    }

    /// A key's private half: the store's, or the catalog's for the catalog's key.
    private func offerPrivateKeyPEM(_ key: OfferKey) throws -> String? {
        key.isFromCatalog ? catalog.offerKey?.privateKeyPEM : try ledger.offerPrivateKey(key.keyID)
    }

    /// Registers a key: a PKCS#8 private key (the `.p8` App Store Connect gives; the store
    /// may then sign with it) or a public key (verification only).
    func addOfferKey(keyID: String, pem: String, issuerID: String?) throws -> OfferKey {
        let key = try SigningKey(pem: pem)
        let record = OfferKey(keyID: keyID, issuerID: issuerID, publicKeyPEM: key.publicKeyPEM,
                              canSign: pem.contains("PRIVATE KEY"), created: try currentTime())
        try ledger.write {
            try ledger.saveOfferKey(record, privateKeyPEM: record.canSign ? key.privateKeyPEM : nil)
        }
        return record
    }

    /// Makes a new key the store keeps; returns it and its private half (to show once).
    func createOfferKey(keyID: String?, issuerID: String?) throws -> (key: OfferKey, privateKeyPEM: String) {
        let key = try SigningKey.generate()
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        let id = keyID ?? String((0..<10).map { _ in alphabet.randomElement()! })
        return (try addOfferKey(keyID: id, pem: key.privateKeyPEM, issuerID: issuerID), key.privateKeyPEM)
    }

    /// Forgets a key (`offer-keys remove`): signatures made with it are refused from now on.
    func removeOfferKey(_ keyID: String) throws -> Bool {
        let removed = try ledger.write { try ledger.removeOfferKey(keyID) }
        if !removed, catalog.offerKey?.keyID == keyID {
            throw OfferKeyError(description: "offer key \(keyID) is the catalog's own (subscriptionOffersKeyPair): it goes with the catalog, not with offer-keys remove")
        }
        return removed
    }

    // MARK: - Signing, as the developer's server does

    /// A fresh signature for this account, as the app's server would make it, with a key the
    /// store holds privately (the only one, or `keyID`); timestamp and `iat` are store time.
    /// `flaw`: a fault put in on purpose (a tester's), which the purchase's check refuses.
    func signPromotionalOffer(productID: String, offerID: String, keyID: String?, appAccountToken: UUID?,
                              form: PromotionalOfferSignature.Form,
                              flaw: PromotionalOfferSignature.Flaw? = nil) throws -> PromotionalOfferSignature {
        let made = try makeSignature(productID: productID, offerID: offerID, keyID: keyID, appAccountToken: appAccountToken,
                                     form: form, flaw: flaw)
        if flaw == .reusedNonce {
            _ = try ledger.write { try ledger.useOfferNonce(made.nonce, account: account, at: try currentTime()) }
        }
        return made.signature
    }

    /// Signs as the paywall does, standing in for the app's server: with the store's first key that can
    /// sign. Throws ``OfferKeyError`` when there is none (the app then never asks the App Store).
    func signWithFirstKey(productID: String, offerID: String,
                          flaw: PromotionalOfferSignature.Flaw? = nil) throws -> PromotionalOfferSignature {
        try signPromotionalOffer(productID: productID, offerID: offerID, keyID: try firstSigningKey(offerID: offerID),
                                 appAccountToken: nil, form: .compactJWS, flaw: flaw)
    }

    /// The key the paywall signs with; an error naming the command that makes one when there is none.
    private func firstSigningKey(offerID: String) throws -> String {
        guard let key = try offerKeys().first(where: \.canSign) else {
            throw OfferKeyError(description: "No offer key to sign the promotional offer \(offerID) with: `storefront offer-keys create` "
                                + "makes one (App Store Connect's In-App Purchase key)")
        }
        return key.keyID
    }

    /// What the App Store makes of a promotional offer signed as the paywall signs it
    /// (``signWithFirstKey(productID:offerID:flaw:)``), by the purchase's own check
    /// (``offerRefusal(_:promotionalOfferID:signature:winBackOfferID:appAccountToken:at:nonce:usedNonce:)``),
    /// in one read, writing nothing: nil when the offer passes and the settings decide.
    func promotionalOfferRefusal(_ attempt: OfferAttempt) throws -> OfferRefusal? {
        guard let item = catalog.product(id: attempt.productID) else { return nil }
        return try ledger.read {
            let made: (signature: PromotionalOfferSignature, nonce: String)
            do {
                made = try makeSignature(productID: item.id, offerID: attempt.offerID, keyID: try firstSigningKey(offerID: attempt.offerID),
                                         appAccountToken: nil, form: .compactJWS, flaw: attempt.flaw)
            } catch let error as OfferKeyError {
                return .cannotSign(error.description)
            }
            var nonce: String?
            return try offerRefusal(item, promotionalOfferID: attempt.offerID, signature: made.signature, winBackOfferID: nil,
                                    appAccountToken: nil, at: try currentTime(), nonce: &nonce,
                                    usedNonce: attempt.flaw == .reusedNonce ? made.nonce : nil).map(OfferRefusal.refused)
        }
    }

    /// A signature and its nonce (lowercased), writing nothing: `.reusedNonce` is the caller's to use up.
    private func makeSignature(productID: String, offerID: String, keyID: String?, appAccountToken: UUID?,
                               form: PromotionalOfferSignature.Form,
                               flaw: PromotionalOfferSignature.Flaw?) throws -> (signature: PromotionalOfferSignature, nonce: String) {
        let keys = try offerKeys().filter(\.canSign)
        let chosen: OfferKey
        if let keyID {
            guard let key = keys.first(where: { $0.keyID == keyID }) else {
                throw OfferKeyError(description: "no offer key \(keyID) whose private key the store holds (offer-keys)")
            }
            chosen = key
        } else {
            guard let key = keys.first else {
                throw OfferKeyError(description: "no offer key to sign with: `storefront offer-keys create` makes one")
            }
            guard keys.count == 1 else {
                throw OfferKeyError(description: "several offer keys: choose one with --key (\(keys.map(\.keyID).joined(separator: ", ")))")
            }
            chosen = key
        }
        guard let pem = try offerPrivateKeyPEM(chosen) else {
            throw OfferKeyError(description: "offer key \(chosen.keyID) has no private key here")
        }
        let key = flaw == .wrongKey ? try SigningKey.generate() : try SigningKey(pem: pem)
        let now = try currentTime()
        let date = flaw == .stale ? now.addingTimeInterval(-PromotionalOfferSignature.lifetime - 3600) : now
        let nonce = UUID()
        let nonceText = nonce.uuidString.lowercased()
        switch form {
        case .legacy:
            let timestamp = date.milliseconds
            let message = PromotionalOfferSignature.legacyMessage(
                bundleID: catalog.bundleID, keyID: chosen.keyID, productID: productID, offerID: offerID,
                appAccountToken: appAccountToken, nonce: nonce, timestamp: timestamp)
            let der = try key.signDER(Array(message.utf8))
            return (.legacy(keyID: chosen.keyID, nonce: nonce, timestamp: timestamp,
                            signature: Data(der).base64EncodedString()), nonceText)
        case .compactJWS:
            let header = JSON.object(["alg": .string("ES256"), "kid": .string(chosen.keyID), "typ": .string("JWT")])
            let claims = JSON.object([
                "productId": .string(productID), "offerIdentifier": .string(offerID),
                "transactionId": .string(AppTransactionID.make(account: account, bundleID: catalog.bundleID)),
                "bid": .string(catalog.bundleID), "iss": .string(chosen.issuerID ?? "storefront"),
                "aud": .string(PromotionalOfferSignature.audience),
                "iat": .integer(Int64(date.timeIntervalSince1970)), "nonce": .string(nonceText),
            ])
            let header64 = Base64URL.encode(Array(header.serialized(pretty: false).utf8))
            return (.compactJWS(try key.sign(claims, encodedHeader: header64)), nonceText)
        }
    }

    // MARK: - Verifying, as the App Store does at purchase

    /// Checks a promotional offer's signature for this purchase. Run inside the purchase's write
    /// transaction. Returns why it fails, or nil and the signature's `nonce`: the purchase uses it up
    /// (``Ledger/useOfferNonce(_:account:at:)``) only when it goes ahead, so a refused one can be tried again.
    func offerSignatureFault(_ signature: PromotionalOfferSignature, productID: String, offerID: String,
                             appAccountToken: UUID?, at date: Date, nonce checked: inout String?,
                             usedNonce: String? = nil) throws -> String? {
        let nonce: String
        let signedAt: Date
        switch signature {
        case .legacy(let keyID, let uuid, let timestamp, let encoded):
            guard let record = try offerKeys().first(where: { $0.keyID == keyID }) else {
                return "no offer key \"\(keyID)\" is registered (offer-keys)"
            }
            let message = PromotionalOfferSignature.legacyMessage(
                bundleID: catalog.bundleID, keyID: keyID, productID: productID, offerID: offerID,
                appAccountToken: appAccountToken, nonce: uuid, timestamp: timestamp)
            guard let der = Data(base64Encoded: encoded),
                  try SigningKey(pem: record.publicKeyPEM).verifyDER(Array(message.utf8), signature: [UInt8](der)) else {
                return "the signature does not match key \(keyID) over this bundle id, product, offer, appAccountToken, nonce and timestamp"
            }
            (nonce, signedAt) = (uuid.uuidString.lowercased(), Date(milliseconds: timestamp))
        case .compactJWS(let jws):
            let parts = jws.split(separator: ".", omittingEmptySubsequences: false)
            guard parts.count == 3, let headerBytes = Base64URL.decode(parts[0]), let header = try? JSON.parse(headerBytes),
                  case .string(let keyID)? = header["kid"] else {
                return "not a compact JWS with a kid header"
            }
            guard let record = try offerKeys().first(where: { $0.keyID == keyID }) else {
                return "no offer key \"\(keyID)\" is registered (offer-keys)"
            }
            let claims: JSON
            do { claims = try SigningKey(pem: record.publicKeyPEM).verify(jws).payload } catch {
                return "the JWS does not verify with key \(keyID): \(error)"
            }
            func text(_ name: String) -> String? {
                if case .string(let value)? = claims[name] { return value }
                return nil
            }
            if text("aud") != PromotionalOfferSignature.audience { return "aud is not \"promotional-offer\"" }
            if text("bid") != catalog.bundleID { return "bid is not the app's bundle id \(catalog.bundleID)" }
            if text("productId") != productID { return "productId is not \(productID)" }
            if text("offerIdentifier") != offerID { return "offerIdentifier is not \(offerID)" }
            guard let issuer = text("iss"), !issuer.isEmpty, record.issuerID == nil || record.issuerID == issuer else {
                return "iss is not the key's issuer \(record.issuerID ?? "(any, but present)")"
            }
            if let transactionID = text("transactionId"), try !belongsToAccount(transactionID) {
                return "transactionId \(transactionID) is not this customer's (appTransactionId or a transaction id)"
            }
            guard case .number(let iat)? = claims["iat"], let seconds = Double(iat) else { return "no iat" }
            guard let value = text("nonce"), let uuid = UUID(uuidString: value) else { return "no nonce (a UUID)" }
            (nonce, signedAt) = (uuid.uuidString.lowercased(), Date(timeIntervalSince1970: seconds))
        }
        if date.timeIntervalSince(signedAt) > PromotionalOfferSignature.lifetime {
            return "the signature is stale: made \(signedAt.formatted(.iso8601)), more than 24 hours before \(date.formatted(.iso8601))"
        }
        if signedAt.timeIntervalSince(date) > PromotionalOfferSignature.allowedSkew {
            return "the signature's time \(signedAt.formatted(.iso8601)) is in the future (store time \(date.formatted(.iso8601)))"
        }
        guard nonce != usedNonce, try !ledger.isOfferNonceUsed(nonce) else {
            return "the nonce \(nonce) was used already: a signature is good for one purchase"
        }
        checked = nonce
        return nil
    }

    /// Whether `id` is the account's `appTransactionId` or one of its transactions' ids.
    private func belongsToAccount(_ id: String) throws -> Bool {
        if id == AppTransactionID.make(account: account, bundleID: catalog.bundleID) { return true }
        guard let number = Int64(id), let transaction = try ledger.transaction(id: number) else { return false }
        return transaction.account == account
    }
}
