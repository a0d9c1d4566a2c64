import Foundation
import StoreEngine
import Testing

/// The app receipt checked by parties that are not Storefront: Apple's App Store Server
/// Library's receipt utility reads a transaction id from it, `openssl` verifies its PKCS#7
/// signature (SHA-256 with RSA) against the receipt root `storefront key export --receipt --root` prints, and a legacy backend
/// script verifies it at `storefront serve`'s verifyReceipt. The purchases are made by the
/// binary; the receipt is made as an app makes it (StorefrontKit's engine, in this process).
@Suite("App receipt: Apple's receipt utility, openssl and a legacy backend")
struct AppReceiptOracleTests: ServerHarness {
    static let legacyScript = Binary.repository.appendingPathComponent("scripts/legacy-verify-receipt.py").path
    static let openssl = URL(fileURLWithPath: "/usr/bin/openssl")

    /// The receipt the app reads now (refreshed), from the sandbox's store file.
    func receipt(_ sandbox: Sandbox, catalog: String) async throws -> (url: URL, der: Data) {
        let store = try Store(catalog: try Catalog.load(contentsOf: catalog), path: sandbox.store)
        let url = try await store.app.refreshReceipt()
        return (url, try Data(contentsOf: url))
    }

    func transactionIDs(_ sandbox: Sandbox, catalog: String) async throws -> [String] {
        let listed = try await sandbox.storefront(["transactions", "--json"], catalog: catalog).jsonObject()
        return try #require(listed["transactions"] as? [[String: Any]]).compactMap { ($0["id"] as? Int).map(String.init) }
    }

