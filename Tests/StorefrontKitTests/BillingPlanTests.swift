import Foundation
import StorefrontKit
import StorefrontKitTest
import Testing

/// A `.storekit` file with a one-year subscription on Xcode's "Monthly with a 12-month commitment" plan.
private let storeKitFile = """
    {"version": {"major": 4, "minor": 0}, "settings": {"_storefront": "USA"},
     "products": [],
     "subscriptionGroups": [{"id": "21000001", "name": "Club", "subscriptions": [
       {"productID": "club.yearly", "referenceName": "Club Yearly", "displayPrice": "99.99",
        "recurringSubscriptionPeriod": "P1Y", "groupNumber": 1, "type": "RecurringSubscription", "familyShareable": false,
        "billingPlans": [{"billingPlanType": "BILLED_UPFRONT", "displayPrice": "99.99"},
                         {"billingPlanType": "MONTHLY", "displayPrice": "9.99"}],
        "localizations": [{"locale": "en_US", "displayName": "Club", "description": "The club"}]}]}]}
    """

@Suite("StorefrontKit: billing plans (PricingTerms, PurchaseOption.billingPlanType, CommitmentInfo)")
struct BillingPlanKitTests {
    @Test func monthlyPlanIsListedBoughtAndCarriedOnTheTransactionAndRenewalInfo() async throws {
        try await withTemporaryFolder { folder in
            let url = URL(fileURLWithPath: folder + "/Club.storekit")
            try Data(storeKitFile.utf8).write(to: url)
            let session = try SKTestSession(contentsOf: url)
            try await session.run {
                let product = try #require(try await Product.products(for: ["club.yearly"]).first)
                let terms = try #require(product.subscription?.pricingTerms)
                #expect(terms.map(\.billingPlanType) == [.upFront, .monthly])
                let monthly = try #require(terms.first { $0.billingPlanType == .monthly })
                #expect(monthly.billingDisplayPrice == "$9.99")
                #expect(monthly.billingPeriod.unit == .month && monthly.billingPeriod.value == 1)
                #expect(monthly.commitmentInfo?.displayPrice == "$119.88")
                #expect(monthly.commitmentInfo?.period.unit == .year)

                guard case .success(let result) = try await product.purchase(options: [.billingPlanType(.monthly)]) else {
                    Issue.record("expected success"); return
                }
                let transaction = try result.payloadValue
                #expect(transaction.billingPlanType == .monthly)
                #expect(transaction.price == Decimal(string: "9.99"))
                #expect(transaction.commitmentInfo?.billingPeriodNumber == 1)
                #expect(transaction.commitmentInfo?.totalBillingPeriods == 12)
                #expect(transaction.commitmentInfo?.price == Decimal(string: "119.88"))
                let status = try #require(try await product.subscription?.status.first)
                let info = try status.renewalInfo.payloadValue
                #expect(info.renewalBillingPlanType == .monthly)
                #expect(info.commitmentInfo?.willAutoRenew == true)
                #expect(info.commitmentInfo?.autoRenewPreference == "club.yearly")
                await transaction.finish()
            }
        }
    }
}
