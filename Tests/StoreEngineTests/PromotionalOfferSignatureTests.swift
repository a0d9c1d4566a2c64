import Foundation
import Testing
@testable import StoreEngine

/// Promotional offers need the developer's signature, in either of Apple's forms, checked
/// against the keys registered in the store.
@Suite("promotional offer signatures")
struct PromotionalOfferSignatureTests {
    /// A lapsed subscriber of `pro` (eligible for promotional offers).
    func lapsed(_ fixture: StoreFixture) async throws -> Store {
        let store = try fixture.open()
        _ = try await buy(store, "pro.monthly")
        try await store.setAutoRenew(groupID: "pro", false)
        fixture.clock.set(utc(2025, 3, 1))
        return store
    }

    func attempt(_ store: Store, _ signature: PromotionalOfferSignature?, offerID: String = "comeback",
                 token: UUID? = nil) async -> SimulatedError? {
        await purchaseError {
            _ = try await store.purchase("pro.monthly", appAccountToken: token, offerID: offerID, offerSignature: signature)
        }
    }

    @Test("both forms buy the offer; Apple's legacy message is its fields joined by U+2063, token and nonce lowercased")
    func bothForms() async throws {
        let message = PromotionalOfferSignature.legacyMessage(
            bundleID: "b", keyID: "K", productID: "p", offerID: "o", appAccountToken: UUID(uuidString: "6F9619FF-8B86-D011-B42D-00CF4FC964FF"),
            nonce: UUID(uuidString: "AAAAAAAA-BBBB-CCCC-DDDD-EEEEEEEEEEEE")!, timestamp: 1_700_000_000_000)
        #expect(message == "b\u{2063}K\u{2063}p\u{2063}o\u{2063}6f9619ff-8b86-d011-b42d-00cf4fc964ff\u{2063}aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee\u{2063}1700000000000")
        for form in [PromotionalOfferSignature.Form.legacy, .compactJWS] {
            try await withLifecycleStore { fixture in
                let store = try await lapsed(fixture)
                let token = UUID()
                let signature = try await signedOffer(store, "pro.monthly", "comeback", appAccountToken: token, form: form)
                let promo = try transaction(of: try await store.purchase("pro.monthly", appAccountToken: token, offerID: "comeback",
                                                                        offerSignature: signature))
                #expect(promo.offerType == .promotional && promo.offerID == "comeback", "\(form)")
            }
        }
    }

    @Test("no signature is missingOfferParameters; an unknown offer is invalidOfferIdentifier, before the signature")
    func missingAndUnknown() async throws {
        try await withLifecycleStore { fixture in
            let store = try await lapsed(fixture)
            #expect(await attempt(store, nil) == .missingOfferParameters)
            let signature = try await signedOffer(store, "pro.monthly", "nope")
            #expect(await attempt(store, signature, offerID: "nope") == .invalidOfferIdentifier)
        }
    }

