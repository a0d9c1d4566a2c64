import Foundation
@testable import StorefrontCLI
import Testing

/// `storefront notifications`: the App Store Server Notifications the store recorded.
@Suite("notifications (process)")
struct NotificationsCommandTests {
    @Test("--type keeps that notificationType's only, as Get Notification History's notificationType")
    func typeFilters() async throws {
        let sandbox = try Sandbox()
        let bought = try await sandbox.storefront("buy", Demo.monthly, "--json").jsonObject()
        let id = try #require((bought["transaction"] as? [String: Any])?["id"] as? Int)
        try await sandbox.storefront("refund", String(id)).expect(exit: 0)

        let all = try await sandbox.storefront("notifications", "--json").jsonObject()
        let types = all.objects("notifications").compactMap { $0["notificationType"] as? String }
        #expect(types.contains("SUBSCRIBED") && types.contains("REFUND"), "\(types)")

        let refunds = try await sandbox.storefront("notifications", "--type", "REFUND", "--json").jsonObject()
        #expect(refunds.objects("notifications").compactMap { $0["notificationType"] as? String } == ["REFUND"])
        #expect(refunds.objects("notifications").first?["transactionId"] as? Int == id)

        let text = try await sandbox.storefront("notifications", "--type=SUBSCRIBED")
        text.expect(exit: 0)
        #expect(text.stdout.contains("SUBSCRIBED") && !text.stdout.contains("REFUND"), "\(text)")

        let none = try await sandbox.storefront("notifications", "--type", "DID_RENEW")
        none.expect(exit: 0)
        #expect(none.stdout.contains("No DID_RENEW notifications."), "\(none)")
    }

    @Test("--type is parsed into the command's own value; a type Apple has not is refused with the list")
    func typeParses() throws {
        #expect(try Invocation.parse(["notifications", "--type", "REFUND"]).command
                == .run(AnyCommand(NotificationsCommand(notificationType: .refund))))
        #expect(try Invocation.parse(["notifications"]).command == .run(AnyCommand(NotificationsCommand())))
        let bogus = expectUsageError(["notifications", "--type", "REFUNDED"])
        #expect(bogus?.description.hasPrefix("--type takes CONSUMPTION_REQUEST, ") == true, "\(String(describing: bogus))")
        #expect(bogus?.description.contains("REFUND, ") == true)
        #expect(bogus?.description.hasSuffix(", not \"REFUNDED\"") == true)
        #expect(expectUsageError(["transactions", "--type", "REFUND"])?.description == "transactions takes no --type")
    }
}
