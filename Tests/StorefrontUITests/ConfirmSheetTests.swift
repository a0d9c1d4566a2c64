import Foundation
import StoreEngine
import Testing
@testable import StorefrontUI

/// The App Store sheet says what Confirm will do: the trial then the price, a downgrade's
/// "nothing charged now", what the settings make of the purchase, by name.
@Suite("confirm sheet says what will happen")
struct ConfirmSheetTests {
    func sheet(on productID: String, _ snapshot: StoreSnapshot, columns: Int = 100, rows: Int = 30) -> State {
        var state = loadedState(columns: columns, rows: rows, snapshot: snapshot)
        state.selection = index(of: productID)
        #expect(update(&state, .key(.enter)).isEmpty)
        #expect(state.sheet == .confirm(productID: productID))
        return state
    }

    /// The sheet's inner lines, trimmed.
    func sheetText(_ state: State) -> [String] {
        render(state, timeZone: utc).lines.compactMap { line -> String? in
            let parts = line.components(separatedBy: "│")
            return parts.count == 3 ? parts[1].trimmingCharacters(in: .whitespaces) : nil
        }
    }

    @Test("a trial product's sheet says '1 week free, then $4.99/month', not '1 month · $4.99'")
    func trial() {
        var eligible = snapshot()
        eligible.introEligibleGroups = ["premium"]
        let text = sheetText(sheet(on: monthly, eligible))
        #expect(text.contains("1 month · 1 week free, then $4.99/month"))
        var taken = snapshot()
        taken.introEligibleGroups = []
        #expect(sheetText(sheet(on: monthly, taken)).contains("1 month · $4.99/month"), "no trial once it was taken")
    }

    @Test("a downgrade's sheet says nothing is charged now and when it starts, at 80×24 too")
    func downgrade() {
        let renewal = Date(timeIntervalSince1970: 1_827_619_200)  // 2027-12-01
        var subscribed = snapshot(owned: [purchase(yearly, expires: renewal)])
        subscribed.plannedChanges[monthly] = PlannedChange(kind: .downgrade, fromProductID: yearly, isScheduled: true,
                                                           effectiveDate: renewal)
        for (columns, rows) in [(100, 30), (80, 24)] {
            let text = sheetText(sheet(on: monthly, subscribed, columns: columns, rows: rows)).joined(separator: " ")
            #expect(text.contains("Downgrade from Annual Subscription: nothing charged now, starts Dec 1, 2027; then"),
                    "\(columns)×\(rows): \(text)")
            #expect(text.contains("$4.99/month"))
        }
        subscribed.plannedChanges = [yearly: PlannedChange(kind: .upgrade, fromProductID: monthly, isScheduled: false)]
        let up = sheetText(sheet(on: yearly, subscribed)).joined(separator: " ")
        #expect(up.contains("Upgrade from Monthly Subscription: $39.99 now, at once"), "\(up)")
    }

    @Test("'as the settings say' names the conditions in force and what they make of the purchase")
    func conditions() {
        var conditions = PurchaseConditions()
        var plain = snapshot()
        plain.conditions = conditions
        #expect(sheetText(sheet(on: swiftShopping, plain)).contains("› succeeds (no condition set)"))
        conditions.askToBuy = true
        conditions.purchaseError = .networkError
        conditions.purchaseErrorOnce = true
        var set = snapshot()
        set.conditions = conditions
        var state = sheet(on: swiftShopping, set)
        #expect(sheetText(state).joined(separator: " ").contains("› fails with networkError (purchaseError networkError (once), askToBuy)"))
        send(&state, .key(.right), expecting: [])
        #expect(!sheetText(state).joined().contains("askToBuy)"), "a chosen outcome overrides the settings: not named")
    }

    @Test("canMakePayments false: no sheet, no Confirm, no price; the purchase is refused as StoreKit refuses it")
    func notAllowed() {
        var state = loadedState(snapshot: snapshot(canMakePayments: false))
        state.selection = index(of: swiftShopping)
        #expect(update(&state, .key(.enter)) == [.purchase(productID: swiftShopping, outcome: nil)])
        #expect(state.sheet == nil)
        #expect(state.busy == .purchasing(productID: swiftShopping))
        var eligible = snapshot(canMakePayments: false)
        eligible.introEligibleGroups = ["premium"]
        let screen = render(loadedState(snapshot: eligible), timeZone: utc).lines.joined(separator: "\n")
        #expect(!screen.contains("$"), "no price, and no offer's price either:\n\(screen)")
        #expect(!screen.contains("free, then"))
    }
}
