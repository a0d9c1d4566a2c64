import Foundation
import Testing
@testable import StoreEngine

/// The store's certificate authority, signedDate on the store's clock, the
/// environment setting, and the doctor judging each schema by its own signing rule.
@Suite("certificate chain and signed dates")
struct CertificateChainTests {
    @Test("every store has a chain: a root CA, an intermediate and a leaf with Apple's markers; the leaf certifies the signing key")
    func chain() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            let chain = await store.certificateChain()
            #expect(chain.leaf.hasExtension(oid: CertificateChain.leafMarkerOID))
            #expect(!chain.leaf.hasExtension(oid: CertificateChain.intermediateMarkerOID))
            #expect(chain.intermediate.hasExtension(oid: CertificateChain.intermediateMarkerOID))
            #expect(!chain.root.hasExtension(oid: CertificateChain.leafMarkerOID))
            #expect(try chain.leaf.publicKey().hasSamePublicKey(as: SigningKey(pem: store.publicKeyPEM)))
            #expect(chain.root.commonName.hasSuffix("Root CA"))
            // Valid from a day before the store's clock when it was made, on into the far future.
            #expect(chain.leaf.notBefore == fixtureStart.addingTimeInterval(-86_400))
            #expect(try #require(chain.root.notAfter) > utc(9999, 1, 1, 0))
            // Kept in the store file: another process reads the same chain.
            #expect(try await fixture.open().certificateChain().x5c == chain.x5c)
            let bought = try await buy(store, "pro")
            let (header, _) = try await store.verify(jws: try #require(bought.jwsRepresentation))
            #expect(header["x5c"] == .array(chain.x5c.map { .string($0) }))
            #expect(header["alg"] == .string("ES256"))
        }
    }

    @Test("the chain check refuses another root, a wrong order, and dates outside the validity")
    func chainRefusals() throws {
        let key = try SigningKey.generate()
        let made = utc(2026, 6, 1, 0)
        let chain = try CertificateChain.issue(for: key, at: made)
        let leafKey = try CertificateChain.verify(x5c: chain.x5c, trustedRoot: chain.root, at: made)
        #expect(leafKey.hasSamePublicKey(as: key))
        #expect(throws: Never.self) { try CertificateChain.verify(x5c: chain.x5c, trustedRoot: chain.root, at: utc(3000, 1, 1, 0)) }
        #expect(throws: VerificationFailure.self) {
            try CertificateChain.verify(x5c: chain.x5c, trustedRoot: chain.root, at: made.addingTimeInterval(-2 * 86_400))
        }
        let other = try CertificateChain.issue(for: try SigningKey.generate(), at: made)
        #expect(throws: VerificationFailure.self) { try CertificateChain.verify(x5c: chain.x5c, trustedRoot: other.root, at: made) }
        let swapped = [chain.x5c[1], chain.x5c[0], chain.x5c[2]]
        #expect(throws: VerificationFailure.self) { try CertificateChain.verify(x5c: swapped, trustedRoot: chain.root, at: made) }
        #expect(throws: VerificationFailure.self) { try CertificateChain.verify(x5c: Array(chain.x5c.prefix(2)), trustedRoot: chain.root, at: made) }
        // A JWS signed by the leaf's key but carrying another store's chain does not verify.
        let identity = try SigningIdentity(key: key, chain: chain)
        let foreign = try SigningIdentity(key: key, chain: CertificateChain(leaf: chain.leaf, intermediate: other.intermediate, root: other.root))
        let jws = try foreign.sign(.object(["signedDate": .integer(made.milliseconds)]))
        #expect(throws: VerificationFailure.self) { try identity.verify(jws) }
        #expect(throws: VerificationFailure.self) { try identity.verifySignature(jws) }
        #expect(throws: VerificationFailure.self) { try SigningIdentity(key: try SigningKey.generate(), chain: chain) }
    }

    @Test("signedDate is store time: a renewal made by a clock jump is signed after its purchase, and renewal info at store time")
    func signedDateIsStoreTime() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            _ = try await buy(store, "sub.yearly")
            try await store.advanceClock(by: ISODuration(years: 1, days: 3))
            let now = try await store.clock().now
            #expect(now > fixtureStart.addingTimeInterval(365 * 86_400))
            let renewal = try #require(try await store.transactions().first { $0.reason == .renewal })
            let payload = try await store.verify(jws: try #require(renewal.jwsRepresentation)).payload
            #expect(payload["signedDate"] == .integer(now.milliseconds))
            #expect(payload["purchaseDate"] == .integer(renewal.purchaseDate.milliseconds))
            #expect(now >= renewal.purchaseDate)
            let info = try #require(try await store.subscriptionStatuses().first).renewalInfo
            let renewalPayload = try await store.verify(jws: try #require(info.jwsRepresentation)).payload
            #expect(renewalPayload["signedDate"] == .integer(now.milliseconds))
            #expect(renewalPayload["appTransactionId"] == payload["appTransactionId"])
        }
    }

    @Test("the environment setting: new transactions are signed for it; earlier ones keep theirs")
    func environmentSetting() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            let before = try await buy(store, "pro")
            #expect(try await store.verify(jws: try #require(before.jwsRepresentation)).payload["environment"] == .string("Xcode"))
            await #expect(throws: (any Error).self) { try await store.setSetting("environment", to: "Staging") }
            for (value, environment) in [("Sandbox", Transaction.AppStoreEnvironment.sandbox), ("production", .production),
                                         ("LocalTesting", .localTesting)] {
                try await store.setSetting("environment", to: value)
                let bought = try await buy(store, "coins")
                #expect(bought.environment == environment)
                let payload = try await store.verify(jws: try #require(bought.jwsRepresentation)).payload
                #expect(payload["environment"] == .string(environment.appStoreName))
            }
            #expect(try await store.transaction(id: before.id).environment == .xcode)
        }
    }

    @Test("the new payload fields: webOrderLineItemId per period, storefrontId, appTransactionId, the offer's discount type and period")
    func payloadFields() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            let token = UUID()
            let trial = try transaction(of: try await store.purchase("sub.monthly", appAccountToken: token))
            let payload = try await store.verify(jws: try #require(trial.jwsRepresentation)).payload
            #expect(payload["offerDiscountType"] == .string("FREE_TRIAL"))
            #expect(payload["offerPeriod"] == .string("P1W"))
            #expect(payload["storefrontId"] == .string("143441"))
            #expect(payload["appAccountToken"] == .string(token.uuidString.lowercased()))
            #expect(payload["webOrderLineItemId"] == .string(trial.webOrderLineItemID))
            try await store.advanceClock(by: ISODuration(months: 1))
            let renewal = try #require(try await store.transactions().first { $0.reason == .renewal })
            let renewed = try await store.verify(jws: try #require(renewal.jwsRepresentation)).payload
            #expect(renewed["offerDiscountType"] == nil && renewed["offerPeriod"] == nil)
            #expect(renewed["webOrderLineItemId"] != payload["webOrderLineItemId"])
            #expect(renewed["appAccountToken"] == payload["appAccountToken"])
            let pro = try await buy(store, "pro")
            let proPayload = try await store.verify(jws: try #require(pro.jwsRepresentation)).payload
            #expect(proPayload["webOrderLineItemId"] == nil)
            #expect(proPayload["appTransactionId"] == payload["appTransactionId"])
            let other = try fixture.open(account: "other@local")
            let theirs = try await buy(other, "pro")
            #expect(try await other.verify(jws: try #require(theirs.jwsRepresentation)).payload["appTransactionId"]
                    != payload["appTransactionId"])
        }
    }
}

