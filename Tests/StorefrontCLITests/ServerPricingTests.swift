import Foundation
import Testing

/// Price increases and win-back offers as a backend sees them: Server Notifications V2 decoded by
/// Apple's library, its enums (`PriceIncreaseStatus`, `ExpirationIntent`, `OfferType`) the oracle.
@Suite("storefront serve: price increases and win-back offers, seen by Apple's library", .serverLane)
struct ServerPricingTests: ServerHarness {
    static let pricingCatalog = """
        {
          "storefront": "USA",
          "subscriptionGroups": [
            { "id": "club", "displayName": "Club", "subscriptions": [
              { "id": "club.yearly", "displayName": "Yearly", "price": "49.99", "period": "P1Y", "level": 1 },
              { "id": "club.monthly", "displayName": "Monthly", "price": "4.99", "period": "P1M", "level": 2,
                "offers": [ { "type": "winBack", "id": "back", "paymentMode": "payUpFront", "period": "P3M", "price": "9.99",
                              "customerEligibilityPaidSubscriptionDurationInMonths": 1,
                              "customerEligibilityTimeSinceLastSubscribedInMonths": { "minimum": 0 } } ] } ] }
          ]
        }
        """

    @Test("PRICE_INCREASE PENDING / ACCEPTED, EXPIRED PRICE_INCREASE with expirationIntent 3, win-back OFFER_REDEEMED: Apple's library reads them")
    func priceIncreaseAndWinBack() async throws {
        let base = try await setup()
        let setup = Setup(sandbox: base.sandbox, catalog: try base.sandbox.write("club.json", Self.pricingCatalog), keyID: base.keyID,
                          key: base.key, root: base.root)
        let store = { (arguments: [String]) async throws in
            try await setup.sandbox.storefront(arguments, catalog: setup.catalog).expect(exit: 0)
        }
        try await store(["buy", "club.monthly", "--account", "alice"])
        try await store(["buy", "club.monthly", "--account", "bob"])
        try await store(["buy", "club.yearly", "--account", "carol"])
        try await store(["price-increase", "club.monthly", "5.99", "--consent-required"])  // alice, bob: PENDING
        try await store(["price-increase", "consent", "club.monthly", "--account", "bob"])  // bob: ACCEPTED
        try await store(["price-increase", "club.yearly", "54.99"])  // carol: ACCEPTED, no consent needed
        try await store(["clock", "advance", "P1M1D"])  // alice: EXPIRED PRICE_INCREASE; bob: DID_RENEW at 5.99
        try await store(["buy", "club.monthly", "--win-back", "back", "--account", "alice"])  // OFFER_REDEEMED RESUBSCRIBE

        let log = setup.sandbox.path("pricing.jsonl")
        let receiver = try startReceiver(setup, log: log)
        let receiverPort = try await receiver.wait(for: #"listening (\d+)"#)
        let server = try startServer(setup, notify: ["http://127.0.0.1:\(receiverPort)/"])
        _ = try await port(of: server)
        let count = try await recorded(setup).count
        let got = try await received(log, count: count)
        await server.stop()
        await receiver.stop()
        #expect(got.allSatisfy { $0["refused"] == nil }, "\(got)")
        func find(_ pair: String, _ product: String) -> [String: Any]? {
            got.first { Self.pair($0) == pair && $0["productId"] as? String == product }
        }
        let pending = got.filter { Self.pair($0) == "PRICE_INCREASE PENDING" }
        #expect(pending.count == 2 && pending.allSatisfy { $0["priceIncreaseStatus"] as? Int == 0 && $0["renewalPrice"] as? Int == 5990 })
        let accepted = got.filter { Self.pair($0) == "PRICE_INCREASE ACCEPTED" }
        #expect(accepted.count == 2 && accepted.allSatisfy { $0["priceIncreaseStatus"] as? Int == 1 })
        #expect(Set(accepted.compactMap { $0["productId"] as? String }) == ["club.monthly", "club.yearly"])
        let expired = try #require(find("EXPIRED PRICE_INCREASE", "club.monthly"), "\(got.map(Self.pair))")
        #expect(expired["expirationIntent"] as? Int == 3 && (expired["priceIncreaseStatus"] == nil || expired["priceIncreaseStatus"] is NSNull))
        #expect(expired["eligibleWinBackOfferIds"] as? [String] == ["back"], "a lapsed subscriber's renewal info names the offers")
        let renewed = try #require(find("DID_RENEW", "club.monthly"))
        #expect(renewed["renewalPrice"] as? Int == 5990)
        let redeemed = try #require(find("OFFER_REDEEMED RESUBSCRIBE", "club.monthly"))
        #expect(redeemed["offerType"] as? Int == 4 && redeemed["offerIdentifier"] as? String == "back")
    }
}
