import StorefrontKit
import StorefrontKitTest
import Testing

/// AppTransaction's StoreKit 2 fields, as the store signs it.
@Suite struct AppTransactionTests {
    @Test func sandboxFieldsPlatformAndDeviceVerification() async throws {
        try await inSession { _ in
            guard case .verified(let app) = try await AppTransaction.shared else { Issue.record("unverified"); return }
            #expect(app.appID == nil && app.appVersionID == nil, "nil in Xcode and the sandbox, as on a device")
            #expect(app.preorderDate == nil && app.originalPlatform == .iOS && app.originalPlatform.rawValue == "iOS")
            let device = try #require(AppStore.deviceVerificationID)
            #expect(app.deviceVerification == sha384(app.deviceVerificationNonce.uuidString.lowercased() + device.uuidString.lowercased()))
            let again = try await AppTransaction.shared.unsafePayloadValue
            #expect(again.deviceVerificationNonce == app.deviceVerificationNonce || again.signedDate != app.signedDate)
        }
    }
}
