import Foundation
import StoreEngine
import StorefrontServer
import Testing

extension ServerAPITests {
    @Test("Extend a Subscription Renewal Date: a third extension within 365 days is SubscriptionMaxExtensionError (403, 4030005)")
    func thirdExtension() async throws {
        let fixture = try await Fixture()
        let monthly = try await fixture.buy("monthly")
        let path = "/inApps/v1/subscriptions/extend/\(monthly.originalID)"
        for request in ["r-1", "r-2"] {
            let terms: [String: Any] = ["extendByDays": 3, "extendReasonCode": 1, "requestIdentifier": request]
            #expect(try await fixture.send("PUT", path, body: terms).status == 200)
        }
        let third: [String: Any] = ["extendByDays": 3, "extendReasonCode": 1, "requestIdentifier": "r-3"]
        #expect(try Self.error(try await fixture.send("PUT", path, body: third)) == (403, 4030005))
        let status = try #require(try await fixture.store.app.subscriptionStatuses().first)
        #expect(status.transaction.expirationDate == monthly.expirationDate?.addingTimeInterval(6 * 86_400))
    }
}
