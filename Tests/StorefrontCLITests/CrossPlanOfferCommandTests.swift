import Foundation
import Testing

/// `redeem` and `buy --offer` for another plan of the group than the one the account is on.
@Suite("redeem command: an offer for another plan")
struct CrossPlanOfferCommandTests {
    static let catalog = """
        {
          "storefront": "USA",
          "subscriptionGroups": [
            { "id": "pro", "displayName": "Pro", "subscriptions": [
              { "id": "pro.yearly", "displayName": "Pro Yearly", "price": "49.99", "period": "P1Y", "level": 1 },
              { "id": "pro.monthly", "displayName": "Pro Monthly", "price": "5.99", "period": "P1M", "level": 2,
                "offers": [
                  { "type": "code", "id": "half", "referenceName": "Half price", "paymentMode": "payAsYouGo", "period": "P1M",
                    "periodCount": 2, "price": "2.99", "customCodes": ["HALF"], "eligibility": ["existing"] }
                ] } ] }
          ]
        }
        """

    @Test("redeem names the plan and offer the renewal takes, not the yearly plan kept until then")
    func namesThePlanAndOffer() async throws {
        let sandbox = try Sandbox()
        let catalog = try sandbox.write("plans.json", Self.catalog)
        try await sandbox.storefront(["buy", "pro.yearly"], catalog: catalog).expect(exit: 0)
        let run = try await sandbox.storefront(["redeem", "HALF"], catalog: catalog)
        run.expect(exit: 0)
        #expect(run.stdout.hasPrefix("Redeemed HALF: Pro Monthly, offer \"Half price\": $2.99/month for 2 months, then $5.99/month from "),
                "\(run)")
        #expect(run.stdout.contains(" (the next renewal): nothing is charged now."), "\(run)")
        #expect(!run.stdout.contains("Pro Yearly"), "\(run)")
        let json = try await sandbox.storefront(["--account", "other@local", "buy", "pro.yearly"], catalog: catalog)
        json.expect(exit: 0)
        let redeemed = try await sandbox.storefront(["--account", "other@local", "redeem", "half", "--json"], catalog: catalog).jsonObject()
        let change = try #require(redeemed["change"] as? [String: Any], "\(redeemed)")
        #expect(change["to"] as? String == "pro.monthly" && change["scheduled"] as? Bool == true)
        #expect(change["offerID"] as? String == "Half price")
    }
}