    @Test("a wrong key, an unregistered key id, one byte off, another offer, another token: invalidOfferSignature")
    func altered() async throws {
        try await withLifecycleStore { fixture in
            let store = try await lapsed(fixture)
            let token = UUID()
            // Another key under the registered id.
            let other = try SigningKey.generate()
            _ = try await signedOffer(store, "pro.monthly", "comeback")
            let header = Base64URL.encode(Array(#"{"alg":"ES256","kid":"TESTKEY"}"#.utf8))
            let claims = JSON.object([
                "bid": .string(fixture.catalog.bundleID), "iss": .string("i"), "aud": .string("promotional-offer"),
                "iat": .integer(Int64(utc(2025, 3, 1).timeIntervalSince1970)), "nonce": .string(UUID().uuidString),
                "productId": .string("pro.monthly"), "offerIdentifier": .string("comeback"),
            ])
            #expect(await attempt(store, .compactJWS(try other.sign(claims, encodedHeader: header))) == .invalidOfferSignature)
            // An id no key has.
            if case .legacy(_, let nonce, let time, let sig) = try await signedOffer(store, "pro.monthly", "comeback", form: .legacy) {
                #expect(await attempt(store, .legacy(keyID: "NOKEY", nonce: nonce, timestamp: time, signature: sig)) == .invalidOfferSignature)
                #expect(await attempt(store, .legacy(keyID: "TESTKEY", nonce: nonce, timestamp: time + 1, signature: sig)) == .invalidOfferSignature)
            }
            // One byte off.
            if case .compactJWS(var jws) = try await signedOffer(store, "pro.monthly", "comeback") {
                let index = jws.index(jws.endIndex, offsetBy: -5)
                jws.replaceSubrange(index...index, with: jws[index] == "A" ? "B" : "A")
                #expect(await attempt(store, .compactJWS(jws)) == .invalidOfferSignature)
            }
            // Signed for another offer or product, or another token (the legacy form signs it).
            #expect(await attempt(store, try await signedOffer(store, "pro.yearly", "comeback")) == .invalidOfferSignature)
            let legacy = try await signedOffer(store, "pro.monthly", "comeback", appAccountToken: token, form: .legacy)
            #expect(await attempt(store, legacy, token: UUID()) == .invalidOfferSignature)
            #expect(try await store.transactions().count == 1, "nothing charged")
        }
    }

    @Test("stale after 24 hours of store time; a nonce is good once; claims aud, bid and transactionId are checked")
    func staleReusedAndClaims() async throws {
        try await withLifecycleStore { fixture in
            let store = try await lapsed(fixture)
            let stale = try await signedOffer(store, "pro.monthly", "comeback", form: .legacy)
            let fresh = try await signedOffer(store, "pro.monthly", "comeback")
            fixture.clock.advance(by: 24 * 3600 + 1)
            #expect(await attempt(store, stale) == .invalidOfferSignature)
            #expect(await attempt(store, fresh) == .invalidOfferSignature)
            let good = try await signedOffer(store, "pro.monthly", "comeback")
            fixture.clock.advance(by: 23 * 3600)
            _ = try transaction(of: try await store.purchase("pro.monthly", offerID: "comeback", offerSignature: good))
            try await store.setAutoRenew(groupID: "pro", false)
            fixture.clock.advance(ISODuration(months: 3))
            #expect(await attempt(store, good) == .invalidOfferSignature, "the nonce was used")

            let key = try SigningKey.generate()
            _ = try await store.appStore.addOfferKey(keyID: "CLAIMS", pem: key.privateKeyPEM)
            let header = Base64URL.encode(Array(#"{"alg":"ES256","kid":"CLAIMS"}"#.utf8))
            func jws(_ changes: [String: JSON]) throws -> PromotionalOfferSignature {
                var claims: [String: JSON] = [
                    "bid": .string(fixture.catalog.bundleID), "iss": .string("i"), "aud": .string("promotional-offer"),
                    "iat": .integer(Int64(fixture.clock.closure().timeIntervalSince1970)), "nonce": .string(UUID().uuidString),
                    "productId": .string("pro.monthly"), "offerIdentifier": .string("comeback"),
                ]
                claims.merge(changes) { $1 }
                return .compactJWS(try key.sign(.object(claims.sorted { $0.key < $1.key }.map { JSON.Member($0.key, $0.value) }),
                                                 encodedHeader: header))
            }
            #expect(await attempt(store, try jws(["aud": .string("advanced-commerce-api")])) == .invalidOfferSignature)
            #expect(await attempt(store, try jws(["bid": .string("com.other")])) == .invalidOfferSignature)
            #expect(await attempt(store, try jws(["transactionId": .string("42")])) == .invalidOfferSignature)
            let app = try await store.app.appTransaction()
            #expect(await attempt(store, try jws(["transactionId": .string(app.appTransactionID)])) == nil)
        }
    }

    @Test("a public key verifies but cannot sign here; keys survive reopening (schema 7)")
    func publicKeyOnly() async throws {
        try await withLifecycleStore { fixture in
            let store = try fixture.open()
            let key = try SigningKey.generate()
            let added = try await store.appStore.addOfferKey(keyID: "PUB", pem: key.publicKeyPEM, issuerID: "issuer")
            #expect(!added.canSign)
            await #expect(throws: OfferKeyError.self) {
                _ = try await store.appStore.signPromotionalOffer(productID: "pro.monthly", offerID: "comeback", keyID: "PUB")
            }
            let reopened = try fixture.open()
            #expect(try await reopened.appStore.offerKeys().map(\.keyID) == ["PUB"])
            #expect(try await reopened.appStore.offerKeys().first?.issuerID == "issuer")
        }
    }
}

@Suite("schema 7")
struct SchemaSevenTests {
    @Test("a schema 6 file gets the offer tables; its rows keep their seals, so an edit made before stays unverified", .fileStoreOnly)
    func migrates() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            let kept = try await buy(store, "pro")
            let edited = try await buy(store, "faces")
            let db = try SQLiteDatabase(path: fixture.path, create: false)
            try db.execute("""
                DROP TABLE offer_keys; DROP TABLE offer_nonces; DROP TABLE offer_code_redemptions;
                UPDATE transactions SET price = '0' WHERE id = \(edited.id);
                ALTER TABLE subscriptions DROP COLUMN seal; ALTER TABLE app_balances DROP COLUMN seal;
                PRAGMA user_version = 6;
                """)
            let reopened = try fixture.open()
            #expect(try db.scalar("PRAGMA user_version") == Ledger.schemaVersion, "7, then 8")
            _ = try await reopened.appStore.createOfferKey(keyID: "AFTER")
            #expect(try await reopened.appStore.offerKeys().map(\.keyID) == ["AFTER"])
            #expect(try await reopened.transaction(id: kept.id).verification == .verified)
            #expect(try await reopened.transaction(id: edited.id).verification != .verified, "not resealed by the migration")
        }
    }
}

extension PromotionalOfferSignatureTests {
    @Test("a removed key (offer-keys remove) signs nothing any more: invalidOfferSignature; removing it twice says so")
    func removedKey() async throws {
        try await withLifecycleStore { fixture in
            let store = try await lapsed(fixture)
            let signature = try await signedOffer(store, "pro.monthly", "comeback")
            #expect(try await store.appStore.removeOfferKey("TESTKEY"))
            #expect(try await !store.appStore.removeOfferKey("TESTKEY"), "gone already")
            #expect(try await store.appStore.offerKeys().isEmpty)
            #expect(await attempt(store, signature) == .invalidOfferSignature)
        }
    }
}

extension PromotionalOfferSignatureTests {
    @Test("a tester's faults, in both forms: each is refused with invalidOfferSignature; the same call without one buys")
    func flaws() async throws {
        for form in [PromotionalOfferSignature.Form.legacy, .compactJWS] {
            try await withLifecycleStore { fixture in
                let store = try await lapsed(fixture)
                _ = try await signedOffer(store, "pro.monthly", "comeback")
                for flaw in PromotionalOfferSignature.Flaw.allCases {
                    let bad = try await store.appStore.signPromotionalOffer(productID: "pro.monthly", offerID: "comeback", keyID: "TESTKEY",
                                                                            form: form, flaw: flaw)
                    #expect(await attempt(store, bad) == .invalidOfferSignature, "\(form) \(flaw)")
                }
                let good = try await store.appStore.signPromotionalOffer(productID: "pro.monthly", offerID: "comeback", keyID: "TESTKEY",
                                                                         form: form)
                #expect(await attempt(store, good) == nil, "\(form)")
            }
        }
    }

