import Foundation
import StoreEngine
import Testing
@testable import StorefrontUI

/// The demo catalog with its yearly plan given a monthly plan (9.99 a month over 12 months).
private let commitmentCatalog: Catalog = {
    let products = demoCatalog.products.map { product in
        var product = product
        if product.id == yearly { product.subscription?.billingPlans = [BillingPlan(type: .monthly, price: Decimal(string: "9.99")!)] }
        return product
    }
    return Catalog(paywall: demoCatalog.paywall, defaultStorefront: demoCatalog.defaultStorefront,
                   storefronts: demoCatalog.storefronts, products: products, subscriptionGroups: demoCatalog.subscriptionGroups)
}()

private func commitmentSnapshot() -> StoreSnapshot {
    let usa = commitmentCatalog.storefront("USA")!
    return StoreSnapshot(storefront: usa, products: commitmentCatalog.products(in: usa), owned: [:], entitled: [],
                         balances: [:], canMakePayments: true, events: [], dataVersion: 1)
}

@Suite("Paywall: a one-year plan's monthly plan on its row and the App Store sheet")
struct BillingPlanRowTests {
    @Test("the row of a yearly plan with a monthly plan says 'or $9.99/month for 12 months'; others say nothing new")
    func row() {
        let state = loadedState(snapshot: commitmentSnapshot())
        let lines = render(state, timeZone: utc).lines
        let row = lines.first { $0.contains("$39.99") }
        #expect(row?.contains("or $9.99/month for 12 months") == true, "\(lines.joined(separator: "\n"))")
        #expect(lines.filter { $0.contains("/month for 12 months") }.count == 1, "only the yearly plan has one")
    }

    @Test("the App Store sheet of that plan offers the monthly plan beside the yearly price")
    func sheet() {
        var state = loadedState(snapshot: commitmentSnapshot())
        state.selection = index(of: yearly)
        #expect(update(&state, .key(.enter)).isEmpty)
        #expect(state.sheet == .confirm(productID: yearly))
        let text = render(state, timeZone: utc).lines.joined(separator: "\n")
        #expect(text.contains("$39.99/year, or $9.99/month for 12 months"), "\(text)")
    }

    @Test("the sheet's Billing line chooses the monthly plan (↓ to it, → changes it); Confirm buys with it, as buy --billing-plan")
    func chooseMonthly() {
        var state = loadedState(snapshot: commitmentSnapshot())
        state.selection = index(of: yearly)
        #expect(update(&state, .key(.enter)).isEmpty)
        var text = sheetText(state)
        #expect(text.contains("Billing: ‹ up front, $39.99/year ›"), "\(text)")
        assertUpdate(&state, .key(.up)) { $0.sheet = .confirm(productID: yearly, offer: OfferSelection(focus: .plan)) }
        assertUpdate(&state, .key(.right)) {
            $0.sheet = .confirm(productID: yearly, offer: OfferSelection(billingPlan: .monthly, focus: .plan))
        }
        text = sheetText(state)
        #expect(text.contains("1 year · $9.99/month for 12 months") && text.contains("▸ Billing: ‹ monthly, $9.99/month for 12 months ›"),
                "\(text)")
        #expect(render(state, timeZone: utc).lines.last?.hasPrefix(" ↑↓ line  ‹› change  ⏎ confirm") == true)
        assertUpdate(&state, .key(.enter), effects: [.purchase(productID: yearly, billingPlan: .monthly)]) {
            $0.sheet = nil
            $0.busy = .purchasing(productID: yearly)
        }
        // A plan without a monthly plan has no Billing line: ↑ stays on the outcome.
        var plain = loadedState(snapshot: commitmentSnapshot())
        plain.selection = index(of: monthly)
        #expect(update(&plain, .key(.enter)).isEmpty)
        #expect(!sheetText(plain).contains("Billing:"))
    }

    @Test("the purchase with the monthly plan is the engine's: a 12-month commitment, billed $9.99 a month")
    func engineBuysMonthly() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ui-plan-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = try Store(catalog: commitmentCatalog, path: folder.appendingPathComponent("store.sqlite").path,
                              now: StepClock(fixedDate).closure)
        let engine = EngineEffects(store: store, latency: .zero)
        let action = await engine.perform(.purchase(productID: yearly, billingPlan: .monthly))
        guard case .paywall(.purchased(yearly, .ended(.bought(let purchase, _, _, _))))? = action,
              case .purchased(let transaction, nil) = purchase.outcome else {
            Issue.record("\(String(describing: action))")
            return
        }
        let bought = try await store.app.transaction(id: transaction.id)
        #expect(bought.commitment?.billingPlanType == .monthly && bought.commitment?.totalBillingPeriods == 12)
        #expect(bought.price == Decimal(string: "9.99"))
    }
}
