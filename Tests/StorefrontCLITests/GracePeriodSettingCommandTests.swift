import Foundation
import Testing

/// `settings set gracePeriodDuration|gracePeriodRenewalType`: App Store Connect's values, through the binary.
@Suite("settings command: the Billing Grace Period")
struct GracePeriodSettingCommandTests {
    @Test func durationsAndRenewalTypesAreAppStoreConnects() async throws {
        let sandbox = try Sandbox()
        try await sandbox.storefront("settings", "set", "gracePeriodDuration", "twenty_eight_days").expect(exit: 0)
        try await sandbox.storefront("settings", "set", "gracePeriodRenewalType", "PAID_TO_PAID_ONLY").expect(exit: 0)
        let refused = try await sandbox.storefront("settings", "set", "gracePeriodDuration", "6")
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("3, 16 or 28"), "\(refused)")
        let listed = try await sandbox.storefront("settings", "--json").jsonObject()
        let values = try #require(listed["settings"] as? [String: Any], "\(listed)")
        #expect(values["gracePeriodDuration"] as? String == "28")
        #expect(values["gracePeriodRenewalType"] as? String == "PAID_TO_PAID_ONLY")
    }
}
