import Foundation
import Testing
@testable import StoreEngine

/// A one-year plan with a monthly plan beside it (Apple's monthly with a 12-month commitment),
/// and a monthly plan without one.
let commitmentCatalogText = """
    {
      "storefront": "USA",
      "storefronts": { "USA": { "currency": "USD", "locale": "en_US" }, "GBR": { "currency": "GBP", "locale": "en_GB" } },
      "subscriptionGroups": [
        { "id": "club", "displayName": "Club", "subscriptions": [
          { "id": "club.yearly", "displayName": "Club Yearly", "price": "99.99", "period": "P1Y", "level": 1,
            "billingPlans": [ { "billingPlanType": "BILLED_UPFRONT" },
                              { "billingPlanType": "MONTHLY", "price": "9.99", "prices": { "GBR": "8.99" } } ] },
          { "id": "club.monthly", "displayName": "Club Monthly", "price": "12.99", "period": "P1M", "level": 2 }
        ] }
      ],
      "products": []
    }
    """

/// Runs `body` with a store of ``commitmentCatalogText``, its clock at January 15, 2025, noon.
func withCommitmentStore<T>(_ body: (StoreFixture) async throws -> T) async throws -> T {
    try await withStoreFixture(catalogText: commitmentCatalogText, file: "commitment.json", at: utc(2025, 1, 15, 12), body)
}

/// Buys `club.yearly` on its monthly plan, as `PurchaseOption.billingPlanType(.monthly)` does.
func buyMonthlyPlan(_ store: Store, sourceLocation: SourceLocation = #_sourceLocation) async throws -> Transaction {
    try transaction(of: try await store.app.purchase("club.yearly", billingPlanType: .monthly), sourceLocation: sourceLocation)
}

