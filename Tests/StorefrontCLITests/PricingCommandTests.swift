import Foundation
import StoreEngine
@testable import StorefrontCLI
import Testing

/// `price-increase`, `messages`, `message send` and `buy --win-back`, parsed and run on the bundled catalog.
@Suite("price-increase, messages and win-back commands")
struct PricingCommandTests {
    func parse(_ arguments: String...) throws -> Command { try Invocation.parse(arguments).command }

    @Test("the forms parse; a bad price, reason or id, and mixed options, are usage errors")
    func parsing() throws {
        #expect(try parse("price-increase", "p", "5.99") == .run(AnyCommand(PriceIncreaseCommand.change(productID: "p", price: Decimal(string: "5.99")!, consentRequired: false))))
        #expect(try parse("price-increase", "p", "5.99", "--consent-required")
                == .run(AnyCommand(PriceIncreaseCommand.change(productID: "p", price: Decimal(string: "5.99")!, consentRequired: true))))
        #expect(try parse("price-increase") == .run(AnyCommand(PriceIncreaseCommand.list)))
        #expect(try parse("price-increase", "consent", "p") == .run(AnyCommand(PriceIncreaseCommand.answer(productID: "p", consent: true))))
        #expect(try parse("price-increase", "decline", "p") == .run(AnyCommand(PriceIncreaseCommand.answer(productID: "p", consent: false))))
        #expect(try parse("messages") == .run(AnyCommand(MessagesCommand.list)))
        #expect(try parse("messages", "show", "3") == .run(AnyCommand(MessagesCommand.show(id: 3))))
        #expect(try parse("messages", "defer", "3") == .run(AnyCommand(MessagesCommand.hold(id: 3))))
        #expect(try parse("message", "send", "generic") == .run(AnyCommand(MessageCommand(reason: .generic))))
        #expect(try parse("buy", "p", "--win-back", "w") == .run(AnyCommand(BuyCommand(productID: "p", quantity: 1, winBackOfferID: "w"))))
        #expect(expectUsageError(["price-increase", "p", "abc"])?.description.contains("PRICE") == true)
        #expect(expectUsageError(["price-increase", "p", "-1"]) != nil)
        #expect(expectUsageError(["price-increase", "consent", "p", "--consent-required"]) != nil)
        #expect(expectUsageError(["price-increase", "p"]) != nil)
        #expect(expectUsageError(["messages", "show", "x"]) != nil)
        #expect(expectUsageError(["message", "send", "shout"])?.description.contains("generic") == true)
        #expect(expectUsageError(["buy", "p", "--offer", "o", "--win-back", "w"])?.description == "buy takes --offer or --win-back, not both")
        #expect(expectUsageError(["buy", "p", "--outside", "--win-back", "w"]) != nil)
        #expect(expectUsageError(["products", "--consent-required"])?.description == "products takes no --consent-required")
    }

    @Test("a price increase needing consent: subscribers told, the message shown, consent recorded; status says so")
    func priceIncrease() async throws {
        let sandbox = try Sandbox()
        try await sandbox.storefront("buy", Demo.monthly).expect(exit: 0)
        try await sandbox.storefront("clock", "advance", "P1W").expect(exit: 0)
        let run = try await sandbox.storefront("price-increase", Demo.monthly, "9.99", "--consent-required", "--json")
        run.expect(exit: 0)
        let change = try run.jsonObject()
        #expect(change["newPrice"] as? String == "9.99" && change["consentRequired"] as? Bool == true)
        let subscriber = try #require((change["subscribers"] as? [[String: Any]])?.first)
        #expect(subscriber["priceIncreaseStatus"] as? String == "pending" && subscriber["effectiveDate"] as? String != nil)
        let listed = try await sandbox.storefront("messages", "--json").jsonObject()
        let message = try #require((listed["messages"] as? [[String: Any]])?.first)
        #expect(message["reason"] as? String == "priceIncreaseConsent" && message["state"] as? String == "pending")
        let shown = try await sandbox.storefront("messages", "show", String(try #require(message["id"] as? Int)))
        shown.expect(exit: 0)
        #expect(shown.stdout.contains("Subscription Price Increase") && shown.stdout.contains("$9.99"))
        let status = try await sandbox.storefront("status")
        #expect(status.stdout.contains("price increase pending, renews at $9.99"), "\(status)")
        // The paywall's row (and `products`) say it too: the engine's words (issue 40).
        let pending = try await sandbox.storefront("products", "--json").jsonObject()
        let row = (pending["products"] as? [[String: Any]])?.first { $0["id"] as? String == Demo.monthly }
        #expect((row?["status"] as? String)?.hasSuffix("· price increase pending, renews at $9.99") == true, "\(row ?? [:])")
        try await sandbox.storefront("price-increase", "consent", Demo.monthly).expect(exit: 0)
        let agreed = try await sandbox.storefront("status", "--json").jsonObject()
        let info = ((agreed["statuses"] as? [[String: Any]])?.first?["renewalInfo"] as? [String: Any])
        #expect(info?["priceIncreaseStatus"] as? String == "agreed" && info?["renewalPrice"] as? String == "9.99")
        let products = try await sandbox.storefront("products", "--json").jsonObject()
        let monthly = (products["products"] as? [[String: Any]])?.first { $0["id"] as? String == Demo.monthly }
        #expect(monthly?["displayPrice"] as? String == "$9.99", "new subscribers pay it")
        let again = try await sandbox.storefront("price-increase", "decline", Demo.monthly, "--account", "other@local")
        again.expect(exit: 1)
        #expect(again.stderr.contains("noSubscription"))
        try await sandbox.storefront("price-increase", Demo.monthly, "9.99").expect(exit: 1)
        try await sandbox.storefront("price-increase", Demo.goPro, "2.99").expect(exit: 1)
        let listing = try await sandbox.storefront("price-increase")
        #expect(listing.stdout.contains("required") && listing.stdout.contains("agreed"))
    }

    @Test("win-back: eligible after the lapse, as the README's recipe; message queued; buying records winBack")
    func winBack() async throws {
        let sandbox = try Sandbox()
        try await sandbox.storefront("buy", Demo.monthly).expect(exit: 0)
        try await sandbox.storefront("buy", Demo.monthly, "--win-back", "monthly_winback").expect(exit: 1)
        for step in [["clock", "advance", "P1W"], ["auto-renew", "premium", "off"], ["clock", "advance", "P2M"]] {
            try await sandbox.storefront(step).expect(exit: 0)
        }
        let status = try await sandbox.storefront("status")
        #expect(status.stdout.contains("win-back: monthly_winback"), "\(status)")
        let messages = try await sandbox.storefront("messages")
        #expect(messages.stdout.contains("winBackOffer") && messages.stdout.contains("monthly_winback"))
        let bought = try await sandbox.storefront("buy", Demo.monthly, "--win-back", "monthly_winback", "--json")
        bought.expect(exit: 0)
        let transaction = try #require(try bought.jsonObject()["transaction"] as? [String: Any])
        #expect(transaction["offerType"] as? String == "winBack" && transaction["offerID"] as? String == "monthly_winback")
        #expect(transaction["price"] as? String == "1.99")
        let wrong = try await sandbox.storefront("buy", Demo.yearly, "--win-back", "monthly_winback", "--json")
        wrong.expect(exit: 1)
        #expect((try wrong.jsonObject()["error"] as? [String: Any])?["name"] as? String == "invalidOfferIdentifier")
    }

    @Test("message send, defer, show; an unknown id fails")
    func messages() async throws {
        let sandbox = try Sandbox()
        let sent = try await sandbox.storefront("message", "send", "generic", "--json")
        sent.expect(exit: 0)
        let id = String(try #require((try sent.jsonObject()["message"] as? [String: Any])?["id"] as? Int))
        try await sandbox.storefront("messages", "defer", id).expect(exit: 0)
        #expect(try await sandbox.storefront("messages").stdout.contains("deferred"))
        let shown = try await sandbox.storefront("messages", "show", id)
        shown.expect(exit: 0)
        #expect(shown.stdout.hasPrefix("[ App Store ]"))
        #expect(try await sandbox.storefront("messages").stdout.contains("displayed"))
        let missing = try await sandbox.storefront("messages", "show", "999")
        missing.expect(exit: 1)
        #expect(missing.stderr.contains("messageNotFound"))
    }
}
