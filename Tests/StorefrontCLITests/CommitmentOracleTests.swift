import Foundation
import Testing

/// Monthly plans with a 12-month commitment through the built binary, checked by Apple's
/// App Store Server Library as a backend decodes them (`AppleLibraryTests`' oracle).
@Suite("Monthly plans with a 12-month commitment: the CLI, and Apple's library on their signed data")
struct CommitmentOracleTests {
    static let catalog = """
        {
          "storefront": "USA",
          "storefronts": { "USA": { "currency": "USD", "locale": "en_US" } },
          "subscriptionGroups": [
            { "id": "club", "displayName": "Club", "subscriptions": [
              { "id": "club.yearly", "displayName": "Club Yearly", "description": "A year", "price": "99.99", "period": "P1Y",
                "level": 1, "billingPlans": [ { "billingPlanType": "MONTHLY", "price": "9.99" } ] } ] }
          ],
          "products": [ { "id": "pro", "type": "nonConsumable", "displayName": "Pro", "price": "4.99" } ]
        }
        """

    @Test("buy --billing-plan monthly; three months; auto-renew off: Apple's library decodes billingPlanType and both commitmentInfos")
    func oracle() async throws {
        let library = AppleLibraryTests()
        let sandbox = try Sandbox()
        try await sandbox.storefront("settings", "set", "environment", "Sandbox").expect(exit: 0)
        let catalog = try sandbox.write("catalog.json", Self.catalog)

        let products = try await sandbox.storefront(["products"], catalog: catalog)
        products.expect(exit: 0)
        let row = try #require(products.stdout.split(separator: "\n").first { $0.hasPrefix("club.yearly") })
        #expect(row.contains("$99.99") && row.contains("or $9.99/month for 12 months"), "\(row)")

        let bought = try await sandbox.storefront(["buy", "club.yearly", "--billing-plan", "monthly"], catalog: catalog)
        bought.expect(exit: 0)
        #expect(bought.stdout.contains("for $9.99/month for 12 months (payment 1 of 12"), "\(bought)")
        try await sandbox.storefront(["clock", "advance", "P2M"], catalog: catalog).expect(exit: 0)
        try await sandbox.storefront(["auto-renew", "club", "off"], catalog: catalog).expect(exit: 0)

        let status = try await sandbox.storefront(["status"], catalog: catalog)
        status.expect(exit: 0)
        #expect(status.stdout.contains("$9.99/month for 12 months, payment 3 of 12; commitment ends"), "\(status)")
        let after = try await sandbox.storefront(["products"], catalog: catalog)
        #expect(after.stdout.contains("$9.99/month for 12 months · payment 3 of 12, ends"), "\(after)")

        let signed = try await library.signedData(sandbox, catalog: catalog)
        #expect(signed.transactions.count == 3)
        let exported = try await sandbox.storefront(["key", "export", "--root", "--der"], catalog: catalog)
        exported.expect(exit: 0)
        let root = try sandbox.write("root.der", exported.stdoutBytes)
        let result = try await library.oracle(sandbox, environment: "Sandbox", root: root, transactions: signed.transactions,
                                              renewalInfo: signed.renewalInfo)
        result.expect(exit: 0)

        let transactions = try library.decoded(result, "transactions")
        #expect(transactions.count == 3)
        for payload in transactions {
            library.expectFields(payload, ["billingPlanType": "enum:BillingPlanType", "commitmentInfo": "TransactionCommitmentInfo"],
                                 "transaction")
            #expect(payload["billingPlanType"]?.value as? String == "MONTHLY")
            #expect(payload["price"]?.value as? Int == 9_990)
        }
        let numbers = transactions.compactMap { payload -> Int? in
            let info = payload["commitmentInfo"]?.value as? [String: [String: Any]]
            #expect(info?["totalBillingPeriods"]?["value"] as? Int == 12)
            #expect(info?["commitmentPrice"]?["value"] as? Int == 119_880)
            #expect(info?["commitmentExpiresDate"]?["type"] as? String == "int")
            return info?["billingPeriodNumber"]?["value"] as? Int
        }
        #expect(numbers.sorted() == [1, 2, 3])

        let renewals = try library.decoded(result, "renewalInfo")
        let renewal = try #require(renewals.first)
        library.expectFields(renewal, ["renewalBillingPlanType": "enum:RenewalBillingPlanType", "commitmentInfo": "RenewalCommitmentInfo"],
                             "renewal info")
        #expect(renewal["renewalBillingPlanType"]?.value as? String == "MONTHLY")
        // The customer turned auto-renew off: the commitment will not renew, the months still bill.
        #expect(renewal["autoRenewStatus"]?.value as? Int == 1)
        let commitment = try #require(renewal["commitmentInfo"]?.value as? [String: [String: Any]])
        #expect(commitment["commitmentAutoRenewStatus"]?["type"] as? String == "enum:AutoRenewStatus")
        #expect(commitment["commitmentAutoRenewStatus"]?["value"] as? Int == 0)
        #expect(commitment["commitmentAutoRenewProductId"]?["value"] as? String == "club.yearly")
        #expect(commitment["commitmentRenewalBillingPlanType"]?["value"] as? String == "MONTHLY")
        #expect(commitment["commitmentRenewalPrice"]?["value"] as? Int == 9_990)
    }

    @Test("buy --billing-plan: a bad plan name is a usage error; a product without a monthly plan is productUnavailable")
    func refusals() async throws {
        let sandbox = try Sandbox()
        let catalog = try sandbox.write("catalog.json", Self.catalog)
        let bad = try await sandbox.storefront(["buy", "club.yearly", "--billing-plan", "weekly"], catalog: catalog)
        #expect(bad.status != 0)
        #expect(bad.stderr.contains("--billing-plan takes monthly"), "\(bad)")
        let none = try await sandbox.storefront(["buy", "pro", "--billing-plan", "monthly", "--json"], catalog: catalog)
        #expect(none.status != 0)
        #expect(none.stdout.contains("productUnavailable"), "\(none)")
        let history = try await sandbox.storefront(["transactions", "--json"], catalog: catalog).jsonObject()
        #expect((history["transactions"] as? [Any])?.isEmpty == true)
    }
}
