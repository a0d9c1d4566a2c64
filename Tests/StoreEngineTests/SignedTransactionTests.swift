import Foundation
import Testing
@testable import StoreEngine

/// Every transaction is signed as StoreKit 2 signs it, and every read verifies it.
@Suite("signed transactions")
struct SignedTransactionTests {
    /// Edits the store file as a person with `sqlite3` would: a plain connection, no engine.
    func edit(_ path: String, _ sql: String) throws {
        let db = try SQLiteDatabase(path: path, create: false)
        try db.execute(sql)
    }

    @Test("a purchase carries a JWS whose payload uses Apple's field names and values")
    func payload() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            let bought = try await buy(store, "sub.yearly")
            let jws = try #require(bought.jwsRepresentation)
            #expect(bought.verification == .verified)
            let (header, payload) = try await store.verify(jws: jws)
            #expect(header["alg"] == .string("ES256"))
            // As Apple's: alg and the x5c chain (leaf, intermediate, root), no kid.
            guard case .array(let x5c)? = header["x5c"] else { Issue.record("no x5c in \(header)"); return }
            #expect(x5c == (await store.certificateChain()).x5c.map { .string($0) })
            #expect(header["kid"] == nil)
            #expect(payload["transactionId"] == .string(String(bought.id)))
            #expect(payload["originalTransactionId"] == .string(String(bought.originalID)))
            #expect(payload["productId"] == .string("sub.yearly"))
            #expect(payload["bundleId"] == .string(Catalog.defaultBundleID))
            #expect(payload["type"] == .string("Auto-Renewable Subscription"))
            #expect(payload["inAppOwnershipType"] == .string("PURCHASED"))
            #expect(payload["transactionReason"] == .string("PURCHASE"))
            #expect(payload["environment"] == .string("Xcode"))
            #expect(payload["storefront"] == .string("USA"))
            #expect(payload["currency"] == .string("USD"))
            #expect(payload["price"] == .number("39990"), "milliunits")
            #expect(payload["quantity"] == .number("1"))
            #expect(payload["subscriptionGroupIdentifier"] == .string("premium"))
            #expect(payload["purchaseDate"] == .number(String(fixtureStart.milliseconds)), "milliseconds since 1970")
            #expect(payload["expiresDate"] == .number(String(utc(2026, 1, 31, 12).milliseconds)))
            #expect(payload["signedDate"] != nil)
            #expect(payload["revocationDate"] == nil)
        }
    }

    @Test("a row edited by hand in the store file is unverified and entitles nothing", .fileStoreOnly)
    func editedRow() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            let pro = try await buy(store, "pro")
            try await store.finish(pro)
            let faces = try await buy(store, "faces")
            try await store.finish(faces)
            // "Unlock" something never bought by renaming a purchase.
            try edit(fixture.path, "UPDATE transactions SET product_id = 'pass', product_type = 'nonRenewable' WHERE id = \(faces.id)")

            let reopened = try fixture.open()
            let history = try await reopened.transactions()
            let edited = try #require(history.first { $0.id == faces.id })
            guard case .unverified(let reason) = edited.verification else {
                Issue.record("an edited row verified")
                return
            }
            #expect(reason.contains("does not match"))
            #expect(try await reopened.currentEntitlements().map(\.productID) == ["pro"])
            #expect(try await reopened.isEntitled(to: "pass") == false)
            #expect(try await reopened.ownedProducts().keys.sorted() == ["pro"])
            #expect(try await reopened.unverifiedProducts()["pass"] != nil)
            try await reopened.reset(.app)
            #expect(try await reopened.sync().map(\.productID) == ["pro"], "restore never brings back an unverified row")
        }
    }

    @Test("a row moved to another account in the store file is unverified and entitles neither account", .fileStoreOnly)
    func movedRow() async throws {
        try await withStoreFixture { fixture in
            let pro = try await buy(try fixture.open(), "pro")
            try await fixture.open().finish(pro)
            try edit(fixture.path, """
                INSERT INTO accounts VALUES ('thief@local', 0);
                UPDATE transactions SET account = 'thief@local' WHERE id = \(pro.id);
                """)
            let thief = try fixture.open(account: "thief@local")
            #expect(try await thief.currentEntitlements().isEmpty)
            #expect(try await thief.transactions().first?.verification != .verified)
            #expect(try await thief.sync().isEmpty, "restore does not hand it over either")
            #expect(try await fixture.open().currentEntitlements().isEmpty)
        }
    }

    @Test("a store file of schema 3 or older (signed without the account) is signed again on open; an edited row stays unverified", .fileStoreOnly)
    func schemaOneIsResigned() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            let pro = try await buy(store, "pro")
            let faces = try await buy(store, "faces")
            // Sign both as schemas 1–3 did, then edit one of them.
            let db = try SQLiteDatabase(path: fixture.path, create: false)
            let pem = try #require(try db.rows("SELECT private_key FROM signing_key", as: { $0.text(.private_key) }).first)
            let key = try SigningKey(pem: pem)
            for transaction in [pro, faces] {
                let jws = try key.sign(transaction.signedPayload(bundleID: fixture.catalog.bundleID, signedDate: Date(),
                                                                 rule: .withoutAccount))
                try db.run("UPDATE transactions SET jws = ? WHERE id = ?", jws, transaction.id)
            }
            // Without what schemas 5 and 6 added (a schema 3 file, not a newer one whose user_version was set back).
            try db.execute("""
                UPDATE transactions SET quantity = 2 WHERE id = \(faces.id);
                DROP TABLE seal_head; DROP TABLE verified_rows; ALTER TABLE transactions DROP COLUMN offer_period;
                ALTER TABLE transactions DROP COLUMN offer_discount_type; ALTER TABLE transactions DROP COLUMN seal;
                ALTER TABLE subscriptions DROP COLUMN seal; ALTER TABLE app_balances DROP COLUMN seal;
                PRAGMA user_version = 3;
                """)

            let reopened = try fixture.open()
            #expect(try db.scalar("PRAGMA user_version") == Ledger.schemaVersion)
            let history = try await reopened.transactions()
            let resigned = try #require(history.first { $0.id == pro.id })
            #expect(resigned.verification == .verified)
            let payload = try await reopened.verify(jws: try #require(resigned.jwsRepresentation)).payload
            #expect(payload["sandboxAccount"] == .string(Store.defaultAccount))
            #expect(history.first { $0.id == faces.id }?.verification != .verified)
        }
    }

    @Test("a JWS edited in the store file fails its signature", .fileStoreOnly)
    func editedSignature() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            let pro = try await buy(store, "pro")
            let jws = try #require(pro.jwsRepresentation)
            let forged = String(jws.dropLast(2)) + (jws.hasSuffix("AA") ? "BB" : "AA")
            let db = try SQLiteDatabase(path: fixture.path, create: false)
            try db.run("UPDATE transactions SET jws = ? WHERE id = ?", forged, pro.id)
            let reopened = try fixture.open()
            guard case .unverified(let reason) = try await reopened.transaction(id: pro.id).verification else {
                Issue.record("a forged signature verified")
                return
            }
            #expect(reason.contains("signature"))
            #expect(try await reopened.currentEntitlements().isEmpty)
        }
    }

    @Test("an upgrade re-signs the replaced transaction with isUpgraded")
    func resignedOnUpgrade() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            let monthly = try await buy(store, "sub.monthly")
            _ = try await buy(store, "sub.yearly")
            let replaced = try await store.transaction(id: monthly.id)
            #expect(replaced.isUpgraded)
            #expect(replaced.verification == .verified)
            let payload = try await store.verify(jws: try #require(replaced.jwsRepresentation)).payload
            #expect(payload["isUpgraded"] == .bool(true))
        }
    }

    @Test("an active subscription's renewal info is signed too")
    func renewalInfo() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            #expect(try await store.renewalInfo().isEmpty)
            let yearly = try await buy(store, "sub.yearly")
            let info = try #require(try await store.renewalInfo()["premium"])
            #expect(info.originalTransactionID == yearly.originalID)
            #expect(info.renewalDate == yearly.expirationDate)
            let payload = try await store.verify(jws: try #require(info.jwsRepresentation)).payload
            #expect(payload["originalTransactionId"] == .string(String(yearly.originalID)))
            #expect(payload["autoRenewProductId"] == .string("sub.yearly"))
            #expect(payload["autoRenewStatus"] == .number("1"))
            #expect(payload["renewalDate"] == .number(String(try #require(yearly.expirationDate).milliseconds)))
            #expect(payload["renewalPrice"] == .number("39990"))
            try await store.setAutoRenew(groupID: "premium", false)
            fixture.clock.advance(by: 366 * 86_400)
            let expired = try #require(try await store.renewalInfo()["premium"])
            #expect(expired.willAutoRenew == false)
            #expect(expired.renewalDate == yearly.expirationDate, "renewalDate stays once the subscription has expired")
            let expiredPayload = try await store.verify(jws: try #require(expired.jwsRepresentation)).payload
            #expect(expiredPayload["autoRenewStatus"] == .number("0"))
            #expect(expiredPayload["expirationIntent"] == .number("1"))
        }
    }

    @Test("a new store file, with the signing key in it, is readable by its owner only", .fileStoreOnly)
    func ownerOnly() async throws {
        try await withStoreFixture { fixture in
            _ = try await buy(try fixture.open(), "pro")
            let mode = try FileManager.default.attributesOfItem(atPath: fixture.path)[.posixPermissions] as? Int
            #expect(mode == 0o600)
        }
    }

    @Test("the key lives in the store file: a second process verifies what the first signed")
    func keyIsShared() async throws {
        try await withStoreFixture { fixture in
            let first = try fixture.open()
            let pro = try await buy(first, "pro")
            let second = try fixture.open()
            #expect(second.publicKeyPEM == first.publicKeyPEM)
            #expect(try await second.transaction(id: pro.id).verification == .verified)
            // Another store file has another key, which does not verify this one's JWS.
            let other = try Store(catalog: fixture.catalog, path: fixture.folder + "/other.sqlite")
            #expect(other.publicKeyPEM != first.publicKeyPEM)
            await #expect(throws: VerificationFailure.self) {
                _ = try await other.verify(jws: try #require(pro.jwsRepresentation))
            }
        }
    }
}