@Suite("doctor: each schema by its own signing rule")
struct DoctorSchemaTests {
    /// A store file made now, then turned back into `version` as that schema signed:
    /// the bare key's header (kid), with or without the account; one row then edited.
    func oldFile(_ fixture: StoreFixture, version: Int64, editing: Bool) async throws -> [Transaction] {
        let store = try fixture.open()
        let bought = [try await buy(store, "pro"), try await buy(store, "sub.yearly"), try await buy(store, "coins", quantity: 2)]
        let db = try SQLiteDatabase(path: fixture.path, create: false)
        let key = try SigningKey(pem: try #require(try db.rows("SELECT private_key FROM signing_key", as: { $0.text(.private_key) }).first))
        for transaction in bought {
            let jws = try key.sign(transaction.signedPayload(bundleID: fixture.catalog.bundleID, signedDate: fixtureStart,
                                                             rule: PayloadRule.forSchema(version)))
            try db.run("UPDATE transactions SET jws = ? WHERE id = ?", jws, transaction.id)
        }
        try db.execute("UPDATE signing_key SET leaf_certificate = NULL, intermediate_certificate = NULL, root_certificate = NULL")
        if editing { try db.run("UPDATE transactions SET quantity = 5 WHERE id = ?", bought[2].id) }
        // Without what later schemas added (the seals of 6, the offer columns of 5): a file of that schema, not
        // a newer one whose user_version was set back (which the doctor calls a problem, and nothing is sealed again).
        try db.execute("""
            DROP TABLE seal_head; DROP TABLE verified_rows; ALTER TABLE transactions DROP COLUMN offer_period;
            ALTER TABLE transactions DROP COLUMN offer_discount_type; ALTER TABLE transactions DROP COLUMN seal;
            ALTER TABLE subscriptions DROP COLUMN seal; ALTER TABLE app_balances DROP COLUMN seal;
            PRAGMA user_version = \(version);
            """)
        if version < 3 { try db.execute("ALTER TABLE transactions RENAME COLUMN offer_id TO offer_id_of_schema_3") }
        return bought
    }

    @Test("schema 2, 3 and 4 files signed as their schema signed are healthy, not edited", .fileStoreOnly, arguments: [Int64(2), 3, 4])
    func olderSchemaHealthy(version: Int64) async throws {
        try await withStoreFixture { fixture in
            _ = try await oldFile(fixture, version: version, editing: false)
            let checkup = StoreDoctor.examine(path: fixture.path)
            #expect(checkup.isHealthy, "\(checkup.problems)")
            #expect(checkup.schemaVersion == version)
            #expect(checkup.passed.contains("3 transactions, every one verified"))
            #expect(checkup.notes.contains { $0.check == "schema" && $0.message.contains("certificate chain") })
        }
    }

    @Test("an edited row of an older schema is still named", .fileStoreOnly, arguments: [Int64(2), 3, 4])
    func olderSchemaEdited(version: Int64) async throws {
        try await withStoreFixture { fixture in
            let bought = try await oldFile(fixture, version: version, editing: true)
            let checkup = StoreDoctor.examine(path: fixture.path)
            #expect(checkup.problems.map(\.check) == ["unverified"])
            #expect(checkup.problems.first?.transactionIDs == [bought[2].id])
        }
    }

    @Test("a schema 3 row signed with the account (schema 4's rule) does not pass for schema 3, nor the reverse", .fileStoreOnly)
    func rulesDiffer() async throws {
        try await withStoreFixture { fixture in
            _ = try await oldFile(fixture, version: 3, editing: false)
            let db = try SQLiteDatabase(path: fixture.path, create: false)
            try db.execute("PRAGMA user_version = 4")
            #expect(StoreDoctor.examine(path: fixture.path).problems.first?.transactionIDs.count == 3)
        }
    }

    @Test("schema 5: the chain is checked; a missing chain, or a row signed the old way (kid), is a problem", .fileStoreOnly)
    func schemaFive() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            let pro = try await buy(store, "pro")
            _ = try await buy(store, "faces")
            let healthy = StoreDoctor.examine(path: fixture.path)
            #expect(healthy.isHealthy, "\(healthy.problems)")
            #expect(healthy.passed.contains { $0.hasPrefix("certificate chain") })

            let db = try SQLiteDatabase(path: fixture.path, create: false)
            let key = try SigningKey(pem: try #require(try db.rows("SELECT private_key FROM signing_key", as: { $0.text(.private_key) }).first))
            let stored = try await store.transaction(id: pro.id)
            try db.run("UPDATE transactions SET jws = ? WHERE id = ?",
                       try key.sign(stored.signedPayload(bundleID: fixture.catalog.bundleID, signedDate: fixtureStart)), pro.id)
            let oldForm = StoreDoctor.examine(path: fixture.path)
            #expect(oldForm.problems.first?.transactionIDs == [pro.id])
            #expect(oldForm.problems.first?.message.contains("x5c") == true)

            try db.execute("UPDATE signing_key SET root_certificate = NULL")
            #expect(StoreDoctor.examine(path: fixture.path).problems.map(\.check) == ["chain"])
        }
    }

    @Test("a schema 4 file opened gets its chain and every row signed again with x5c", .fileStoreOnly)
    func migrateFour() async throws {
        try await withStoreFixture { fixture in
            let bought = try await oldFile(fixture, version: 4, editing: false)
            let reopened = try fixture.open()
            let history = try await reopened.transactions()
            #expect(history.count == 3 && history.allSatisfy { $0.verification == .verified })
            let chain = await reopened.certificateChain()
            for transaction in history {
                let (header, payload) = try await reopened.verify(jws: try #require(transaction.jwsRepresentation))
                #expect(header["x5c"] == .array(chain.x5c.map { .string($0) }))
                #expect(payload["appTransactionId"] != nil)
            }
            #expect(history.map(\.id).sorted() == bought.map(\.id).sorted())
            let db = try SQLiteDatabase(path: fixture.path, create: false)
            #expect(try db.scalar("PRAGMA user_version") == Ledger.schemaVersion)
            #expect(StoreDoctor.examine(path: fixture.path).isHealthy)
        }
    }
}
