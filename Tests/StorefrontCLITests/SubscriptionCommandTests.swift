import Foundation
import StoreEngine
@testable import StorefrontCLI
import Testing

// Issue 5, subscriptions on the command line: parsing in-process, then the built
// binary. The binary runs on real time, so dates are checked against each other
// (a renewal starts where the period it follows ended), never against the wall clock.

// MARK: - Parsing

@Suite("subscription commands: argument parsing")
struct SubscriptionArgumentsTests {
    func parse(_ arguments: String...) throws -> Command {
        try Invocation.parse(arguments).command
    }

    func usageError(_ arguments: String..., sourceLocation: SourceLocation = #_sourceLocation) -> UsageError? {
        expectUsageError(arguments, sourceLocation: sourceLocation)
    }

    @Test func clock() throws {
        #expect(try parse("clock") == .run(AnyCommand(ClockCommand.show)))
        #expect(try parse("clock", "advance", "P1M") == .run(AnyCommand(ClockCommand.advance(ISODuration(months: 1)))))
        #expect(try parse("clock", "advance", "PT6H", "--json") == .run(AnyCommand(ClockCommand.advance(ISODuration(hours: 6)))))
        #expect(usageError("clock", "advance", "1M")?.description.contains("ISO-8601 duration") == true)
        #expect(usageError("clock", "advance", "P0D")?.command == "clock", "advancing by nothing is refused")
        #expect(usageError("clock", "advance")?.command == "clock")
        #expect(usageError("clock", "forward", "P1M")?.command == "clock")
        #expect(usageError("clock", "advance", "P1M", "--quantity", "2")?.description == "clock takes no --quantity")
    }

    @Test func status() throws {
        #expect(try parse("status") == .run(AnyCommand(StatusCommand(groupID: nil))))
        #expect(try parse("status", "premium", "--json") == .run(AnyCommand(StatusCommand(groupID: "premium"))))
        #expect(usageError("status", "a", "b")?.description.contains("at most a GROUP_ID") == true)
    }

    @Test func autoRenewExpireRenew() throws {
        #expect(try parse("auto-renew", "premium", "off") == .run(AnyCommand(AutoRenewCommand(group: "premium", on: false))))
        #expect(try parse("auto-renew", "premium", "on") == .run(AnyCommand(AutoRenewCommand(group: "premium", on: true))))
        #expect(usageError("auto-renew", "premium", "maybe")?.command == "auto-renew")
        #expect(usageError("auto-renew", "premium")?.command == "auto-renew")
        #expect(try parse("expire", "premium") == .run(AnyCommand(ExpireCommand(group: "premium"))))
        #expect(try parse("renew", "barcode_month_subscription") == .run(AnyCommand(RenewCommand(group: "barcode_month_subscription"))))
        #expect(usageError("expire")?.command == "expire")
        #expect(usageError("renew", "a", "b")?.command == "renew")
    }

    @Test func buyTakesAnOffer() throws {
        #expect(try parse("buy", "p", "--offer", "comeback") == .run(AnyCommand(BuyCommand(productID: "p", quantity: 1, offerID: "comeback"))))
        #expect(try parse("buy", "p", "--offer=comeback", "--outcome", "cancel")
                == .run(AnyCommand(BuyCommand(productID: "p", quantity: 1, outcome: .cancel, offerID: "comeback"))))
        #expect(usageError("buy", "p", "--offer", "")?.description.contains("needs an offer id") == true)
        #expect(usageError("buy", "p", "--outside", "--offer", "x")?.description.contains("not both") == true)
        #expect(usageError("status", "--offer", "x")?.description == "status takes no --offer")
    }

    @Test("usage errors exit 64 from the binary", arguments: [
        ["clock", "advance", "tomorrow"], ["auto-renew", "premium", "maybe"], ["status", "a", "b"], ["expire"],
        ["buy", Demo.monthly, "--offer"],
    ])
    func exit64(_ arguments: [String]) async throws {
        let sandbox = try Sandbox()
        let run = try await sandbox.storefront(arguments)
        run.expect(exit: 64)
        #expect(run.stdout.isEmpty)
        #expect(run.stderr.contains("storefront:"))
    }
}

// MARK: - The binary

/// The demo catalog's subscription group.
private let premiumGroup = "premium"

