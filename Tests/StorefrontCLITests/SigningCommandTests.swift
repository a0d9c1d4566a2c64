import Foundation
import Testing

/// Signed transactions through the binary: export the key, verify with an
/// outside verifier, and catch rows edited with the sqlite3 command line.
@Suite("signing commands")
struct SigningCommandTests {
    func firstJWS(_ sandbox: Sandbox) async throws -> String {
        let history = try await sandbox.storefront("transactions", "--json").jsonObject()
        let transactions = try #require(history["transactions"] as? [[String: Any]])
        return try #require(transactions.first?["jwsRepresentation"] as? String)
    }

    @Test("key export prints a PEM public key that openssl uses to verify a purchase's JWS")
    func exportAndVerifyWithOpenSSL() async throws {
        let sandbox = try Sandbox()
        try await sandbox.storefront("buy", Demo.swiftShopping).expect(exit: 0)
        let exported = try await sandbox.storefront("key", "export")
        exported.expect(exit: 0)
        #expect(exported.stdout.hasPrefix("-----BEGIN PUBLIC KEY-----"))
        let keyFile = try sandbox.write("key.pem", exported.stdout)

        let parts = try await firstJWS(sandbox).split(separator: ".")
        #expect(parts.count == 3)
        let input = try sandbox.write("input", "\(parts[0]).\(parts[1])")
        // Raw r‖s → DER for openssl, by hand.
        let raw = try #require(Self.base64url(String(parts[2])))
        #expect(raw.count == 64)
        func integer(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
            var value = Array(bytes.drop { $0 == 0 })
            if value.first.map({ $0 & 0x80 != 0 }) ?? true { value.insert(0, at: 0) }
            return [0x02, UInt8(value.count)] + value
        }
        let body = integer(raw[0..<32]) + integer(raw[32..<64])
        let signature = try sandbox.write("signature.der", Data([0x30, UInt8(body.count)] + body))
        let result = try await Sandbox.launch(
            URL(fileURLWithPath: "/usr/bin/openssl"),
            arguments: ["dgst", "-sha256", "-verify", keyFile, "-signature", signature, input],
            environment: ["PATH": "/usr/bin:/bin"], directory: sandbox.folder)
        #expect(result.status == 0)
        #expect(result.stdout.contains("Verified OK"))
    }

    @Test("verify prints the payload of a good JWS and exits 1 for an edited one")
    func verifyCommand() async throws {
        let sandbox = try Sandbox()
        try await sandbox.storefront("buy", Demo.goPro).expect(exit: 0)
        let jws = try await firstJWS(sandbox)
        let good = try await sandbox.storefront("verify", jws, "--json")
        good.expect(exit: 0)
        let document = try good.jsonObject()
        #expect(document["verification"] as? String == "verified")
        let payload = try #require(document["payload"] as? [String: Any])
        #expect(payload["productId"] as? String == Demo.goPro)
        #expect(payload["type"] as? String == "Non-Consumable")

        var parts = jws.split(separator: ".").map(String.init)
        parts[1] = String(parts[1].dropLast()) + (parts[1].hasSuffix("A") ? "B" : "A")
        let bad = try await sandbox.storefront("verify", parts.joined(separator: "."))
        bad.expect(exit: 1)
        #expect(bad.stderr.contains("failedVerification"))
    }

    @Test("a row edited with the sqlite3 command line shows as unverified and is not an entitlement")
    func sqliteEdit() async throws {
        let sandbox = try Sandbox()
        try await sandbox.storefront("buy", Demo.swiftShopping).expect(exit: 0)
        let edit = try await Sandbox.launch(
            URL(fileURLWithPath: "/usr/bin/sqlite3"),
            arguments: [sandbox.store, "UPDATE transactions SET product_id = '\(Demo.goPro)'"],
            environment: ["PATH": "/usr/bin:/bin"], directory: sandbox.folder)
        #expect(edit.status == 0, "sqlite3: \(edit.stderr)")

        let history = try await sandbox.storefront("transactions", "--json").jsonObject()
        let row = try #require((history["transactions"] as? [[String: Any]])?.first)
        #expect(row["productID"] as? String == Demo.goPro)
        #expect(row["verification"] as? String == "unverified")
        #expect((row["verificationError"] as? String)?.contains("does not match") == true)
        let entitlements = try await sandbox.storefront("entitlements", "--json").jsonObject()
        #expect((entitlements["entitlements"] as? [Any])?.isEmpty == true)
        let products = try await sandbox.storefront("products", "--json").jsonObject()
        let goPro = try #require((products["products"] as? [[String: Any]])?.first { $0["id"] as? String == Demo.goPro })
        #expect(goPro["owned"] as? Bool == false)
    }

    static func base64url(_ text: String) -> [UInt8]? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64).map { [UInt8]($0) }
    }
}
