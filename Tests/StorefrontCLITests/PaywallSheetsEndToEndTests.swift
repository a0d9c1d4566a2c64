import Foundation
import Testing

/// Whether every line of a screen is inside its width and the open sheet's frame is whole (both corners of its top and bottom).
private func sheetIsWhole(_ lines: [String], columns: Int) -> Bool {
    let width = lines.map(\.count).max() ?? 0
    let tops = lines.filter { $0.contains("┌") && $0.contains("┐") }.count
    let bottoms = lines.filter { $0.contains("└") && $0.contains("┘") }.count
    return width <= columns && tops == 1 && bottoms == 1
}

/// The sheets beside the App Store's purchase sheet, on the real binary: Redeem Code, a promotional
/// offer's signature, the price increase consent sheet, a message arriving live, a refund request
/// decided in a second process.
@Suite("paywall sheets end to end (tmux)")
struct PaywallSheetsEndToEndTests {
    @Test("Redeem Code: o, the code, Enter → what it gave and the update; the same code for another tester → ineligibleForOffer")
    func redeemCode() async throws {
        let sandbox = try Sandbox()
        try await withPaywall(sandbox) { session in
            try await session.waitFor("the product table") { $0.contains { $0.contains("Swift Shopping") } }
            try await session.send("o", "FREE3A")
            try await session.waitFor("the code in the field") { $0.contains { $0.contains("Code: [ FREE3A_") } }
            try await session.send("Enter")
            let redeemed = try await session.waitFor("the redemption") { lines in
                lines.contains { $0.contains("Offer Code Redeemed") } && lines.contains { $0.contains("[ OK") }
            }
            #expect(redeemed.joined().contains("3 months free, then $39.99/year"))
            try await session.send("Enter")
            try await session.waitFor("the annual row") { lines in
                lines.contains { $0.contains("✓") && $0.contains("Annual Subscription") && $0.contains("Free trial until") }
            }
            try await sandbox.storefront("accounts", "create", "other@local").expect(exit: 0)
            try await sandbox.storefront("accounts", "switch", "other@local").expect(exit: 0)
            try await session.waitFor("the other tester") { $0.contains { $0.contains("other@local") } }
            try await session.send("o", "FREE3A", "Enter")
            try await session.waitFor("StoreKit's error on the sheet") { lines in
                lines.joined().contains("Product.PurchaseError.ineligibleForOffer") && lines.contains { $0.contains("Redeem Code") }
            }
        }
        let history = try await sandbox.storefront("--account", "tester@local", "transactions", "--json").jsonObject().objects("transactions")
        #expect(history.first?["offerType"] as? String == "code", "\(history)")
    }

