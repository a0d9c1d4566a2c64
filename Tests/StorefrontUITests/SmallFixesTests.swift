import Foundation
@testable import StoreEngine
import Testing
@testable import StorefrontUI

/// Issue 16's smaller bugs (item 11), each as it was seen.
@Suite("small fixes")
struct SmallFixesTests {
    @Test("a status note goes after six seconds of ticks; an alert stays")
    func flashExpires() {
        var state = loadedState()
        _ = update(&state, .paywall(.purchased(productID: swiftShopping, .success(transactionID: 1, restored: false))))
        #expect(state.flash == "Purchased Swift Shopping")
        for _ in 0..<(flashTicks - 1) { _ = update(&state, .tick) }
        #expect(state.flash != nil, "still there before its time")
        #expect(update(&state, .tick).isEmpty || true)
        #expect(state.flash == nil)
    }

    @Test("a year of renewals arriving is one name with its count, not the name twelve times")
    func countedNames() {
        var state = loadedState()
        var snap = snapshot(dataVersion: 2)
        snap.arrived = Array(repeating: monthly, count: 12) + [swiftShopping]
        _ = update(&state, .loaded(snap))
        #expect(state.flash == "Arrived as an update: Monthly Subscription ×12, Swift Shopping")
    }

    @Test("the manager's scroll mark never covers a date's digit")
    func markClearOfDates() {
        let history = (0..<40).map { transaction(monthly, id: 2_000_000_100 + Int64($0), expires: fixedDate.addingTimeInterval(86_400 * 30)) }
        for columns in [98, 100, 120] {
            var state = loadedState(on: .transactions, columns: columns, rows: 24)
            _ = update(&state, .manager(.historyLoaded(history)))
            let lines = render(state, timeZone: utc).lines
            let marked = lines.filter { $0.hasSuffix("↓") || $0.hasSuffix("↓ ") }
            #expect(!marked.isEmpty, "\(columns): a mark shows")
            for line in marked { #expect(line.contains("2026-12-31 00:00 ") || !line.contains("2026-12-31"), "\(columns): \(line)") }
        }
    }

    @Test("after deleting the app, a subscription the App Store still has shows at once, as currentEntitlements has it")
    func resetAppRow() {
        var snap = snapshot()
        var bought = purchase(monthly, expires: fixedDate.addingTimeInterval(86_400 * 30))
        bought.subscriptionGroupID = "premium"
        snap.subscriptions["premium"] = SubscriptionStatus(groupID: "premium", state: .subscribed, transaction: bought,
                                                           renewalInfo: renewalInfo(monthly))
        let state = loadedState(snapshot: snap)
        let row = render(state, timeZone: utc).lines.first { $0.contains("Monthly Subscription") }!
        #expect(row.contains("Renews") && row.contains(state.glyphs.check), "\(row)")
        #expect(!row.contains("not on this device") && !row.contains("r restores"), "\(row)")
    }

    @Test("an ended subscription period is expired in the manager, by the store's clock")
    func expiredInManager() {
        var snap = snapshot()
        snap.storeTime = fixedDate.addingTimeInterval(86_400 * 40)
        var state = loadedState(on: .transactions, snapshot: snap)
        _ = update(&state, .manager(.historyLoaded([transaction(monthly, id: 2_000_000_001, expires: fixedDate.addingTimeInterval(86_400 * 30))])))
        #expect(render(state, timeZone: utc).lines[4].contains("expired"))
        let unloaded = State(size: Size(columns: 100, rows: 30), account: "t", storePath: "/tmp/s", paywall: demoCatalog.paywall)
        #expect(unloaded.manager.facts(of: transaction(monthly, id: 1, expires: fixedDate), unloaded).state == .purchased,
                "no clock, no judgement")
    }

    @Test("a name is cut after its escapes are made visible: it never spills into the next column")
    func cutAfterEscapes() {
        let cut = TerminalText.truncated("Evil\u{1B}[31mRed\u{1B}[0m Name", to: 10)
        #expect(TerminalText.width(cut) <= 10)
        #expect(cut == "Evil\\e[31…")
        var canvas = Canvas(width: 12, height: 1)
        canvas.put(cut, x: 0, y: 0)
        #expect(canvas.lines[0].count <= 12)
    }

    @Test("emoji and ZWJ sequences are two columns; a flag is two; a byte-order mark is shown, not piled up")
    func widths() {
        #expect(TerminalText.width("👨‍👩‍👧") == 2)
        #expect(TerminalText.width("❤️") == 2)
        #expect(TerminalText.width("🇩🇪") == 2)
        #expect(TerminalText.width("👍🏽") == 2)
        #expect(TerminalText.width("☕") == 2)
        #expect(TerminalText.width("é") == 1)
        var canvas = Canvas(width: 10, height: 1)
        canvas.put("a👨‍👩‍👧b", x: 0, y: 0)
        #expect(canvas.lines[0] == "a👨‍👩‍👧b")
        #expect(TerminalText.sanitized("\u{FEFF}Coins") == "\\u{FEFF}Coins")
        var twice = Canvas(width: 20, height: 1)
        twice.put("\u{FEFF}Coins", x: 0, y: 0)
        let first = twice.lines
        twice.put("\u{FEFF}Coins", x: 0, y: 0)
        #expect(twice.lines == first, "a redraw puts the same")
    }

    @Test("o on an error setting adds (once) without moving the scope column")
    func onceKeepsColumns() {
        var state = loadedState(on: .settings)
        _ = update(&state, .settings(.loaded(settingRows(["purchaseError": "networkError"]), accounts: [Store.defaultAccount])))
        let scopeX = { (state: State) in render(state, timeZone: utc).lines.first { $0.contains("purchaseError") }!.distance(of: "store") }
        let before = scopeX(state)
        _ = update(&state, .settings(.loaded(settingRows(["purchaseError": "networkError"], once: ["purchaseError"]),
                                            accounts: [Store.defaultAccount])))
        #expect(scopeX(state) == before)
    }
}

/// Renewal info that renews `productID`, for snapshots made by hand.
func renewalInfo(_ productID: String) -> RenewalInfo {
    RenewalInfo(originalTransactionID: 2_000_000_001, currentProductID: productID, autoRenewPreference: productID, willAutoRenew: true,
                renewalDate: nil, recentSubscriptionStartDate: fixedDate, environment: .xcode, currency: "USD", renewalPrice: 4.99,
                jwsRepresentation: nil)
}
