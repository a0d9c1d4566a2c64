import Foundation
import Testing

/// The date on the monthly subscription's row: after "Renews ", or after "Free trial until " for the trial.
private func renewsDate(_ lines: [String]) -> String? {
    guard let row = lines.first(where: { $0.contains("Monthly Subscription") }),
          let range = row.range(of: "Renews ") ?? row.range(of: "Free trial until ") else { return nil }
    return String(row[range.upperBound...]).trimmingCharacters(in: .whitespaces)
}

@Suite("subscriptions end to end (tmux)")
struct SubscriptionEndToEndTests {
    @Test("a fast clock set from a second process brings renewals to the open paywall by themselves")
    func renewalsArriveLive() async throws {
        let sandbox = try Sandbox()
        try await sandbox.storefront("buy", Demo.monthly).expect(exit: 0)
        try await withPaywall(sandbox) { session in
            let first = try await session.waitFor("the trial's renewal date") { renewsDate($0) != nil }
            let trialEnd = try #require(renewsDate(first))
            // A month now passes in two seconds; no key is pressed in the paywall.
            try await sandbox.storefront("settings", "set", "timeRate", "oneRenewalEveryTwoSeconds").expect(exit: 0)
            let later = try await session.waitFor("a later renewal date") { lines in
                renewsDate(lines).map { $0 != trialEnd } ?? false
            }
            #expect(later.contains { $0.contains("(fast)") }, "the title bar shows the store's fast clock")
            try await session.waitFor("the renewal delivered as an update") { lines in
                lines.contains { $0.contains("Arrived as an update") && $0.contains("Monthly Subscription") }
            }
        }
        // The renewals are in the store file with the trial's original id, as a second process sees it.
        let history = try await sandbox.storefront("transactions", "--json").jsonObject().objects("transactions")
        let renewals = history.filter { $0["reason"] as? String == "renewal" }
        #expect(!renewals.isEmpty)
        #expect(Set(history.map { $0["originalID"] as? Int }).count == 1)
    }
}
