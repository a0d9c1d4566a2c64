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
}