    @Test("the consent sheet arrives with the increase from a second process; Agree makes it agreed")
    func priceIncreaseConsent() async throws {
        let sandbox = try Sandbox()
        try await sandbox.storefront("buy", Demo.monthly).expect(exit: 0)
        try await sandbox.storefront("clock", "advance", "P1W").expect(exit: 0)
        try await withPaywall(sandbox) { session in
            try await session.waitFor("the subscription") { $0.contains { $0.contains("Renews") } }
            try await sandbox.storefront("price-increase", Demo.monthly, "9.99", "--consent-required").expect(exit: 0)
            let sheet = try await session.waitFor("the consent sheet") { lines in
                lines.contains { $0.contains("Subscription Price Increase") } && lines.contains { $0.contains("[ Cancel Subscription x ]") }
            }
            #expect(sheet.contains { $0.contains("$4.99/month → $9.99/month") })
            #expect(sheetIsWhole(sheet, columns: 100))
            try await session.send("Enter")
            // The note ("Agreed: …") goes after a few seconds, and a loaded run's screen reads can come
            // further apart: the sheet closes, and the store says agreed (read while the paywall runs).
            try await session.waitFor("the sheet to close") { !$0.contains { $0.contains("Subscription Price Increase") } }
            let deadline = ContinuousClock.now + patience
            while ContinuousClock.now < deadline {
                let statuses = try await sandbox.storefront("status", "--json").jsonObject().objects("statuses")
                if statuses.first?["renewalInfo"].flatMap({ ($0 as? [String: Any])?["priceIncreaseStatus"] as? String }) == "agreed" { break }
                try await Task.sleep(for: .milliseconds(200))
            }
        }
        let status = try await sandbox.storefront("status", "--json").jsonObject().objects("statuses")
        #expect(status.first?["renewalInfo"].flatMap { ($0 as? [String: Any])?["priceIncreaseStatus"] as? String } == "agreed",
                "\(status)")
    }

    @Test("a Billing Problem message arrives live when a renewal fails; Continue renews it")
    func billingMessage() async throws {
        let sandbox = try Sandbox()
        try await sandbox.storefront("buy", Demo.monthly).expect(exit: 0)
        try await sandbox.storefront("settings", "set", "billingIssues", "true").expect(exit: 0)
        try await withPaywall(sandbox) { session in
            try await session.waitFor("the trial") { $0.contains { $0.contains("Free trial until") } }
            try await sandbox.storefront("clock", "advance", "P1W").expect(exit: 0)
            let sheet = try await session.waitFor("the Billing Problem sheet") { lines in
                lines.contains { $0.contains("Billing Problem") } && lines.contains { $0.contains("[ Continue") }
            }
            #expect(sheet.joined().contains("There is a problem with your current payment method."))
            try await session.send("Enter")
            try await session.waitFor("the renewal") { $0.contains { $0.contains("Monthly Subscription") && $0.contains("Renews") } }
        }
    }

    @Test("a refund request from the paywall's row: Refund requested, then declined from a second process")
    func refundRequest() async throws {
        let sandbox = try Sandbox()
        let bought = try await sandbox.storefront("buy", Demo.goPro, "--json").jsonObject()
        let id = try #require((bought["transaction"] as? [String: Any])?["id"] as? Int)
        try await withPaywall(sandbox) { session in
            try await session.waitFor("Go Pro owned") { $0.contains { $0.contains("Go Pro") && $0.contains("Owned") } }
            try await session.send("/", "Go Pro", "Enter", "b")
            try await session.waitFor("the refund request sheet") { lines in
                lines.contains { $0.contains("Request a Refund") } && lines.contains { $0.contains("[ Submit") }
            }
            try await session.send("Down", "Enter")
            try await session.waitFor("the requested row") { $0.contains { $0.contains("Go Pro") && $0.contains("Refund requested") } }
            try await sandbox.storefront("refund-request", "decline", String(id)).expect(exit: 0)
            // The row's status, which lasts; the note said with it ("The App Store declined the refund
            // request for Go Pro") can be gone when the second process ends: RefundRequestSheetTests check its words.
            try await session.waitFor("the decision") { $0.contains { $0.contains("Go Pro") && $0.contains("Refund declined") } }
        }
        let requests = try await sandbox.storefront("refund-request", "--json").jsonObject().objects("requests")
        #expect(requests.first?["reason"] as? String == "fulfillmentIssue")
    }

    @Test("at 80×24 a promotional offer's sheet is whole; a wrong key's signature is refused with invalidOfferSignature")
    func promotionalOfferSmall() async throws {
        let sandbox = try Sandbox()
        try await sandbox.storefront("offer-keys", "create", "OFFERKEY").expect(exit: 0)
        try await sandbox.storefront("buy", Demo.monthly).expect(exit: 0)
        try await sandbox.storefront("expire", "premium").expect(exit: 0)
        try await withPaywall(sandbox, columns: 80, rows: 24) { session in
            try await session.waitFor("the lapsed plan") { $0.contains { $0.contains("Expired") } }
            try await session.send("Enter", "Up", "Right", "Down", "Right")
            let sheet = try await session.waitFor("the wrong key") { $0.contains { $0.contains("Signature: ‹ wrong key ›") } }
            #expect(sheetIsWhole(sheet, columns: 80), "\(sheet.joined(separator: "\n"))")
            #expect(sheet.contains { $0.contains("[ Confirm ⏎ ]") })
            try await session.send("Enter")
            try await session.waitFor("the refusal") { $0.joined().contains("Product.PurchaseError.invalidOfferSignature") }
        }
    }

    @Test("in the C locale with NO_COLOR the sheets are ASCII: Redeem Code and a message")
    func asciiSheets() async throws {
        let sandbox = try Sandbox()
        try await withPaywall(sandbox, environment: "LANG=C LC_ALL=C NO_COLOR=1") { session in
            try await session.waitFor("the product table") { $0.contains { $0.contains("Swift Shopping") } }
            try await session.send("o")
            let redeem = try await session.waitFor("the Redeem Code sheet") { $0.contains { $0.contains("[ Redeem Enter ]") } }
            #expect(redeem.allSatisfy { $0.unicodeScalars.allSatisfy(\.isASCII) }, "\(redeem.joined(separator: "\n"))")
            try await session.send("Escape")
            try await sandbox.storefront("message", "send", "generic").expect(exit: 0)
            let message = try await session.waitFor("the message") { $0.contains { $0.contains("Message.Reason.generic") } }
            #expect(message.allSatisfy { $0.unicodeScalars.allSatisfy(\.isASCII) })
            #expect(message.contains { $0.contains("+") && $0.contains("App Store") })
        }
    }
}
