import Foundation
import Testing

/// `offer-keys`, `offer sign` and `buy --offer --signature`, with Apple's own library signing too.
@Suite("promotional offer commands")
struct PromotionalOfferCommandTests {
    /// A lapsed subscriber of the demo's premium group.
    func lapsed(_ sandbox: Sandbox, catalog: String = Binary.catalog) async throws {
        try await sandbox.storefront(["buy", "barcode_month_subscription"], catalog: catalog).expect(exit: 0)
        try await sandbox.storefront(["expire", "premium"], catalog: catalog).expect(exit: 0)
    }

    func sign(_ sandbox: Sandbox, _ extra: [String] = []) async throws -> String {
        let run = try await sandbox.storefront(["offer", "sign", "barcode_year_subscription", "annual_comeback"] + extra)
        run.expect(exit: 0)
        return run.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test("offer-keys create prints the private key once; offer sign's JWS and legacy forms buy; a reused one fails")
    func signAndBuy() async throws {
        let sandbox = try Sandbox()
        let none = try await sandbox.storefront("offer", "sign", "barcode_year_subscription", "annual_comeback")
        none.expect(exit: 1)
        #expect(none.stderr.contains("offer-keys create"))
        let created = try await sandbox.storefront("offer-keys", "create", "KEY1", "--json").jsonObject()
        #expect((created["privateKey"] as? String)?.contains("BEGIN PRIVATE KEY") == true)
        let list = try await sandbox.storefront("offer-keys")
        #expect(list.stdout.contains("KEY1") && !list.stdout.contains("PRIVATE"))
        try await lapsed(sandbox)

        let jws = try await sign(sandbox)
        #expect(jws.split(separator: ".").count == 3)
        let bought = try await sandbox.storefront("buy", "barcode_year_subscription", "--offer", "annual_comeback", "--signature", jws, "--json")
        bought.expect(exit: 0)
        #expect((try bought.jsonObject()["transaction"] as? [String: Any])?["offerType"] as? String == "promotional")
        try await sandbox.storefront("expire", "premium").expect(exit: 0)
        let again = try await sandbox.storefront("buy", "barcode_year_subscription", "--offer", "annual_comeback", "--signature", jws)
        again.expect(exit: 1)
        #expect(again.stderr.contains("invalidOfferSignature") && again.stderr.contains("nonce"))

        let token = "6f9619ff-8b86-d011-b42d-00cf4fc964ff"
        let legacy = try await sign(sandbox, ["--legacy", "--app-account-token", token, "--key", "KEY1"])
        #expect(legacy.split(separator: ":").count == 4 && legacy.hasPrefix("KEY1:"))
        let otherToken = try await sandbox.storefront("buy", "barcode_year_subscription", "--offer", "annual_comeback",
                                                      "--signature", legacy, "--app-account-token", UUID().uuidString)
        otherToken.expect(exit: 1)
        #expect(otherToken.stderr.contains("invalidOfferSignature"))
        let legacyFresh = try await sign(sandbox, ["--legacy", "--app-account-token", token])
        try await sandbox.storefront("buy", "barcode_year_subscription", "--offer", "annual_comeback", "--signature", legacyFresh,
                                     "--app-account-token", token).expect(exit: 0)
    }

    /// Issue 40: `status --json` had the offer the next renewal takes (offerType, renewalPrice), plain
    /// `status` and the paywall's row ("products") did not; docs/qa-recipes.md says `status` shows it.
    @Test("an annual subscriber's promotional offer waits for the next renewal: status and products say so")
    func offerAtNextRenewalShown() async throws {
        let sandbox = try Sandbox()
        try await sandbox.storefront("offer-keys", "create").expect(exit: 0)
        try await sandbox.storefront("buy", "barcode_year_subscription").expect(exit: 0)
        try await sandbox.storefront("buy", "barcode_year_subscription", "--offer", "annual_comeback", "--sign").expect(exit: 0)
        let words = "next renewal: promotional offer annual_comeback at $29.99"
        let status = try await sandbox.storefront("status")
        #expect(status.stdout.contains(words), "\(status)")
        let products = try await sandbox.storefront("products")
        #expect(products.stdout.contains(words), "\(products)")
    }

    @Test("usage: --signature needs --offer and a known form; --sign and --signature not both")
    func usage() async throws {
        let sandbox = try Sandbox()
        try await sandbox.storefront("buy", "barcode_year_subscription", "--signature", "a.b.c").expect(exit: 64)
        try await sandbox.storefront("buy", "barcode_year_subscription", "--offer", "x", "--signature", "nonsense").expect(exit: 64)
        try await sandbox.storefront("buy", "barcode_year_subscription", "--offer", "x", "--signature", "a.b.c", "--sign").expect(exit: 64)
        try await sandbox.storefront("offer", "sign", "only-one").expect(exit: 64)
        try await sandbox.storefront("offer-keys", "add", "K").expect(exit: 64)
        let missing = try await sandbox.storefront("offer-keys", "add", "K", "/nonexistent.p8")
        missing.expect(exit: 64)
    }

    @Test("signatures made by Apple's library (both forms) buy the offer; its key registered with offer-keys add")
    func appleLibrarySigns() async throws {
        let sandbox = try Sandbox()
        try #require(FileManager.default.isExecutableFile(atPath: AppleLibraryTests.python.path),
                     "Apple's App Store Server Library is not installed in .build/oracle: run `make oracle`")
        let created = try await Sandbox().storefront("offer-keys", "create", "--json").jsonObject()
        let privateKey = try #require(created["privateKey"] as? String)
        let keyFile = try sandbox.write("SubscriptionKey_APPLE1.p8", privateKey)
        try await sandbox.storefront("offer-keys", "add", "APPLE1", keyFile, "--issuer", "issuer-1").expect(exit: 0)
        try await lapsed(sandbox)
        let bundle = "com.example.Barcode"
        let catalogBundle = try await sandbox.storefront("app-transaction", "--json").jsonObject()["bundleID"] as? String ?? bundle
        let clock = try await sandbox.storefront("clock", "--json").jsonObject()
        let nowText = try #require(clock["now"] as? String)
        let now = try #require(ISO8601DateFormatter().date(from: nowText))
        let script = """
            import sys, uuid
            from appstoreserverlibrary.promotional_offer import PromotionalOfferSignatureCreator
            from appstoreserverlibrary.jws_signature_creator import PromotionalOfferV2SignatureCreator
            key = open(sys.argv[1], 'rb').read()
            nonce = uuid.uuid4()
            legacy = PromotionalOfferSignatureCreator(key, 'APPLE1', sys.argv[2]).create_signature(
                'barcode_year_subscription', 'annual_comeback', '', nonce, int(sys.argv[3]))
            print('APPLE1:%s:%s:%s' % (nonce, sys.argv[3], legacy))
            print(PromotionalOfferV2SignatureCreator(key, 'APPLE1', 'issuer-1', sys.argv[2]).create_signature(
                'barcode_year_subscription', 'annual_comeback', None))
            """
        let run = try await Sandbox.launch(AppleLibraryTests.python, arguments: [
            "-c", script, keyFile, catalogBundle, String(Int64(now.timeIntervalSince1970 * 1000)),
        ], environment: ["PATH": "/usr/bin:/bin"], directory: sandbox.folder)
        run.expect(exit: 0)
        let lines = run.stdout.split(separator: "\n").map(String.init)
        try #require(lines.count == 2)
        try await sandbox.storefront("buy", "barcode_year_subscription", "--offer", "annual_comeback", "--signature", lines[0]).expect(exit: 0)
        try await sandbox.storefront("expire", "premium").expect(exit: 0)
        // The compact JWS's iat is the real clock: the store's starts there too.
        let jws = try await sandbox.storefront("buy", "barcode_year_subscription", "--offer", "annual_comeback", "--signature", lines[1])
        jws.expect(exit: 0)
    }
}
