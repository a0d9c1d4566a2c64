import COpenSSL
import Foundation
import Testing
@testable import StoreEngine

/// The app receipt: every purchase the App Store keeps in a receipt, as Apple's ASN.1
/// fields, read back by a reader of the test's own (libcrypto's `ASN1_get_object`, the way
/// apps parse receipts locally), not by the engine's decoder.
@Suite("AppReceipt: the PKCS#7 app receipt and its fields")
struct AppReceiptTests {
    /// The universal tags Apple's fields use.
    static let integer: Int32 = 2, octets: Int32 = 4, utf8: Int32 = 12, ia5: Int32 = 22

    @Test("every in-app purchase is in the receipt as Apple's fields, each of its ASN.1 type; finished consumables leave it")
    func fields() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            let pro = try #require(try await store.app.buy("pro").outcome.transaction)
            let spent = try #require(try await store.app.buy("coins").outcome.transaction)  // finished: leaves the receipt
            let coins = try #require(try await store.app.purchase("coins", quantity: 3).transaction)  // unfinished: stays
            let pass = try #require(try await store.app.buy("pass").outcome.transaction)
            let monthly = try #require(try await store.app.buy("sub.monthly").outcome.transaction)  // a free week
            fixture.clock.advance(ISODuration(days: 8))
            _ = try await store.appStore.processRenewals()
            _ = try await store.appStore.refund(pro.id)

            let der = try await store.app.appReceipt()
            let payload = try ReceiptReader.payload(der)
            let top = try ReceiptReader.attributes(payload)
            func one(_ type: Int) throws -> ReceiptReader.Attribute {
                let found = top.filter { $0.type == type }
                try #require(found.count == 1, "field \(type) appears \(found.count) times")
                return found[0]
            }
            #expect(try one(2).tag == Self.utf8 && one(2).text == Catalog.defaultBundleID)
            #expect(try one(3).tag == Self.utf8 && one(3).text == "1.0")
            #expect(try one(19).tag == Self.utf8 && one(19).text == "1.0")
            #expect(try one(12).tag == Self.ia5 && one(12).text == Self.rfc3339(fixture.clock.now))
            #expect(try one(4).raw.count == 16, "the opaque value")
            #expect(try one(5).raw.count == 20, "a SHA-1 digest")
            #expect(try one(0).text == "ProductionSandbox")

