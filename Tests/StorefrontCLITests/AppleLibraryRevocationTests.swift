import Foundation
import Testing

extension AppleLibraryTests {
    @Test("Apple's library decodes revocationType and revocationPercentage (full by default, prorated as the tester chooses), and an involuntary expiry's renewal info")
    func revocationAndChurn() async throws {
        let sandbox = try Sandbox()
        let catalog = try sandbox.write("catalog.json", Self.catalog)
        for arguments in [["buy", "pro"], ["buy", "yearly"], ["buy", "pass"], ["clock", "advance", "P3M"]] {
            try await sandbox.storefront(arguments, catalog: catalog).expect(exit: 0)
        }
        let history = try await sandbox.storefront(["transactions", "--json"], catalog: catalog).jsonObject()
        let rows = try #require(history["transactions"] as? [[String: Any]])
        for (product, share) in [("pro", [String]()), ("yearly", ["--prorated", "remaining"]), ("pass", ["--prorated", "33.333"])] {
            let id = try #require(rows.first { $0["productID"] as? String == product }?["id"] as? Int)
            try await sandbox.storefront(["refund", String(id)] + share, catalog: catalog).expect(exit: 0)
        }
        // The plus plan churns: its renewal fails and 60 days of billing retry run out.
        for arguments in [["settings", "set", "billingIssues", "true"], ["buy", "plus.monthly"], ["clock", "advance", "P4M"]] {
            try await sandbox.storefront(arguments, catalog: catalog).expect(exit: 0)
        }
        let signed = try await signedData(sandbox, catalog: catalog)
        let result = try await oracle(sandbox, environment: "Xcode", transactions: signed.transactions, renewalInfo: signed.renewalInfo)
        result.expect(exit: 0)
        let transactions = try decoded(result, "transactions")
        let pro = try #require(transactions.first { $0["productId"]?.value as? String == "pro" })
        expectFields(pro, ["revocationType": "enum:RevocationType", "revocationPercentage": "int", "revocationDate": "int"], "pro")
        #expect(pro["revocationType"]?.value as? String == "REFUND_FULL")
        #expect(pro["revocationPercentage"]?.value as? Int == 100_000)
        let yearly = try #require(transactions.first { $0["productId"]?.value as? String == "yearly" })
        #expect(yearly["revocationType"]?.value as? String == "REFUND_PRORATED")
        let percentage = try #require(yearly["revocationPercentage"]?.value as? Int)
        #expect((70_000...80_000).contains(percentage), "three months of a year used: \(percentage)")
        let pass = try #require(transactions.first { $0["productId"]?.value as? String == "pass" })
        #expect(pass["revocationType"]?.value as? String == "REFUND_PRORATED")
        #expect(pass["revocationPercentage"]?.value as? Int == 33_333)

        #expect(transactions.filter { $0["revocationDate"] == nil }.allSatisfy { $0["revocationType"] == nil })

        let plus = try #require(try decoded(result, "renewalInfo").first { $0["productId"]?.value as? String == "plus.monthly" })
        expectFields(plus, ["autoRenewStatus": "enum:AutoRenewStatus", "expirationIntent": "enum:ExpirationIntent",
                            "isInBillingRetryPeriod": "bool"], "plus.monthly")
        #expect(plus["autoRenewStatus"]?.value as? Int == 0)
        #expect(plus["expirationIntent"]?.value as? Int == 2)
        #expect(plus["isInBillingRetryPeriod"]?.value as? Bool == false)
        #expect(plus["gracePeriodExpiresDate"] == nil)
    }
}
