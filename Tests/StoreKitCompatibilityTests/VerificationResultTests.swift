import StorefrontKit
import StorefrontKitTest
import Testing

/// VerificationResult's parts of the JWS the store signed.
@Suite struct VerificationResultTests {
    @Test func headerPayloadAndSignedDataAreTheJWSsParts() async throws {
        try await inSession { _ in
            guard case .success(let result) = try await product(ID.goPro).purchase() else { Issue.record("not bought"); return }
            let transaction = try result.payloadValue
            let header = try #require(try JSONSerialization.jsonObject(with: result.headerData) as? [String: Any])
            #expect(header["alg"] as? String == "ES256" && (header["x5c"] as? [String])?.count == 3)
            let payload = try #require(try JSONSerialization.jsonObject(with: result.payloadData) as? [String: Any])
            #expect(payload["transactionId"] as? String == String(transaction.id) && payload["productId"] as? String == ID.goPro)
            let parts = result.jwsRepresentation.split(separator: ".")
            #expect(result.signedData == Data("\(parts[0]).\(parts[1])".utf8))
            #expect(result.signatureData.count == 64, "ES256: r and s")
            #expect(result.signedDate == transaction.signedDate && result.signedDate > Date.distantPast)
            #expect(result.deviceVerification == transaction.deviceVerification && result.deviceVerificationNonce == transaction.deviceVerificationNonce)
            let appTransaction = try await AppTransaction.shared
            #expect(appTransaction.deviceVerification == appTransaction.unsafePayloadValue.deviceVerification)
            #expect(!appTransaction.deviceVerification.isEmpty)
            await transaction.finish()
        }
    }
}
