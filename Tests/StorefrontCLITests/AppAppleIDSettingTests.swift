import Foundation
import Testing

/// `settings set appAppleId`: the app's Apple ID Production's payloads carry.
@Suite("appAppleId setting")
struct AppAppleIDSettingTests {
    @Test("settings set appAppleId takes a positive number or none; anything else is refused with the values allowed")
    func setting() async throws {
        let sandbox = try Sandbox()
        func value() async throws -> String? {
            (try await sandbox.storefront("settings", "--json").jsonObject()["settings"] as? [String: Any])?["appAppleId"] as? String
        }
        #expect(try await value() == "none")
        try await sandbox.storefront("settings", "set", "appAppleId", "1234567890").expect(exit: 0)
        #expect(try await value() == "1234567890")
        for bad in ["0", "12ab", "99999999999999999999"] {
            let refused = try await sandbox.storefront("settings", "set", "appAppleId", bad)
            refused.expect(exit: 64)
            #expect(refused.stderr.contains("positive number"), "\(bad): \(refused.stderr)")
        }
        #expect(try await value() == "1234567890", "a refused value changes nothing")
        try await sandbox.storefront("settings", "set", "appAppleId", "none").expect(exit: 0)
        #expect(try await value() == "none")
    }
}