            let history = try await store.appStore.transactions()
            let renewal = try #require(history.first { $0.productID == "sub.monthly" && $0.id != monthly.id })
            let expected = [pro.id, coins.id, pass.id, monthly.id, renewal.id]
            let inApps = try top.filter { $0.type == 17 }.map { try ReceiptReader.attributes($0.raw) }
            func transactionID(_ fields: [ReceiptReader.Attribute]) -> String? { fields.first { $0.type == 1703 }?.text }
            #expect(Set(inApps.map(transactionID)) == Set(expected.map { String($0) }))
            #expect(!inApps.contains { transactionID($0) == String(spent.id) })
            for fields in inApps {
                let id = try #require(transactionID(fields).flatMap { Int64($0) })
                let transaction = try #require(history.first { $0.id == id })
                func field(_ type: Int) -> ReceiptReader.Attribute? { fields.first { $0.type == type } }
                #expect(field(1701)?.tag == Self.integer && field(1701)?.integer == Int64(transaction.purchasedQuantity))
                #expect(field(1702)?.tag == Self.utf8 && field(1702)?.text == transaction.productID)
                #expect(field(1703)?.tag == Self.utf8)
                #expect(field(1704)?.tag == Self.ia5 && field(1704)?.text == Self.rfc3339(transaction.purchaseDate))
                #expect(field(1705)?.tag == Self.utf8 && field(1705)?.text == String(transaction.originalID))
                #expect(field(1706)?.tag == Self.ia5 && field(1706)?.text == Self.rfc3339(transaction.originalPurchaseDate))
                let subscription = transaction.productType == .autoRenewable
                if subscription {
                    #expect(field(1708)?.tag == Self.ia5 && field(1708)?.text == transaction.expirationDate.map(Self.rfc3339))
                    #expect(field(1711)?.tag == Self.integer && field(1711)?.integer == Int64(transaction.webOrderLineItemID))
                    let trial = transaction.offerType == .introductory
                    #expect(field(1713)?.tag == Self.integer && field(1713)?.integer == (trial ? 1 : 0), "is_trial_period")
                    #expect(field(1719)?.tag == Self.integer && field(1719)?.integer == 0, "is_in_intro_offer_period")
                } else {
                    #expect(field(1708) == nil && field(1711) == nil && field(1713) == nil, "subscription fields on \(transaction.productID)")
                }
                if let revoked = transaction.revocationDate {
                    #expect(field(1712)?.tag == Self.ia5 && field(1712)?.text == Self.rfc3339(revoked))
                } else {
                    #expect(field(1712) == nil)
                }
                #expect(field(1707)?.integer == [ProductType.nonConsumable: 0, .consumable: 1, .nonRenewable: 2, .autoRenewable: 3][transaction.productType])
            }
            #expect(inApps.contains { transactionID($0) == String(monthly.id) && $0.first { $0.type == 1713 }?.integer == 1 },
                    "the free week is a trial period")
        }
    }

    @Test("the SHA-1 hash is Apple's: SHA-1 of the device identifier, the opaque value and field 2's DER")
    func hash() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            let top = try ReceiptReader.attributes(try ReceiptReader.payload(try await store.app.appReceipt()))
            let opaque = try #require(top.first { $0.type == 4 }).raw
            let bundleField = try #require(top.first { $0.type == 2 }).raw
            let device = await store.app.deviceIdentifier()
            let input = withUnsafeBytes(of: device.uuid) { Array($0) } + opaque + bundleField
            var digest = [UInt8](repeating: 0, count: 20)
            SHA1(input, input.count, &digest)
            #expect(top.first { $0.type == 5 }?.raw == digest)
            let other = try fixture.open(account: "other")
            #expect(await other.app.deviceIdentifier() != device, "one identifier per account")
        }
    }

    @Test("the receipt opens against the store's root; an edited byte, another store's signature or garbage do not")
    func opening() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            let pro = try #require(try await store.app.buy("pro").outcome.transaction)
            var der = try await store.app.appReceipt()
            let opened = try await store.app.openReceipt(der)
            #expect(opened.inAppPurchases.map(\.transactionID) == [String(pro.id)])
            #expect(opened.bundleID == Catalog.defaultBundleID)

            // The product id's bytes inside the signed payload: the signature no longer matches.
            let at = try #require(Self.range(of: [12, 3] + Array("pro".utf8), in: der), "field 1702's UTF8STRING")
            der[at + 2] = UInt8(ascii: "q")
            await #expect(throws: ReceiptFailure.self) { try await store.app.openReceipt(der) }
            do {
                _ = try await store.app.openReceipt(der)
            } catch {
                guard case .notAuthentic? = error as? ReceiptFailure else { Issue.record("an edited receipt: \(error)"); return }
            }
            do {
                _ = try await store.app.openReceipt(Array("not a receipt".utf8))
                Issue.record("garbage opened")
            } catch {
                guard case .malformed? = error as? ReceiptFailure else { Issue.record("garbage: \(error)"); return }
            }
            try await withTemporaryFolder { other in
                let foreign = try Store(catalog: fixture.catalog, path: other + "/store.sqlite", now: fixture.clock.closure)
                do {
                    _ = try await store.app.openReceipt(try await foreign.app.appReceipt())
                    Issue.record("another store's receipt opened")
                } catch {
                    guard case .notAuthentic? = error as? ReceiptFailure else { Issue.record("another store's receipt: \(error)"); return }
                }
            }
        }
    }

    @Test("the receipt is signed by the store's RSA 2048 receipt key, under a chain apart from the JWS one, kept in the store")
    func rsaSigner() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            _ = try await store.app.buy("pro")
            let der = try await store.app.appReceipt()
            let chain = try await store.app.receiptCertificateChain()
            #expect(try chain.leaf.publicKey().isRSA && chain.intermediate.publicKey().isRSA && chain.root.publicKey().isRSA)
            #expect(try !(await store.app.certificateChain()).leaf.publicKey().isRSA, "the JWS leaf stays ES256")
            #expect(chain.root.der != (await store.app.rootCertificate()).der, "a root of its own")
            #expect(chain.leaf.commonName == "Storefront App Store Receipt Signing")
            #expect(try CertificateChain.verify(x5c: chain.x5c, trustedRoot: chain.root, at: fixture.clock.now)
                .hasSamePublicKey(as: try chain.leaf.publicKey()), "leaf, intermediate and root verify, with Apple's markers")
            // The PKCS#7's one signer is the RSA leaf: its key type and digest, read with libcrypto.
            let signer = try Self.signerInfo(der)
            #expect(signer.keyIsRSA && signer.digest == NID_sha256, "\(signer)")
            // Kept in the store: another process (a store opened again) signs with the same key and chain.
            let again = try fixture.open()
            #expect(try await again.app.receiptCertificateChain().x5c == chain.x5c)
            #expect(try await again.app.openReceipt(der).inAppPurchases.count == 1)
        }
    }

    @Test("a store made before the receipt key (no receipt_signing_key table) gets one at its first receipt, and keeps it", .fileStoreOnly)
    func storeMadeBeforeTheReceiptKey() async throws {
        try await withStoreFixture { fixture in
            let pro = try #require(try await fixture.open().app.buy("pro").outcome.transaction)
            // What a store of the earlier storefront is: the rest of its schema, no receipt signer's table.
            let db = try SQLiteDatabase(path: fixture.path, create: false)
            try db.execute("DROP TABLE receipt_signing_key")
            #expect(try db.scalar("SELECT count(*) FROM sqlite_master WHERE name = 'receipt_signing_key'") == 0)
            let store = try fixture.open()
            let der = try await store.app.appReceipt()
            #expect(try db.scalar("SELECT count(*) FROM receipt_signing_key") == 1, "issued and kept at the first receipt")
            let opened = try await store.app.openReceipt(der)
            #expect(opened.inAppPurchases.map(\.transactionID) == [String(pro.id)])
            #expect(try Self.signerInfo(der).keyIsRSA)
            let chain = try await store.app.receiptCertificateChain()
            #expect(try chain.root.publicKey().isRSA)
            #expect(try await fixture.open().app.receiptCertificateChain().x5c == chain.x5c)

            // The doctor checks it; a chain whose root was swapped (the JWS root's, by hand) is named.
            let healthy = StoreDoctor.examine(path: fixture.path)
            #expect(healthy.isHealthy && healthy.passed.contains { $0.hasPrefix("receipt-signing chain") }, "\(healthy.problems)")
            try db.execute("UPDATE receipt_signing_key SET root_certificate = (SELECT root_certificate FROM signing_key)")
            #expect(StoreDoctor.examine(path: fixture.path).problems.map(\.check) == ["receiptKey"])
        }
    }

    /// The receipt's one SignerInfo as libcrypto reads it: whether its certificate's key is RSA, and its digest's NID.
    static func signerInfo(_ der: [UInt8]) throws -> (keyIsRSA: Bool, digest: Int32) {
        let parsed: UnsafeMutablePointer<PKCS7>? = der.withUnsafeBufferPointer { buffer in
            var pointer = buffer.baseAddress
            return d2i_PKCS7(nil, &pointer, buffer.count)
        }
        let pkcs7 = try #require(parsed, "not PKCS#7")
        defer { PKCS7_free(pkcs7) }
        let signers = try #require(PKCS7_get_signer_info(pkcs7))
        try #require(OPENSSL_sk_num(signers) == 1, "one SignerInfo")
        let info = try #require(OPENSSL_sk_value(signers, 0)?.assumingMemoryBound(to: PKCS7_SIGNER_INFO.self))
        var digest: UnsafeMutablePointer<X509_ALGOR>?
        PKCS7_SIGNER_INFO_get0_algs(info, nil, &digest, nil)
        let object = try #require(digest).pointee.algorithm
        let certificate = try #require(PKCS7_cert_from_signer_info(pkcs7, info), "the signer's certificate is carried")
        let certified = try #require(X509_get0_pubkey(certificate))
        return (EVP_PKEY_get_base_id(certified) == EVP_PKEY_RSA, OBJ_obj2nid(object))
    }

    @Test("the receipt's file: none for a fresh account, made by a refresh, kept current with purchases", .fileStoreOnly)
    func file() async throws {
        try await withStoreFixture { fixture in
            let store = try fixture.open()
            let url = try await store.app.appReceiptURL()
            #expect(url.path == fixture.folder + "/store.StoreKit/\(Store.defaultAccount)/sandboxReceipt")
            #expect(!FileManager.default.fileExists(atPath: url.path), "no receipt before a refresh or a purchase")
            #expect(try await store.app.refreshReceipt() == url)
            let empty = try await store.app.openReceipt([UInt8](try Data(contentsOf: url)))
            #expect(empty.inAppPurchases.isEmpty)

            let pro = try #require(try await store.app.buy("pro").outcome.transaction)
            _ = try await store.app.appReceiptURL()
            let current = try await store.app.openReceipt([UInt8](try Data(contentsOf: url)))
            #expect(current.inAppPurchases.map(\.transactionID) == [String(pro.id)], "reading the URL brought the file up to date")
            #expect(try await fixture.open(account: "a/b").app.appReceiptURL().lastPathComponent == "sandboxReceipt")
            #expect(try await fixture.open(account: "a/b").app.appReceiptURL().deletingLastPathComponent().lastPathComponent == "a_b")
        }
    }

    static func rfc3339(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd'T'HH:mm:ss'Z'"
        return formatter.string(from: date)
    }

    static func range(of needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        return (0...(haystack.count - needle.count)).first { Array(haystack[$0..<($0 + needle.count)]) == needle }
    }
}