    /// Apple's ReceiptUtility on a base64 receipt: its answer (a transaction id, or None) on stdout.
    func receiptUtility(_ sandbox: Sandbox, _ base64: String) async throws -> RunResult {
        try #require(FileManager.default.isExecutableFile(atPath: AppleLibraryTests.python.path),
                     "Apple's App Store Server Library is not installed in .build/oracle: run `make oracle` (make test does)")
        let script = """
            import sys
            from appstoreserverlibrary.receipt_utility import ReceiptUtility
            print(ReceiptUtility().extract_transaction_id_from_app_receipt(sys.argv[1]))
            """
        return try await Sandbox.launch(AppleLibraryTests.python, arguments: ["-c", script, base64],
                                        environment: ["PATH": "/usr/bin:/bin"], directory: sandbox.folder)
    }

    @Test("Apple's ReceiptUtility reads the purchase's transaction id from the receipt, and None from one without purchases")
    func receiptUtility() async throws {
        let sandbox = try Sandbox()
        let empty = try await receipt(sandbox, catalog: Binary.catalog)
        let none = try await receiptUtility(sandbox, empty.der.base64EncodedString())
        #expect(none.status == 0 && none.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "None", "\(none)")

        try await sandbox.storefront("buy", Demo.goPro).expect(exit: 0)
        let one = try await receipt(sandbox, catalog: Binary.catalog)
        let ids = try await transactionIDs(sandbox, catalog: Binary.catalog)
        let found = try await receiptUtility(sandbox, one.der.base64EncodedString())
        #expect(found.status == 0 && found.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == ids.first, "\(found)")

        try await sandbox.storefront("buy", Demo.monthly).expect(exit: 0)
        let two = try await receipt(sandbox, catalog: Binary.catalog)
        let either = try await receiptUtility(sandbox, two.der.base64EncodedString())
        #expect(try await transactionIDs(sandbox, catalog: Binary.catalog).contains(either.stdout.trimmingCharacters(in: .whitespacesAndNewlines)),
                "\(either)")
        let garbage = try await receiptUtility(sandbox, Data("not a receipt".utf8).base64EncodedString())
        #expect(garbage.status != 0 && garbage.stderr.contains("ValueError"), "\(garbage)")
    }

    @Test("storefront receipt prints the receipt-data Apple's ReceiptUtility reads; --json names its file and purchases")
    func receiptCommand() async throws {
        let sandbox = try Sandbox()
        try await sandbox.storefront("buy", Demo.goPro).expect(exit: 0)
        let ids = try await transactionIDs(sandbox, catalog: Binary.catalog)
        let listed = try await sandbox.storefront("receipt", "--json").jsonObject()
        #expect(listed["transactionIds"] as? [String] == ids)
        #expect(listed["receiptType"] as? String == "ProductionSandbox")
        let path = try #require(listed["path"] as? String)
        #expect(path == sandbox.path("store.StoreKit/\(Store.defaultAccount)/sandboxReceipt"))
        let base64 = try #require(listed["receiptData"] as? String)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)).base64EncodedString() == base64)
        let text = try await sandbox.storefront("receipt")
        text.expect(exit: 0)
        let found = try await receiptUtility(sandbox, text.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(found.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == ids.first, "\(found)")
        let refreshed = try await sandbox.storefront("receipt", "refresh")
        #expect(refreshed.status == 0 && refreshed.stdout.contains(path), "\(refreshed)")
    }

    @Test("openssl verifies the receipt's PKCS#7 signature against the exported receipt root and gets the payload; not an edited one, nor another store's root, nor the JWS root")
    func openssl() async throws {
        let sandbox = try Sandbox()
        try await sandbox.storefront("buy", Demo.goPro).expect(exit: 0)
        let rootPEM = try await sandbox.storefront("key", "export", "--receipt", "--root")
        rootPEM.expect(exit: 0)
        let root = try sandbox.write("root.pem", rootPEM.stdout)
        let made = try await receipt(sandbox, catalog: Binary.catalog)
        let file = made.url.path
        func run(_ arguments: [String]) async throws -> RunResult {
            try await Sandbox.launch(Self.openssl, arguments: arguments, environment: ["PATH": "/usr/bin:/bin"], directory: sandbox.folder)
        }
        let payload = sandbox.path("payload.der")
        let smime = try await run(["smime", "-verify", "-binary", "-inform", "DER", "-in", file, "-CAfile", root, "-out", payload])
        #expect(smime.status == 0 && smime.stderr.contains("Verification successful"), "\(smime)")
        let cms = try await run(["cms", "-verify", "-binary", "-inform", "DER", "-in", file, "-CAfile", root, "-out", payload + ".cms"])
        #expect(cms.status == 0, "\(cms)")
        // The payload is Apple's SET of attributes, the product's id among them.
        let parsed = try await run(["asn1parse", "-inform", "DER", "-in", payload])
        #expect(parsed.status == 0 && parsed.stdout.contains("SET"), "\(parsed)")
        let bytes = try Data(contentsOf: URL(fileURLWithPath: payload))
        #expect(bytes.first == 0x31, "a SET")
        #expect(bytes.range(of: Data(Demo.goPro.utf8)) != nil)

        var edited = made.der
        let at = try #require(edited.range(of: Data(Demo.goPro.utf8))).lowerBound
        edited[at] ^= 0x20
        let editedFile = try sandbox.write("edited", edited)
        let refused = try await run(["smime", "-verify", "-binary", "-inform", "DER", "-in", editedFile, "-CAfile", root, "-out", payload])
        #expect(refused.status != 0, "an edited receipt verified: \(refused)")
        let other = try Sandbox()
        let otherRoot = try sandbox.write("other.pem", try await other.storefront("key", "export", "--receipt", "--root").stdout)
        let foreign = try await run(["smime", "-verify", "-binary", "-inform", "DER", "-in", file, "-CAfile", otherRoot, "-out", payload])
        #expect(foreign.status != 0, "another store's root verified the receipt: \(foreign)")
        // A chain apart, as Apple's receipts (Apple Root CA) are from its JWS (Apple Root CA - G3).
        let jwsRoot = try sandbox.write("jws-root.pem", try await sandbox.storefront("key", "export", "--root").stdout)
        let apart = try await run(["smime", "-verify", "-binary", "-inform", "DER", "-in", file, "-CAfile", jwsRoot, "-out", payload])
        #expect(apart.status != 0, "the JWS root verified the receipt: \(apart)")
        // The receipt root is the store's: printed again the same.
        #expect(try await sandbox.storefront("key", "export", "--receipt", "--root").stdout == rootPEM.stdout)
    }

    @Test("the receipt's signer is RSA as Apple's: an RSA 2048 leaf, SHA-256 with RSA (PKCS#1 v1.5), its intermediate and root RSA and named as Apple's receipt chain")
    func rsaSigner() async throws {
        let sandbox = try Sandbox()
        try await sandbox.storefront("buy", Demo.goPro).expect(exit: 0)
        let made = try await receipt(sandbox, catalog: Binary.catalog)
        func run(_ arguments: [String]) async throws -> RunResult {
            try await Sandbox.launch(Self.openssl, arguments: arguments, environment: ["PATH": "/usr/bin:/bin"], directory: sandbox.folder)
        }
        let printed = try await run(["cms", "-cmsout", "-print", "-inform", "DER", "-in", made.url.path])
        #expect(printed.status == 0, "\(printed)")
        let lines = printed.stdout.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        let signerInfo = try #require(lines.firstIndex(of: "signerInfos:"), "\(printed.stdout)")
        let signer = Array(lines[signerInfo...])
        let digest = try #require(signer.firstIndex(of: "digestAlgorithm:"))
        #expect(signer[digest + 1].hasPrefix("algorithm: sha256 "), "\(signer[digest + 1])")
        let signature = try #require(signer.firstIndex(of: "signatureAlgorithm:"))
        #expect(signer[signature + 1].hasPrefix("algorithm: rsaEncryption "), "\(signer[signature + 1])")
        // The certificates it carries: leaf, intermediate and root, each RSA 2048, signed SHA-256 with RSA.
        let certificates = try await run(["pkcs7", "-inform", "DER", "-in", made.url.path, "-print_certs", "-text", "-noout"])
        #expect(certificates.status == 0, "\(certificates)")
        let text = certificates.stdout
        #expect(text.components(separatedBy: "Public Key Algorithm: rsaEncryption").count - 1 == 3, "\(text)")
        #expect(text.components(separatedBy: "Public-Key: (2048 bit)").count - 1 == 3)
        #expect(text.components(separatedBy: "Signature Algorithm: sha256WithRSAEncryption").count - 1 >= 3)
        #expect(!text.contains("id-ecPublicKey"), "an ECDSA key in the receipt's chain")
        for name in ["CN=Storefront App Store Receipt Signing", "CN=Storefront Worldwide Developer Relations Certification Authority",
                     "CN=Storefront Receipt Root CA"] {
            #expect(text.contains(name), "\(name)")
        }
        // The key that signed is the one `key export --receipt` prints.
        let exported = try await sandbox.storefront("key", "export", "--receipt")
        exported.expect(exit: 0)
        let key = try sandbox.write("receipt-key.pem", exported.stdout)
        let details = try await run(["pkey", "-pubin", "-in", key, "-text", "-noout"])
        #expect(details.status == 0 && details.stdout.contains("Public-Key: (2048 bit)"), "\(details)")
    }

    @Test("a raw-payload verifier, as Apple's receipts are checked: the SignerInfo has no signed attributes and its signature is the leaf key's over the payload itself")
    func rawPayloadSignature() async throws {
        let sandbox = try Sandbox()
        try await sandbox.storefront("buy", Demo.goPro).expect(exit: 0)
        let keyPEM = try await sandbox.storefront("key", "export", "--receipt")
        keyPEM.expect(exit: 0)
        let key = try sandbox.write("leaf-key.pem", keyPEM.stdout)
        let made = try await receipt(sandbox, catalog: Binary.catalog)
        func run(_ arguments: [String]) async throws -> RunResult {
            try await Sandbox.launch(Self.openssl, arguments: arguments, environment: ["PATH": "/usr/bin:/bin"], directory: sandbox.folder)
        }
        // Apple's receipts carry no signed attributes (no contentType, signingTime, messageDigest).
        let printed = try await run(["cms", "-cmsout", "-print", "-inform", "DER", "-in", made.url.path])
        #expect(printed.status == 0, "\(printed)")
        let lines = printed.stdout.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        let attributes = try #require(lines.firstIndex(of: "signedAttrs:"), "\(printed.stdout)")
        #expect(lines[attributes + 1] == "<ABSENT>", "signed attributes: \(lines[attributes + 1])")
        // The SignerInfo's signature is the structure's last OCTET STRING; the payload its first.
        let parsed = try await run(["asn1parse", "-inform", "DER", "-in", made.url.path])
        // "  62:d=5  hl=4 l= 423 prim: OCTET STRING      [HEX DUMP]:…": offset, header length, length.
        func number(after marker: String, in line: Substring) -> Int {
            guard let start = line.range(of: marker)?.upperBound else { return -1 }
            return Int(line[start...].drop { $0 == " " }.prefix { $0.isNumber }) ?? -1
        }
        let strings = parsed.stdout.split(separator: "\n").filter { $0.contains("OCTET STRING") }.map { line in
            (Int(line.prefix { $0 != ":" }.trimmingCharacters(in: .whitespaces)) ?? -1,
             number(after: "hl=", in: line), number(after: " l=", in: line))
        }
        let (payloadAt, payloadHeader, payloadLength) = try #require(strings.first, "\(parsed.stdout)")
        let (signatureAt, signatureHeader, signatureLength) = try #require(strings.last)
        let bytes = made.der
        let payload = try sandbox.write("payload.der", bytes.subdata(in: (payloadAt + payloadHeader)..<(payloadAt + payloadHeader + payloadLength)))
        let signature = try sandbox.write("signature.der",
                                          bytes.subdata(in: (signatureAt + signatureHeader)..<(signatureAt + signatureHeader + signatureLength)))
        // SHA-256 with RSA (PKCS#1 v1.5) over the payload, as verifiers written for Apple's receipts check it.
        #expect(signatureLength == 256, "an RSA 2048 signature is 256 bytes, not \(signatureLength)")
        let verified = try await run(["dgst", "-sha256", "-verify", key, "-signature", signature, payload])
        #expect(verified.status == 0 && verified.stdout.contains("Verified OK"), "\(verified)")
        let recovered = try await run(["pkeyutl", "-verifyrecover", "-pubin", "-inkey", key, "-in", signature,
                                       "-pkeyopt", "rsa_padding_mode:pkcs1", "-out", sandbox.path("digestinfo.der")])
        #expect(recovered.status == 0, "an RSA PKCS#1 v1.5 signature: \(recovered)")
        // And openssl's own PKCS#7 verification still accepts it, against the store's receipt root.
        let root = try sandbox.write("root.pem", try await sandbox.storefront("key", "export", "--receipt", "--root").stdout)
        let pkcs7 = try await run(["smime", "-verify", "-binary", "-inform", "DER", "-in", made.url.path, "-CAfile", root,
                                   "-out", sandbox.path("out.der")])
        #expect(pkcs7.status == 0, "\(pkcs7)")
    }

    @Test("a legacy backend over HTTP: the production URL says 21007, the sandbox URL answers 0 with the receipt and the subscription's state")
    func legacyBackend() async throws {
        let setup = try await setup()
        let secret = "00112233445566778899aabbccddeeff"
        try await setup.sandbox.storefront(["settings", "set", "sharedSecret", secret], catalog: setup.catalog).expect(exit: 0)
        try await setup.sandbox.storefront(["buy", "monthly"], catalog: setup.catalog).expect(exit: 0)
        try await setup.sandbox.storefront(["buy", "pro"], catalog: setup.catalog).expect(exit: 0)
        let made = try await receipt(setup.sandbox, catalog: setup.catalog)
        let ids = try await transactionIDs(setup.sandbox, catalog: setup.catalog)
        let server = try startServer(setup)
        let port = try await port(of: server)
        defer { Task { await server.stop() } }
        func backend(_ password: String?) async throws -> [String: Any] {
            let result = try await Sandbox.launch(
                AppleLibraryTests.python,
                arguments: [Self.legacyScript, "--production", "http://127.0.0.1:\(port)/verifyReceipt",
                            "--sandbox", "http://127.0.0.1:\(port)/sandbox/verifyReceipt", "--receipt", made.url.path]
                    + (password.map { ["--password", $0] } ?? []),
                environment: ["PATH": "/usr/bin:/bin"], directory: setup.sandbox.folder)
            result.expect(exit: 0)
            return try result.jsonObject()
        }
        let answered = try await backend(secret)
        #expect(answered["statuses"] as? [Int] == [21007, 0])
        #expect(ids.contains(try #require(answered["transactionId"] as? String)), "Apple's ReceiptUtility read an id of ours")
        let answer = try #require(answered["answer"] as? [String: Any])
        #expect(answer["environment"] as? String == "Sandbox")
        let receipt = try #require(answer["receipt"] as? [String: Any])
        #expect(receipt["bundle_id"] as? String == Self.bundleID)
        let inApp = try #require(receipt["in_app"] as? [[String: Any]])
        #expect(Set(inApp.compactMap { $0["product_id"] as? String }) == ["monthly", "pro"])
        #expect(Set(inApp.compactMap { $0["transaction_id"] as? String }) == Set(ids))
        let trial = try #require(inApp.first { $0["product_id"] as? String == "monthly" })
        #expect(trial["is_trial_period"] as? String == "true", "the monthly plan starts with a free week")
        #expect(trial["expires_date_ms"] is String && trial["web_order_line_item_id"] is String)
        #expect((answer["latest_receipt_info"] as? [[String: Any]])?.isEmpty == false)
        #expect((answer["pending_renewal_info"] as? [[String: Any]])?.first?["auto_renew_status"] as? String == "1")
        #expect(answer["latest_receipt"] is String)

        let wrong = try await backend("ffffffffffffffffffffffffffffffff")
        #expect(wrong["statuses"] as? [Int] == [21007, 21004])
        await server.stop()
    }
}
