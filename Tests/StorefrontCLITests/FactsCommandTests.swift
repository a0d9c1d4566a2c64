import Foundation
import Testing

/// The CLI says what the engine's facts say (issue 26's disagreements), run as a separate process.
@Suite("facts in the CLI (process)")
struct FactsCommandTests {
    @Test func aGermanPurchaseIsListedInEurosWithOrWithoutTheCatalog() async throws {
        let sandbox = try Sandbox()
        try await sandbox.storefront("settings", "set", "storefront", "deu").expect(exit: 0)
        try await sandbox.storefront("buy", Demo.swiftShopping).expect(exit: 0)
        let euros = Decimal(string: "0.99")!.formatted(.currency(code: "EUR").locale(Locale(identifier: "de_DE")))
        let withCatalog = try await sandbox.storefront("transactions")
        withCatalog.expect(exit: 0)
        let without = try await sandbox.run(["--store", sandbox.store, "transactions"])
        without.expect(exit: 0)
        for run in [withCatalog, without] {
            let row = try #require(run.stdout.split(separator: "\n").first { $0.contains(Demo.swiftShopping) }, "\(run)")
            #expect(row.contains(euros) && !row.contains("$"), "\(run)")
        }
    }

    @Test func withoutPaymentsNoIntroductoryOfferIsShown() async throws {
        let sandbox = try Sandbox()
        let before = try await sandbox.storefront("products")
        let offered = try #require(before.stdout.split(separator: "\n").first { $0.hasPrefix(Demo.monthly) }, "\(before)")
        #expect(offered.contains("free, then"), "\(before)")
        try await sandbox.storefront("settings", "set", "canMakePayments", "false").expect(exit: 0)
        let run = try await sandbox.storefront("products")
        run.expect(exit: 0)
        let row = try #require(run.stdout.split(separator: "\n").first { $0.hasPrefix(Demo.monthly) }, "\(run)")
        #expect(!row.contains("free") && row.contains("Not available"), "\(run)")
    }

    /// A StoreKit 2 app sees a live subscription in `currentEntitlements` at once after a reinstall.
    @Test func afterResetAppASubscriptionShowsAtOnce() async throws {
        let sandbox = try Sandbox()
        try await sandbox.storefront("buy", Demo.yearly).expect(exit: 0)
        try await sandbox.storefront("reset", "app").expect(exit: 0)
        let run = try await sandbox.storefront("products")
        run.expect(exit: 0)
        let row = try #require(run.stdout.split(separator: "\n").first { $0.hasPrefix(Demo.yearly) }, "\(run)")
        #expect(row.contains("Renews") && !row.contains("not on this device"), "\(run)")
    }

    /// A promotional offer paid as a free trial is a free trial in `buy` and in `products` alike
    /// (`buy` tested the introductory offer's price, `products` the payment mode).
    @Test func aPromotionalFreeTrialIsAFreeTrialInBuyAndInProducts() async throws {
        let sandbox = try Sandbox()
        let bundled = try String(contentsOfFile: Binary.catalog, encoding: .utf8)
        let paidUpFront = #""paymentMode": "payUpFront", "period": "P1Y", "price": "29.99""#
        #expect(bundled.contains(paidUpFront))
        let catalog = try sandbox.write("trial-offer.json",
                                        bundled.replacingOccurrences(of: paidUpFront, with: #""paymentMode": "freeTrial", "period": "P1M""#))
        for arguments in [["offer-keys", "create", "KEY1"], ["buy", Demo.monthly], ["expire", "premium"]] {
            try await sandbox.storefront(arguments, catalog: catalog).expect(exit: 0)
        }
        let bought = try await sandbox.storefront(["buy", Demo.yearly, "--offer", "annual_comeback", "--sign"], catalog: catalog)
        bought.expect(exit: 0)
        #expect(bought.stdout.contains("Started the free trial") && !bought.stdout.contains("Purchased"), "\(bought)")
        let products = try await sandbox.storefront(["products"], catalog: catalog)
        let row = try #require(products.stdout.split(separator: "\n").first { $0.hasPrefix(Demo.yearly) }, "\(products)")
        #expect(row.contains("Free trial until"), "\(products)")
    }
}