    @Test("the offer sheet's prediction is the purchase's refusal: no key, a new customer, each fault; none for a lapsed subscriber")
    func refusalsArePurchases() async throws {
        try await withLifecycleStore { fixture in
            let store = try fixture.open()
            func refusal(_ flaw: PromotionalOfferSignature.Flaw? = nil) async throws -> OfferRefusal? {
                try await store.appStore.offerRefusal(OfferAttempt(productID: "pro.monthly", offerID: "comeback", flaw: flaw))
            }
            guard case .cannotSign(let reason)? = try await refusal() else { Issue.record("signed without a key"); return }
            #expect(reason.contains("storefront offer-keys create"))
            await #expect(throws: OfferKeyError.self) {
                _ = try await store.appStore.signWithFirstKey(productID: "pro.monthly", offerID: "comeback")
            }
            _ = try await store.appStore.createOfferKey(keyID: "TESTKEY")
            // Never subscribed: the preview and the purchase refuse it alike.
            let signature = try await store.appStore.signWithFirstKey(productID: "pro.monthly", offerID: "comeback")
            #expect(try await refusal() == .refused(.purchaseError(.ineligibleForOffer,
                                                                    reason: "promotional offers are for current and lapsed subscribers of the group")))
            #expect(await attempt(store, signature) == .ineligibleForOffer)
            _ = try await buy(store, "pro.monthly")
            try await store.setAutoRenew(groupID: "pro", false)
            fixture.clock.set(utc(2025, 3, 1))
            for flaw in PromotionalOfferSignature.Flaw.allCases {
                guard case .refused(let error)? = try await refusal(flaw) else { Issue.record("\(flaw) passes"); continue }
                #expect(error.name == "invalidOfferSignature", "\(flaw)")
                let flawed = try await store.appStore.signWithFirstKey(productID: "pro.monthly", offerID: "comeback", flaw: flaw)
                #expect(await attempt(store, flawed) == .invalidOfferSignature, "\(flaw)")
            }
            // The preview wrote nothing: a good signature still passes, and buys.
            #expect(try await refusal() == nil)
            #expect(await attempt(store, try await store.appStore.signWithFirstKey(productID: "pro.monthly", offerID: "comeback")) == nil)
        }
    }
}