@Suite("Monthly plans with a 12-month commitment: billing")
struct CommitmentBillingTests {
    @Test("the year is billed month by month: 12 transactions, billing period 1 to 12 of 12, one commitment end and price")
    func twelveMonths() async throws {
        try await withCommitmentStore { fixture in
            let store = try fixture.open()
            let first = try await buyMonthlyPlan(store)
            #expect(first.price == decimal("9.99"))
            #expect(first.expirationDate == utc(2025, 2, 15, 12))
            #expect(first.commitment == TransactionCommitment(billingPeriodNumber: 1, commitmentExpiresDate: utc(2026, 1, 15, 12),
                                                              commitmentPrice: decimal("119.88")))
            fixture.clock.set(utc(2025, 12, 20, 12))
            let year = try await store.transactions().reversed().map { $0 }
            #expect(year.count == 12)
            #expect(year.map { $0.commitment?.billingPeriodNumber } == Array(1...12))
            #expect(year.allSatisfy { $0.commitment?.commitmentExpiresDate == utc(2026, 1, 15, 12) })
            #expect(year.allSatisfy { $0.price == decimal("9.99") && $0.originalID == first.id })
            #expect(year.map(\.purchaseDate) == (0..<12).map { ISODuration(months: $0).after(utc(2025, 1, 15, 12)) })
            #expect(year.last?.expirationDate == utc(2026, 1, 15, 12))
            // Read back by another process: every row verifies (its JWS signs the commitment beside the row).
            let again = try await fixture.open().transactions()
            #expect(again.allSatisfy { $0.verification == .verified })
            #expect(again.first?.commitment?.billingPeriodNumber == 12)
            // What a backend hears: the purchase, then a DID_RENEW for each of the 11 months after it.
            let names = try await notificationNames(store)
            #expect(names == ["SUBSCRIBED INITIAL_BUY"] + Array(repeating: "DID_RENEW", count: 11))
        }
    }

    @Test("each monthly transaction's JWS carries billingPlanType MONTHLY and Apple's commitmentInfo; an up-front one neither")
    func signedFields() async throws {
        try await withCommitmentStore { fixture in
            let store = try fixture.open()
            _ = try await buyMonthlyPlan(store)
            fixture.clock.set(utc(2025, 3, 20, 12))
            let third = try #require(try await store.transactions().first)
            let payload = try await store.verify(jws: try #require(third.jwsRepresentation)).payload
            #expect(payload["billingPlanType"] == .string("MONTHLY"))
            #expect(payload["commitmentInfo"] == .object([
                "billingPeriodNumber": .integer(3),
                "commitmentExpiresDate": .integer(utc(2026, 1, 15, 12).milliseconds),
                "commitmentPrice": .integer(119_880),
                "totalBillingPeriods": .integer(12),
            ]))
            #expect(payload["price"] == .integer(9_990))
            #expect(payload["expiresDate"] == .integer(utc(2025, 4, 15, 12).milliseconds))
            // The renewal info while the commitment runs: the next month MONTHLY, and what follows the commitment.
            let info = try await renewalPayload(store, try await status(store, "club"))
            #expect(info["renewalBillingPlanType"] == .string("MONTHLY"))
            #expect(info["renewalPrice"] == .integer(9_990))
            #expect(info["autoRenewStatus"] == .integer(1))
            #expect(info["commitmentInfo"] == .object([
                "commitmentAutoRenewProductId": .string("club.yearly"),
                "commitmentAutoRenewStatus": .integer(1),
                "commitmentRenewalBillingPlanType": .string("MONTHLY"),
                "commitmentRenewalDate": .integer(utc(2026, 1, 15, 12).milliseconds),
                "commitmentRenewalPrice": .integer(9_990),
            ]))

            let upFront = try fixture.open(account: "other")
            let yearly = try transaction(of: try await upFront.purchase("club.yearly"))
            #expect(yearly.price == decimal("99.99") && yearly.commitment == nil)
            let signed = try await upFront.verify(jws: try #require(yearly.jwsRepresentation)).payload
            #expect(signed["billingPlanType"] == nil && signed["commitmentInfo"] == nil)
            let upFrontInfo = try await renewalPayload(upFront, try await status(upFront, "club"))
            #expect(upFrontInfo["renewalBillingPlanType"] == .string("BILLED_UPFRONT"))
            #expect(upFrontInfo["commitmentInfo"] == nil)
        }
    }

    @Test("auto-renew off inside the commitment: the months still bill to its end, then EXPIRED VOLUNTARY; nothing after")
    func cancelInsideCommitment() async throws {
        try await withCommitmentStore { fixture in
            let store = try fixture.open()
            _ = try await buyMonthlyPlan(store)
            fixture.clock.set(utc(2025, 3, 20, 12))
            try await store.setAutoRenew(groupID: "club", false)
            let cancelled = try await status(store, "club")
            // The commitment will not renew; the next month still comes.
            #expect(cancelled.renewalInfo.commitmentInfo?.willAutoRenew == false)
            #expect(cancelled.renewalInfo.willAutoRenew == true)
            let info = try await renewalPayload(store, cancelled)
            #expect(info["autoRenewStatus"] == .integer(1))
            #expect(info["commitmentInfo"]?["commitmentAutoRenewStatus"] == .integer(0))
            #expect(try await notificationNames(store).last == "DID_CHANGE_RENEWAL_STATUS AUTO_RENEW_DISABLED")

            // The last month: nothing renews after it, as the customer chose.
            fixture.clock.set(utc(2025, 12, 20, 12))
            let last = try await status(store, "club")
            #expect(last.transaction.commitment?.billingPeriodNumber == 12)
            #expect(last.renewalInfo.willAutoRenew == false)
            #expect(try await renewalPayload(store, last)["autoRenewStatus"] == .integer(0))

            fixture.clock.set(utc(2026, 3, 1, 12))
            let history = try await store.transactions()
            #expect(history.count == 12)
            let ended = try await status(store, "club")
            #expect(ended.state == .expired)
            #expect(ended.transaction.expirationDate == utc(2026, 1, 15, 12))
            #expect(ended.renewalInfo.expirationReason == .autoRenewDisabled)
            // Only while a commitment runs does the renewal info carry commitmentInfo.
            #expect(ended.renewalInfo.commitmentInfo == nil)
            let names = try await notificationNames(store)
            #expect(names.filter { $0 == "DID_RENEW" }.count == 11)
            #expect(names.last == "EXPIRED VOLUNTARY")
        }
    }

    @Test("after 12 payments the commitment renews into a new one: billing period 1 of 12 again, a year on")
    func renewalAfterCommitment() async throws {
        try await withCommitmentStore { fixture in
            let store = try fixture.open()
            _ = try await buyMonthlyPlan(store)
            fixture.clock.set(utc(2025, 12, 20, 12))
            let last = try await status(store, "club")
            let info = try await renewalPayload(store, last)
            #expect(info["renewalBillingPlanType"] == .string("MONTHLY"))
            #expect(info["commitmentInfo"]?["commitmentRenewalDate"] == .integer(utc(2026, 1, 15, 12).milliseconds))
            fixture.clock.set(utc(2026, 2, 1, 12))
            let renewed = try #require(try await store.transactions().first)
            #expect(renewed.purchaseDate == utc(2026, 1, 15, 12))
            #expect(renewed.commitment == TransactionCommitment(billingPeriodNumber: 1, commitmentExpiresDate: utc(2027, 1, 15, 12),
                                                                commitmentPrice: decimal("119.88")))
            #expect(try await store.transactions().count == 13)
        }
    }

    @Test("the monthly plan is priced in the storefront: GBR's monthly price, its commitment 12 of them")
    func storefrontPrice() async throws {
        try await withCommitmentStore { fixture in
            let store = try fixture.open()
            try await store.setSetting("storefront", to: "GBR")
            let bought = try await buyMonthlyPlan(store)
            #expect(bought.price == decimal("8.99") && bought.currency == "GBP")
            #expect(bought.commitment?.commitmentPrice == decimal("107.88"))
            let product = try #require(try await store.app.products().first { $0.id == "club.yearly" })
            #expect(product.subscription?.monthlyTerms?.summary == "£8.99/month for 12 months")
        }
    }

    @Test("a product without a monthly plan refuses the monthly billing plan: productUnavailable, nothing charged")
    func refusal() async throws {
        try await withCommitmentStore { fixture in
            let store = try fixture.open()
            let error = await purchaseError { _ = try await store.app.purchase("club.monthly", billingPlanType: .monthly) }
            #expect(error == .productUnavailable)
            #expect(try await store.transactions().isEmpty)
        }
    }
}