/// A reader of Apple's receipt format as apps write one: the PKCS#7's content through
/// `d2i_PKCS7`, then the payload walked element by element with `ASN1_get_object`.
/// (No signature check: the engine's tests and openssl do that.)
enum ReceiptReader {
    struct Failure: Error, CustomStringConvertible { var description: String }

    /// One attribute: its type, its value's raw bytes and, read as DER, its tag and content.
    struct Attribute {
        var type: Int
        var raw: [UInt8]
        var tag: Int32?
        var content: [UInt8]
        var text: String { String(decoding: content, as: UTF8.self) }
        var integer: Int64? {
            guard tag == AppReceiptTests.integer, !content.isEmpty, content.count <= 8 else { return nil }
            return content.reduce(Int64(content[0] & 0x80 != 0 ? -1 : 0)) { $0 << 8 | Int64($1) }
        }
    }

    /// The SignedData's content: the receipt payload.
    static func payload(_ der: [UInt8]) throws -> [UInt8] {
        let parsed: UnsafeMutablePointer<PKCS7>? = der.withUnsafeBufferPointer { buffer in
            var pointer = buffer.baseAddress
            return d2i_PKCS7(nil, &pointer, buffer.count)
        }
        guard let pkcs7 = parsed else { throw Failure(description: "not PKCS#7") }
        defer { PKCS7_free(pkcs7) }
        guard OBJ_obj2nid(pkcs7.pointee.type) == NID_pkcs7_signed, let signed = pkcs7.pointee.d.sign,
              let contents = signed.pointee.contents, OBJ_obj2nid(contents.pointee.type) == NID_pkcs7_data,
              let data = contents.pointee.d.data, let bytes = ASN1_STRING_get0_data(data) else {
            throw Failure(description: "no data content in the SignedData")
        }
        return Array(UnsafeBufferPointer(start: bytes, count: Int(ASN1_STRING_length(data))))
    }

