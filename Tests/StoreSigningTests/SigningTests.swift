import Foundation
import Testing
@testable import StoreSigning
import StoreCatalog

@Suite("JWS signing (ES256)")
struct SigningTests {
    let key = try! SigningKey.generate()
    let payload = JSON.object(["transactionId": .string("2000000001"), "price": .integer(990), "productId": .string("p")])

    /// A P-256 key is read by the EC decoders alone; an RSA key, a public key and the older
    /// "EC PRIVATE KEY" form by every decoder: each comes back as the same key, and junk is refused.
    @Test("keys read back from PEM: P-256 (PKCS#8 and SEC 1), RSA and public keys are the same keys; junk is refused")
    func keysReadBackFromPEM() throws {
        let read = try SigningKey(pem: key.privateKeyPEM)
        #expect(read.hasSamePublicKey(as: key) && read.privateKeyPEM == key.privateKeyPEM)
        #expect(try key.verify(read.sign(payload)).payload == payload, "the key read back signs as the original")
        let rsa = try SigningKey.generateRSA()
        #expect(try SigningKey(pem: rsa.privateKeyPEM).privateKeyPEM == rsa.privateKeyPEM)
        #expect(try SigningKey(pem: key.publicKeyPEM).hasSamePublicKey(as: key))
        let sec1 = try #require(Self.openssl(["ec"], input: key.privateKeyPEM))
        #expect(sec1.hasPrefix("-----BEGIN EC PRIVATE KEY-----"))
        #expect(try SigningKey(pem: sec1).privateKeyPEM == key.privateKeyPEM)
        #expect(throws: VerificationFailure.self) { try SigningKey(pem: "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n") }
    }

    /// A key's PEM texts are written once and kept (every open of a store asks for both): each is
    /// still that key's own, the same each time it is asked for, and a public key has no private one.
    @Test func pemTextsAreEachKeysOwn() throws {
        let other = try SigningKey.generate()
        for _ in 0..<2 {
            #expect(key.privateKeyPEM != other.privateKeyPEM && key.publicKeyPEM != other.publicKeyPEM)
            #expect(try SigningKey(pem: other.privateKeyPEM).hasSamePublicKey(as: other))
            #expect(try SigningKey(pem: key.publicKeyPEM).hasSamePublicKey(as: key))
        }
        let publicOnly = try SigningKey(pem: key.publicKeyPEM)
        #expect(publicOnly.privateKeyPEM.isEmpty && publicOnly.privateKeyPEM.isEmpty)
        #expect(publicOnly.publicKeyPEM == key.publicKeyPEM)
    }