/// A catalog with a promotional offer on a monthly plan.
private let promoCatalog = """
    {
      "storefront": "USA",
      "storefronts": { "USA": { "currency": "USD", "locale": "en_US" } },
      "subscriptionGroups": [
        { "id": "plus", "subscriptions": [
          { "id": "plus.monthly", "displayName": "Plus", "price": "3.99", "period": "P1M", "level": 1,
            "offers": [ { "type": "promotional", "id": "comeback", "paymentMode": "payAsYouGo",
                          "period": "P1M", "periodCount": 1, "price": "1.99" } ] }
        ] }
      ]
    }
    """

private func isoDate(_ value: Any?, sourceLocation: SourceLocation = #_sourceLocation) throws -> Date {
    let text = try #require(value as? String, "not a date: \(String(describing: value))", sourceLocation: sourceLocation)
    return try #require(try? Date(text, strategy: .iso8601), "not an ISO-8601 date: \(text)", sourceLocation: sourceLocation)
}

private let calendarUTC: Calendar = {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: "UTC")!
    return calendar
}()

extension Sandbox {
    /// `transactions --json`, newest first.
    func history(sourceLocation: SourceLocation = #_sourceLocation) async throws -> [[String: Any]] {
        try await storefront("transactions", "--json").jsonObject(sourceLocation: sourceLocation).objects("transactions")
    }

    /// `status --json`'s statuses.
    func statuses(sourceLocation: SourceLocation = #_sourceLocation) async throws -> [[String: Any]] {
        try await storefront("status", "--json").jsonObject(sourceLocation: sourceLocation).objects("statuses")
    }

    /// The transaction of `buy PRODUCT --json`.
    func subscribe(_ productID: String, _ extra: String..., sourceLocation: SourceLocation = #_sourceLocation)
        async throws -> [String: Any] {
        let run = try await storefront(["buy", productID, "--json"] + extra, sourceLocation: sourceLocation)
        run.expect(exit: 0, sourceLocation: sourceLocation)
        return try #require(try run.jsonObject(sourceLocation: sourceLocation)["transaction"] as? [String: Any],
                            sourceLocation: sourceLocation)
    }
}