    /// The elements one after another in `bytes`: tag, whether constructed, content.
    static func elements(_ bytes: [UInt8]) throws -> [(tag: Int32, content: [UInt8])] {
        try bytes.withUnsafeBufferPointer { buffer -> [(tag: Int32, content: [UInt8])] in
            guard let base = buffer.baseAddress else { return [] }
            let end = base + buffer.count
            var pointer: UnsafePointer<UInt8>? = base
            var found: [(tag: Int32, content: [UInt8])] = []
            while let current = pointer, current < end {
                var length = 0, tag: Int32 = 0, tagClass: Int32 = 0
                let result = ASN1_get_object(&pointer, &length, &tag, &tagClass, end - current)
                guard result & 0x80 == 0, let start = pointer, start + length <= end else {
                    throw Failure(description: "bad DER at \(current - base)")
                }
                found.append((tag, Array(UnsafeBufferPointer(start: start, count: length))))
                pointer = start + length
            }
            return found
        }
    }

    /// A receipt SET's attributes: `SEQUENCE { INTEGER type, INTEGER version, OCTET STRING value }`.
    static func attributes(_ set: [UInt8]) throws -> [Attribute] {
        let top = try elements(set)
        guard top.count == 1, top[0].tag == 17 else { throw Failure(description: "not one SET") }
        return try elements(top[0].content).map { sequence in
            let parts = try elements(sequence.content)
            guard sequence.tag == 16, parts.count == 3, parts[0].tag == 2, parts[1].tag == 2, parts[2].tag == 4 else {
                throw Failure(description: "an attribute is not SEQUENCE { INTEGER, INTEGER, OCTET STRING }")
            }
            let type = parts[0].content.reduce(0) { $0 << 8 | Int($1) }
            let inner = try? elements(parts[2].content)
            let value = inner?.count == 1 ? inner?.first : nil
            return Attribute(type: type, raw: parts[2].content, tag: value?.tag, content: value?.content ?? [])
        }
    }
}
