import Foundation
import Testing

/// `storefront app-transaction`, and Apple's library decoding it.
@Suite("app-transaction command")
struct AppTransactionCommandTests {
    @Test("app-transaction prints the fields; --json carries the JWS")
    func prints() async throws {
        let sandbox = try Sandbox()
        let text = try await sandbox.storefront("app-transaction")
        text.expect(exit: 0)
        #expect(text.stdout.contains("appTransactionID") && text.stdout.contains("1.0"))
        let json = try await sandbox.storefront("app-transaction", "--json").jsonObject()
        // Apple's spelling, as in the signed payload and settings: not the enum case's `xcode`.
        #expect(json["environment"] as? String == "Xcode")
        #expect((json["jwsRepresentation"] as? String)?.split(separator: ".").count == 3)
        try await sandbox.storefront("buy", "com.razeware.razefaces.swiftshopping").expect(exit: 0)
        let listed = try await sandbox.storefront("transactions", "--json").jsonObject()
        #expect((listed["transactions"] as? [[String: Any]])?.first?["environment"] as? String == "Xcode")
        #expect((json["appTransactionID"] as? String)?.allSatisfy(\.isNumber) == true)
        try await sandbox.storefront("app-transaction", "extra").expect(exit: 64)
    }

    @Test("Apple's library verifies the app transaction against the exported root (Sandbox)")
    func appleLibrary() async throws {
        let sandbox = try Sandbox()
        let catalog = try sandbox.write("catalog.json", AppleLibraryTests.catalog)
        try await sandbox.storefront(["settings", "set", "environment", "Sandbox"], catalog: catalog).expect(exit: 0)
        try await sandbox.storefront(["buy", "pro"], catalog: catalog).expect(exit: 0)
        let json = try await sandbox.storefront(["app-transaction", "--json"], catalog: catalog).jsonObject()
        let jws = try #require(json["jwsRepresentation"] as? String)
        let history = try await sandbox.storefront(["transactions", "--json"], catalog: catalog).jsonObject()
        let transaction = try #require((history["transactions"] as? [[String: Any]])?.first?["jwsRepresentation"] as? String)
        let exported = try await sandbox.storefront(["key", "export", "--root", "--der"], catalog: catalog)
        let root = try sandbox.write("root.der", exported.stdoutBytes)
        try #require(FileManager.default.isExecutableFile(atPath: AppleLibraryTests.python.path),
                     "Apple's App Store Server Library is not installed in .build/oracle: run `make oracle`")
        let input = try JSONSerialization.data(withJSONObject: ["appTransactions": [jws], "transactions": [transaction]])
        let result = try await Sandbox.launch(AppleLibraryTests.python, arguments: [
            AppleLibraryTests.script, "--environment", "Sandbox", "--bundle-id", AppleLibraryTests.bundleID,
            "--root", root, "--input", try sandbox.write("signed.json", input),
        ], environment: ["PATH": "/usr/bin:/bin"], directory: sandbox.folder)
        result.expect(exit: 0)
        let decoded = try #require(try result.jsonObject()["appTransactions"] as? [[String: [String: Any]]])
        let app = try #require(decoded.first)
        #expect(app["receiptType"]?["value"] as? String == "Sandbox")
        #expect(app["bundleId"]?["value"] as? String == AppleLibraryTests.bundleID)
        #expect(app["originalApplicationVersion"]?["value"] as? String == "1.0")
        #expect(app["originalPurchaseDate"]?["type"] as? String == "int")
        let decodedTransaction = try #require((try result.jsonObject()["transactions"] as? [[String: [String: Any]]])?.first)
        #expect(app["appTransactionId"]?["value"] as? String == json["appTransactionID"] as? String)
        #expect(decodedTransaction["appTransactionId"]?["value"] as? String == json["appTransactionID"] as? String)
    }
}