    /// The `openssl` command's output for `input`, nil when it fails.
    static func openssl(_ arguments: [String], input: String) -> String? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = arguments
        let (stdin, stdout) = (Pipe(), Pipe())
        (process.standardInput, process.standardOutput, process.standardError) = (stdin, stdout, FileHandle.nullDevice)
        guard (try? process.run()) != nil else { return nil }
        stdin.fileHandleForWriting.write(Data(input.utf8))
        try? stdin.fileHandleForWriting.close()
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return process.terminationStatus == 0 ? String(decoding: output, as: UTF8.self) : nil
    }

    @Test("a signed JWS verifies and gives back its header and payload")
    func roundTrip() throws {
        let jws = try key.sign(payload)
        let parts = jws.split(separator: ".")
        #expect(parts.count == 3)
        #expect(!jws.contains("="), "base64url without padding")
        #expect(Base64URL.decode(parts[2])?.count == 64, "raw r‖s, not DER")
        let (header, decoded) = try key.verify(jws)
        #expect(header["alg"] == .string("ES256"))
        #expect(header["typ"] == .string("JWT"))
        #expect(header["kid"] == .string(key.keyID))
        #expect(decoded == payload)
    }

    @Test("the public key alone verifies; a private key survives PEM")
    func pemRoundTrip() throws {
        let jws = try key.sign(payload)
        #expect(key.publicKeyPEM.hasPrefix("-----BEGIN PUBLIC KEY-----"))
        let publicOnly = try SigningKey(pem: key.publicKeyPEM)
        #expect(try publicOnly.verify(jws).payload == payload)
        let reloaded = try SigningKey(pem: key.privateKeyPEM)
        #expect(reloaded.keyID == key.keyID)
        #expect(try key.verify(reloaded.sign(payload)).payload == payload)
    }

    @Test("a changed payload byte, a changed signature byte, another key and alg none all fail")
    func tampering() throws {
        let jws = try key.sign(payload)
        var parts = jws.split(separator: ".").map(String.init)

        var editedPayload = Array(parts[1].utf8)
        editedPayload[5] = editedPayload[5] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        #expect(throws: VerificationFailure.self) {
            try key.verify([parts[0], String(decoding: editedPayload, as: UTF8.self), parts[2]].joined(separator: "."))
        }

        var signature = Base64URL.decode(parts[2])!
        signature[10] ^= 0x01
        #expect(throws: VerificationFailure.self) {
            try key.verify([parts[0], parts[1], Base64URL.encode(signature)].joined(separator: "."))
        }

        let other = try SigningKey.generate()
        #expect(throws: VerificationFailure.self) { try other.verify(jws) }

        parts[0] = Base64URL.encode(Array(#"{"alg":"none","typ":"JWT"}"#.utf8))
        #expect(throws: VerificationFailure.self) { try key.verify(parts[0] + "." + parts[1] + ".") }
        #expect(throws: VerificationFailure.self) { try key.verify(parts.joined(separator: ".")) }
        #expect(throws: VerificationFailure.self) { try key.verify("not a jws") }
    }

    @Test("the openssl command line verifies what we sign, with the exported public key")
    func independentVerifier() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("jws-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let jws = try key.sign(payload)
        let parts = jws.split(separator: ".")
        let input = folder.appendingPathComponent("input")
        try Data("\(parts[0]).\(parts[1])".utf8).write(to: input)
        let publicKey = folder.appendingPathComponent("public.pem")
        try Data(key.publicKeyPEM.utf8).write(to: publicKey)
        // r‖s to DER by hand here, so the check does not lean on the code under test.
        let raw = try #require(Base64URL.decode(parts[2]))
        let signature = folder.appendingPathComponent("signature.der")
        try Data(derSequence(r: Array(raw[0..<32]), s: Array(raw[32..<64]))).write(to: signature)

        func openssl(_ signatureFile: URL) throws -> (Int32, String) {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
            process.arguments = ["dgst", "-sha256", "-verify", publicKey.path, "-signature", signatureFile.path, input.path]
            let output = folder.appendingPathComponent("out-\(UUID().uuidString)")
            _ = FileManager.default.createFile(atPath: output.path, contents: nil)
            let handle = try FileHandle(forWritingTo: output)
            process.standardOutput = handle
            process.standardError = handle
            try process.run()
            process.waitUntilExit()
            try handle.close()
            return (process.terminationStatus, String(decoding: try Data(contentsOf: output), as: UTF8.self))
        }
        let (status, output) = try openssl(signature)
        #expect(status == 0)
        #expect(output.contains("Verified OK"))

        // And it rejects a signature of other data, so the check itself can fail.
        var wrong = raw
        wrong[40] ^= 0x80
        let wrongFile = folder.appendingPathComponent("wrong.der")
        try Data(derSequence(r: Array(wrong[0..<32]), s: Array(wrong[32..<64]))).write(to: wrongFile)
        #expect(try openssl(wrongFile).0 != 0)
    }

    /// ASN.1 DER of SEQUENCE { INTEGER r, INTEGER s } (short lengths: P-256 values fit).
    private func derSequence(r: [UInt8], s: [UInt8]) -> [UInt8] {
        func integer(_ bytes: [UInt8]) -> [UInt8] {
            var value = Array(bytes.drop { $0 == 0 })
            if value.isEmpty { value = [0] }
            if value[0] & 0x80 != 0 { value.insert(0, at: 0) }
            return [0x02, UInt8(value.count)] + value
        }
        let body = integer(r) + integer(s)
        return [0x30, UInt8(body.count)] + body
    }

    @Test("base64url encodes without padding and with the URL alphabet")
    func base64url() {
        #expect(Base64URL.encode([0xFB, 0xFF]) == "-_8")
        #expect(Base64URL.decode("-_8") == [0xFB, 0xFF])
        #expect(Base64URL.decode("ab+c") == nil, "the standard alphabet is refused")
    }
}