@Suite("subscription commands: the binary")
struct SubscriptionCommandTests {
    @Test("clock shows the store time and rate; clock advance P1M moves it a calendar month")
    func clock() async throws {
        let sandbox = try Sandbox()
        let before = try await sandbox.storefront("clock", "--json").jsonObject()
        #expect(before["timeRate"] as? String == "realTime")
        let start = try isoDate(before["now"])
        let advanced = try await sandbox.storefront("clock", "advance", "P1M", "--json").jsonObject()
        #expect(advanced["advancedBy"] as? String == "P1M")
        let target = try isoDate(advanced["now"])
        let expected = calendarUTC.date(byAdding: .month, value: 1, to: start)!
        #expect(target >= expected && target < expected.addingTimeInterval(120))
        let after = try isoDate(try await sandbox.storefront("clock", "--json").jsonObject()["now"])
        #expect(after >= target, "time never goes back")
        let text = try await sandbox.storefront("clock")
        text.expect(exit: 0)
        #expect(text.stdout.hasPrefix("Store time: "))
        #expect(text.stdout.contains("(realTime)"))
        try await sandbox.storefront("settings", "set", "timeRate", "oneRenewalEveryTenSeconds").expect(exit: 0)
        #expect(try await sandbox.storefront("clock", "--json").jsonObject()["timeRate"] as? String
                == "oneRenewalEveryTenSeconds")
    }

    @Test("after the free trial, clock advance brings the renewal: reason renewal (StoreKit 2's word), same original, from the trial's end")
    func renewalAfterAdvance() async throws {
        let sandbox = try Sandbox()
        let trial = try await sandbox.subscribe(Demo.monthly)
        #expect(trial["offerType"] as? String == "introductory")
        let trialEnd = try isoDate(trial["expirationDate"])
        let advance = try await sandbox.storefront("clock", "advance", "P8D")
        advance.expect(exit: 0)
        #expect(advance.stdout.contains("Advanced the clock by 8 days"))
        let history = try await sandbox.history()
        #expect(history.count == 2)
        let renewal = try #require(history.first)
        #expect(renewal["reason"] as? String == "renewal")
        #expect(renewal["originalID"] as? Int == trial["id"] as? Int)
        #expect(renewal["id"] as? Int != trial["id"] as? Int)
        #expect(renewal["purchaseDate"] as? String == trial["expirationDate"] as? String)
        #expect(try isoDate(renewal["expirationDate"]) == calendarUTC.date(byAdding: .month, value: 1, to: trialEnd))
        #expect(renewal["price"] as? String == "4.99")
        #expect(renewal["offerType"] == nil)

        let status = try #require(try await sandbox.statuses().first)
        #expect(status["subscriptionGroupID"] as? String == premiumGroup)
        #expect(status["state"] as? String == "subscribed")
        let info = try #require(status["renewalInfo"] as? [String: Any])
        #expect(info["willAutoRenew"] as? Bool == true)
        #expect(info["renewalDate"] as? String == renewal["expirationDate"] as? String)
        #expect(info["autoRenewPreference"] as? String == Demo.monthly)
        #expect(info["jwsRepresentation"] is String)

        let table = try await sandbox.storefront("status", premiumGroup)
        table.expect(exit: 0)
        #expect(table.stdout.contains("subscribed"))
        #expect(table.stdout.contains(Demo.monthly))
        #expect(table.stdout.contains("RENEWS / EXPIRED"))
        // products shows the renewal date on the subscription's row.
        let products = try await sandbox.storefront("products")
        let row = try #require(products.stdout.split(separator: "\n").first { $0.hasPrefix(Demo.monthly) })
        #expect(row.contains("Renews "))
    }

    @Test("auto-renew off, then the period runs out: expired with autoRenewDisabled, no renewal")
    func autoRenewOff() async throws {
        let sandbox = try Sandbox()
        let yearly = try await sandbox.subscribe(Demo.yearly)
        let off = try await sandbox.storefront("auto-renew", premiumGroup, "off")
        off.expect(exit: 0)
        #expect(off.stdout.hasPrefix("Auto-renew is off for Annual Subscription: it ends "), "\(off.stdout)")
        #expect(off.stdout.contains("off"))
        let products = try await sandbox.storefront("products")
        let row = try #require(products.stdout.split(separator: "\n").first { $0.hasPrefix(Demo.yearly) })
        #expect(row.contains("Expires "))
        try await sandbox.storefront("clock", "advance", "P13M").expect(exit: 0)
        let status = try #require(try await sandbox.statuses().first)
        #expect(status["state"] as? String == "expired")
        let info = try #require(status["renewalInfo"] as? [String: Any])
        #expect(info["expirationReason"] as? String == "autoRenewDisabled")
        #expect(info["willAutoRenew"] as? Bool == false)
        #expect(try await sandbox.history().map { $0["id"] as? Int } == [yearly["id"] as? Int])
    }

    @Test("expire ends the subscription now; renew renews it now")
    func expireAndRenew() async throws {
        let sandbox = try Sandbox()
        let yearly = try await sandbox.subscribe(Demo.yearly)
        let expired = try await sandbox.storefront("expire", premiumGroup)
        expired.expect(exit: 0)
        #expect(expired.stdout.hasPrefix("Expired Annual Subscription now: it does not renew."), "\(expired.stdout)")
        #expect(expired.stdout.contains("expired"))
        #expect(try await sandbox.statuses().first?["state"] as? String == "expired")
        let entitlements = try await sandbox.storefront("entitlements", "--json").jsonObject()
        #expect(entitlements.objects("entitlements").isEmpty)

        let renewed = try await sandbox.storefront("renew", Demo.yearly)  // a product id names its group
        renewed.expect(exit: 0)
        #expect(renewed.stdout.hasPrefix("Renewed Annual Subscription now: transaction "), "\(renewed.stdout)")
        let history = try await sandbox.history()
        #expect(history.count == 2)
        #expect(history.first?["reason"] as? String == "renewal")
        #expect(history.first?["originalID"] as? Int == yearly["id"] as? Int)
        #expect(try await sandbox.statuses().first?["state"] as? String == "subscribed")
    }

    @Test("the controls need a subscription: status, auto-renew, expire and renew of an unknown group exit 1")
    func noSubscription() async throws {
        let sandbox = try Sandbox()
        let none = try await sandbox.storefront("status")
        none.expect(exit: 0)
        #expect(none.stdout.contains("has no subscriptions"))
        for arguments in [["status", premiumGroup], ["auto-renew", premiumGroup, "on"], ["expire", premiumGroup], ["renew", premiumGroup]] {
            let run = try await sandbox.storefront(arguments)
            run.expect(exit: 1)
            #expect(run.stderr.contains("noSubscription"), "\(arguments)")
        }
    }

    @Test("upgrade at once, downgrade at the next renewal, said on stdout")
    func upgradeDowngrade() async throws {
        let sandbox = try Sandbox()
        let trial = try await sandbox.subscribe(Demo.monthly)
        let upgrade = try await sandbox.storefront("buy", Demo.yearly)
        upgrade.expect(exit: 0)
        #expect(upgrade.stdout.contains("The App Store noted: upgrade from \(Demo.monthly) at once"))
        let history = try await sandbox.history()
        #expect(history.first?["productID"] as? String == Demo.yearly)
        #expect(history.first?["originalID"] as? Int == trial["id"] as? Int)
        #expect(history.last?["isUpgraded"] as? Bool == true)

        let downgrade = try await sandbox.storefront("buy", Demo.monthly)
        downgrade.expect(exit: 0)
        #expect(downgrade.stdout.hasPrefix("Downgrade to Monthly Subscription from "), "\(downgrade)")
        #expect(downgrade.stdout.contains(": nothing is charged now."), "\(downgrade)")
        #expect(!downgrade.stdout.contains("left unfinished"))
        #expect(try await sandbox.history().count == 2, "no transaction for a downgrade")
        let info = try #require(try await sandbox.statuses().first?["renewalInfo"] as? [String: Any])
        #expect(info["autoRenewPreference"] as? String == Demo.monthly)
        #expect(info["currentProductID"] as? String == Demo.yearly)
        let table = try await sandbox.storefront("status")
        #expect(table.stdout.contains("next: \(Demo.monthly)"))
        let products = try await sandbox.storefront("products")
        let row = try #require(products.stdout.split(separator: "\n").first { $0.hasPrefix(Demo.monthly) })
        #expect(row.contains("Starts "))
    }

    /// Issue 40: the paywall said "Expires …" and `status` "next: barcode_quarter_subscription"; the
    /// parity walk found the same after a refund. Both read the engine's `nextProductID` now.
    @Test("a crossgrade waiting with auto-renew off is no next plan in status, as on the paywall's row")
    func crossgradeWithAutoRenewOff() async throws {
        let sandbox = try Sandbox()
        _ = try await sandbox.subscribe(Demo.monthly)
        try await sandbox.storefront("buy", Demo.quarterly).expect(exit: 0)
        try await sandbox.storefront("auto-renew", "premium", "off").expect(exit: 0)
        let status = try await sandbox.storefront("status")
        #expect(!status.stdout.contains("next:") && status.stdout.contains(" off "), "\(status)")
        let products = try await sandbox.storefront("products")
        let row = try #require(products.stdout.split(separator: "\n").first { $0.hasPrefix(Demo.monthly) })
        #expect(row.contains("then ends"), "\(row)")
    }

    @Test("the bundled catalog's crossgrade: on Monthly, buy Quarterly (level 2 too, another period) waits for the renewal; --json says crossgrade")
    func crossgrade() async throws {
        let sandbox = try Sandbox()
        let trial = try await sandbox.subscribe(Demo.monthly)
        let run = try await sandbox.storefront("buy", Demo.quarterly)
        run.expect(exit: 0)
        let renewal = StatusText.shortDate(try Date(try #require(trial["expirationDate"] as? String), strategy: .iso8601))
        #expect(run.stdout.hasPrefix("Crossgrade to 3-Month Subscription from \(renewal): nothing is charged now."),
                "\(run)")
        #expect(try await sandbox.history().count == 1, "no transaction for a crossgrade that waits")
        let info = try #require(try await sandbox.statuses().first?["renewalInfo"] as? [String: Any])
        #expect(info["autoRenewPreference"] as? String == Demo.quarterly && info["currentProductID"] as? String == Demo.monthly)
        #expect(try await sandbox.storefront("status").stdout.contains("next: \(Demo.quarterly)"))
        // Back to Monthly before the renewal: the plan it is on, so the waiting crossgrade is called off.
        try await sandbox.storefront("buy", Demo.monthly).expect(exit: 0)
        let json = try await sandbox.storefront("buy", Demo.quarterly, "--json").jsonObject()
        #expect(json["outcome"] as? String == "changeScheduled", "\(json)")
        let change = try #require(json["change"] as? [String: Any], "\(json)")
        #expect(change["kind"] as? String == "crossgrade" && change["scheduled"] as? Bool == true, "\(change)")
        #expect(change["from"] as? String == Demo.monthly && change["to"] as? String == Demo.quarterly, "\(change)")
        #expect(change["effectiveDate"] as? String == trial["expirationDate"] as? String, "\(change)")
    }

    @Test("billing issues with grace: inGracePeriod 16 days after the trial's end, then billing retry")
    func billingGrace() async throws {
        let sandbox = try Sandbox()
        let trial = try await sandbox.subscribe(Demo.monthly)
        let trialEnd = try isoDate(trial["expirationDate"])
        try await sandbox.storefront("settings", "set", "billingIssues", "true").expect(exit: 0)
        try await sandbox.storefront("settings", "set", "gracePeriod", "true").expect(exit: 0)
        try await sandbox.storefront("clock", "advance", "P8D").expect(exit: 0)
        let grace = try #require(try await sandbox.statuses().first)
        #expect(grace["state"] as? String == "inGracePeriod")
        let info = try #require(grace["renewalInfo"] as? [String: Any])
        #expect(try isoDate(info["gracePeriodExpirationDate"]) == calendarUTC.date(byAdding: .day, value: 16, to: trialEnd))
        #expect(info["isInBillingRetry"] as? Bool == true)
        #expect(try await sandbox.storefront("status").stdout.contains("grace until"))
        try await sandbox.storefront("clock", "advance", "P16D").expect(exit: 0)
        #expect(try await sandbox.statuses().first?["state"] as? String == "inBillingRetryPeriod")
        #expect(try await sandbox.history().count == 1, "a failed renewal adds no transaction")
    }

    @Test("buy --offer: an unknown offer and a never-subscribed account are refused; a lapsed subscriber redeems it")
    func promotionalOffer() async throws {
        let sandbox = try Sandbox()
        let catalog = try sandbox.write("promo.json", promoCatalog)
        try await sandbox.storefront(["offer-keys", "create", "K1"], catalog: catalog).expect(exit: 0)
        let unsigned = try await sandbox.storefront(["buy", "plus.monthly", "--offer", "comeback"], catalog: catalog)
        unsigned.expect(exit: 1)
        #expect(unsigned.stderr.contains("missingOfferParameters") && unsigned.stderr.contains("offer sign"))
        let unknown = try await sandbox.storefront(["buy", "plus.monthly", "--offer", "nope", "--sign"], catalog: catalog)
        unknown.expect(exit: 1)
        #expect(unknown.stderr.contains("invalidOfferIdentifier"))
        let ineligible = try await sandbox.storefront(["buy", "plus.monthly", "--offer", "comeback", "--sign"], catalog: catalog)
        ineligible.expect(exit: 1)
        #expect(ineligible.stderr.contains("ineligibleForOffer"))

        try await sandbox.storefront(["buy", "plus.monthly"], catalog: catalog).expect(exit: 0)
        try await sandbox.storefront(["expire", "plus"], catalog: catalog).expect(exit: 0)
        let run = try await sandbox.storefront(["buy", "plus.monthly", "--offer", "comeback", "--sign", "--json"], catalog: catalog)
        run.expect(exit: 0)
        let promo = try #require(try run.jsonObject()["transaction"] as? [String: Any])
        #expect(promo["offerType"] as? String == "promotional")
        #expect(promo["offerID"] as? String == "comeback")
        #expect(promo["price"] as? String == "1.99")
        let text = try await sandbox.storefront(["transactions"], catalog: catalog)
        text.expect(exit: 0)
    }

    @Test("products offers the introductory offer to an account that may take it, and only then")
    func introOfferText() async throws {
        let sandbox = try Sandbox()
        let fresh = try await sandbox.storefront("products")
        let row = try #require(fresh.stdout.split(separator: "\n").first { $0.hasPrefix(Demo.monthly) })
        #expect(row.contains("1 week free, then $4.99/month"))
        _ = try await sandbox.subscribe(Demo.yearly)
        try await sandbox.storefront("expire", premiumGroup).expect(exit: 0)
        let lapsed = try await sandbox.storefront("products")
        #expect(!lapsed.stdout.contains("1 week free"))
    }
}
